package input

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ome-policy/evaluator/objects"
)

// FuzzRead reads what a pull request may hold, as a command reads it: a
// folder with a file of data repeated times times (sizes), through a link
// to it and, with loop, a link back to the folder (links), whatever the
// aliases and nesting of data (the seeds have bombs of both; the corpus is
// testdata/fuzz/FuzzRead). Whatever it is, the read ends, with each
// problem an InputError that names its file, never a recovered panic, and
// no object it gives holds more text than a file can, aliases expanded.
func FuzzRead(f *testing.F) {
	f.Add([]byte(rtHead+"  supportedModelFormats: [{name: a}]\n"), uint8(1), false)
	f.Add([]byte(bomb(4)), uint8(2), true)
	f.Add([]byte("a: &a "+strings.Repeat("x", 4096)+"\nb: [*a, *a, *a, *a]\n"), uint8(3), false)
	f.Add([]byte("a: "+strings.Repeat("[", 150)+strings.Repeat("]", 150)+"\n"), uint8(1), true)
	f.Add([]byte("---\n---\nkind: List\nitems: [*x]\n"), uint8(1), false)
	f.Fuzz(func(t *testing.T, data []byte, times uint8, loop bool) {
		dir := t.TempDir()
		content := bytes.Repeat(data, int(times%8)+1)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "a.yaml"), content, 0o644))
		require.NoError(t, os.Symlink("a.yaml", filepath.Join(dir, "link.yaml")))
		if loop {
			require.NoError(t, os.Symlink(".", filepath.Join(dir, "loop")))
		}
		in := &Result{}
		in.Read([]string{dir, "-"}, ReadOptions{Stdin: bytes.NewReader(content), Recursive: true, Lenient: true})
		for _, p := range in.Problems {
			require.NotEmpty(t, p.File, "a problem names its file: %s", p)
			require.NotContains(t, p.Msg, "internal error", "a recovered panic would hide a bug")
		}
		if loop {
			require.Len(t, in.Links, 1, "the loop is said, and walked once")
		}
		for _, o := range in.Objects {
			require.True(t, objects.IsOMEKind(o.Kind))
			require.LessOrEqual(t, textOf(o.Value), objects.MaxDocBytes, "aliases expand past the bound")
		}
	})
}

// textOf is the length of the strings of v, keys and values.
func textOf(v any) int {
	switch x := v.(type) {
	case string:
		return len(x)
	case map[string]any:
		n := 0
		for k, e := range x {
			n += len(k) + textOf(e)
		}
		return n
	case []any:
		n := 0
		for _, e := range x {
			n += textOf(e)
		}
		return n
	}
	return 0
}
