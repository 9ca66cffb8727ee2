package output

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

func TestWrapTo(t *testing.T) {
	long := "  REJECTED: no supporting runtime found for model weird: Checked 203 runtimes (0 namespace-scoped, 203 cluster-scoped)."
	for _, tc := range []struct {
		name        string
		line        string
		width, hang int
		want        string
	}{
		{name: "no terminal: whole", line: long, width: 0, want: long + "\n"},
		{name: "narrower than the least width: whole", line: long, width: 30, want: long + "\n"},
		{name: "fits", line: "  short line", width: 40, want: "  short line\n"},
		{name: "wrapped with a hanging indent", line: long, width: 50, want: "" +
			"  REJECTED: no supporting runtime found for model\n" +
			"      weird: Checked 203 runtimes (0\n" +
			"      namespace-scoped, 203 cluster-scoped).\n"},
		{name: "columns kept, continuation under a column", line: "  vllm-a    NO MATCH  model format 'mt:safetensors' not in supported formats", width: 48, hang: 22,
			want: "" +
				"  vllm-a    NO MATCH  model format\n" +
				"                      'mt:safetensors' not in\n" +
				"                      supported formats\n"},
		{name: "a word wider than a line is cut, not lost", line: "  " + strings.Repeat("x", 100), width: 40,
			want: "  " + strings.Repeat("x", 38) + "\n      " + strings.Repeat("x", 34) + "\n      " + strings.Repeat("x", 28) + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			wrapTo(&b, tc.line, tc.width, tc.hang)
			require.Equal(t, tc.want, b.String())
			// No text is lost: the words are the line's words.
			require.Equal(t, strings.Join(strings.Fields(tc.line), ""), strings.Join(strings.Fields(b.String()), ""))
			if tc.width >= minWrapWidth {
				for _, l := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
					require.LessOrEqual(t, utf8.RuneCountInString(l), tc.width, l)
				}
			}
		})
	}
}
