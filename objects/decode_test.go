package objects

import (
	"testing"

	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// TestPlainScalarIsDecoded holds scalarValue's direct reading of the usual
// bools and ints to what yaml.v3's decoder makes of the same scalar, and
// shows which texts it leaves to the decoder.
func TestPlainScalarIsDecoded(t *testing.T) {
	for _, c := range []struct {
		text   string
		direct bool // plainScalar reads it
	}{
		{"true", true}, {"false", true}, {"True", false}, {"FALSE", false}, {"!!bool true", true},
		{"0", true}, {"7", true}, {"-7", true}, {"8080", true}, {"-0", true},
		{"123456789012345678", true}, {"999999999999999999", true},
		{"1234567890123456789", false}, {"9223372036854775807", false}, {"-9223372036854775808", false},
		{"9223372036854775808", false}, {"18446744073709551616", false},
		{"007", false}, {"+7", false}, {"0x1f", false}, {"0o17", false}, {"0b101", false},
		{"1_000", false}, {"1.5", false}, {"1e3", false}, {".inf", false},
		{"!!int 12", true}, {"!!float 12", false},
	} {
		var doc yaml.Node
		require.NoError(t, yaml.Unmarshal([]byte("x: "+c.text+"\n"), &doc), c.text)
		n := doc.Content[0].Content[1]
		want, wantErr := decodedScalar(n)
		if n.ShortTag() != "!!bool" && n.ShortTag() != "!!int" && n.ShortTag() != "!!float" {
			want, wantErr = n.Value, nil
		}
		got, err := scalarValue(n)
		require.Equal(t, wantErr, err, c.text)
		require.Equal(t, want, got, "%s (%s)", c.text, n.ShortTag())
		_, direct := plainScalar(n.ShortTag(), n.Value)
		require.Equal(t, c.direct, direct, c.text)
	}
	// Texts a !!int tag may carry that the parser would not resolve as one.
	for _, text := range []string{"", "-", "--1", "1-", "１"} {
		_, direct := plainScalar("!!int", text)
		require.False(t, direct, "%q", text)
	}
}
