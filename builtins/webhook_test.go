package builtins

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestIsFloat(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"0.5", true}, {"80", true}, {"-3", true}, {"+1e3", true}, {".5", true}, {"5.", true},
		{"1_000", true}, {"0x1p-2", true}, {"0x1_0p0", true},
		{"Inf", true}, {"-infinity", true}, {"NaN", true}, {"1e-400", true},
		{"", false}, {" 1", false}, {"1 ", false}, {"80%", false}, {"1e", false},
		{"1e400", false}, {"-1e400", false}, {"0x10", false}, {"+nan", false},
		{"_1", false}, {"1__0", false}, {"0b101", false}, {"one", false},
	} {
		require.Equal(t, tc.want, IsFloat(tc.in), "%q", tc.in)
	}
}

func TestParseURL(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want URL
	}{
		{"http://prometheus:9090", URL{Scheme: "http", Host: "prometheus:9090"}},
		{"HTTPS://Prom.Example/api", URL{Scheme: "https", Host: "Prom.Example"}},
		{"http://", URL{Scheme: "http"}},
		{"prometheus:9090", URL{Scheme: "prometheus"}},
		{"ftp://x", URL{Scheme: "ftp", Host: "x"}},
		{"http://x:abc", URL{Error: `parse "http://x:abc": invalid port ":abc" after host`}},
		{"://x", URL{Error: `parse "://x": missing protocol scheme`}},
		{"1a:b", URL{Error: `parse "1a:b": first path segment in URL cannot contain colon`}},
		{"http://a b", URL{Error: `parse "http://a b": invalid character " " in host name`}},
		{"http://%zz", URL{Error: `parse "http://%zz": invalid URL escape "%zz"`}},
		{"http://a\x01", URL{Error: `parse "http://a\x01": net/url: invalid control character in URL`}},
	} {
		require.Equal(t, tc.want, ParseURL(tc.in), "%q", tc.in)
	}
}

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"chat.v1": `"chat.v1"`,
		`a"b`:     `"a\"b"`,
		"x\x01y":  `"x\x01y"`,
		"\u200b":  `"\u200b"`,
		"é":       `"é"`,
	} {
		require.Equal(t, want, Quote(in), "%q", in)
	}
}
