package cases

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// FindTests takes files as given and finds, in folders and their folders,
// the case files (in lexical order) and the Rego unit tests, passing over
// the rest.
func TestFindTests(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"b.yaml":             "cases: []\n",
		"a/z.json":           `{"cases": []}`,
		"a/c.yml":            "cases: []\n",
		"objects.yaml":       "kind: ServingRuntime\n",
		"p_test.rego":        "package x_test\n",
		"policy.rego":        "package x\n",
		"notes.txt":          "cases: []\n",
		"a/deep/q_test.rego": "package y_test\n",
	}
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	at := func(names ...string) []string {
		var out []string
		for _, n := range names {
			out = append(out, filepath.Join(dir, filepath.FromSlash(n)))
		}
		return out
	}
	for _, tc := range []struct {
		name       string
		paths      []string
		cases, rgo []string
		err        string
	}{
		{name: "a folder", paths: at("."), cases: at("a/c.yml", "a/z.json", "b.yaml"), rgo: at("a/deep/q_test.rego", "p_test.rego")},
		{name: "files as given", paths: at("objects.yaml", "p_test.rego", "b.yaml"), cases: at("objects.yaml", "b.yaml"), rgo: at("p_test.rego")},
		{name: "a policy is no test", paths: at("policy.rego"), err: "not a Rego test file"},
		{name: "a missing path", paths: at("missing.yaml"), err: "no such file or directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cases, rgo, err := FindTests(tc.paths)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.cases, cases)
			require.Equal(t, tc.rgo, rgo)
		})
	}
}
