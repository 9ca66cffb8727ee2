package engine

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ome-policy/evaluator/builtins"
	"github.com/ome-policy/evaluator/input"
	"github.com/ome-policy/evaluator/objects"
)

// sizeCorpus is testdata/sizes/corpus.txt: sizes at the edges of OME's
// parser, and random ones.
func sizeCorpus(t testing.TB) []string {
	t.Helper()
	b, err := os.ReadFile("../testdata/sizes/corpus.txt")
	require.NoError(t, err)
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		if line != "" && !strings.HasPrefix(line, "#") {
			var s string
			require.NoError(t, json.Unmarshal([]byte(line), &s), line)
			out = append(out, s)
		}
	}
	return out
}

// sizeObjects are a model of each size and a runtime whose range has it as
// both bounds, in a file of dir.
func sizeObjects(t testing.TB, dir string, sizes []string) []*objects.Object {
	t.Helper()
	var b strings.Builder
	for i, s := range sizes {
		q, err := json.Marshal(s)
		require.NoError(t, err)
		fmt.Fprintf(&b, `---
apiVersion: ome.io/v1beta1
kind: ClusterBaseModel
metadata: {name: m%d}
spec:
  modelFormat: {name: safetensors}
  modelFramework: {name: transformers}
  modelParameterSize: %s
---
apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata: {name: r%d}
spec:
  modelSizeRange: {min: %s, max: %s}
  supportedModelFormats:
  - modelFormat: {name: safetensors}
    modelFramework: {name: transformers}
`, i, q, i, q, q)
	}
	path := filepath.Join(dir, "sizes.yaml")
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
	objs, err := input.Load([]string{path}, input.LoadOptions{Lenient: true})
	require.NoError(t, err)
	return objs
}

// unparsed-size finds exactly the sizes that OME's parser reads as 0
// though they are not a zero (builtins.SizeParses, Go's own ParseFloat),
// on every engine: the CEL rule is plain CEL, which the admission bundles
// hold as it is, and the Rego one asks ome.go.is_float.
func TestUnparsedSizeIsOMEsParser(t *testing.T) {
	sizes := sizeCorpus(t)
	objs := sizeObjects(t, t.TempDir(), sizes)
	linters := testLinters(t)
	for _, name := range []string{CEL, Rego} {
		l := linters[name]
		fs, err := Lint(l, objs, LintOptions{})
		require.NoError(t, err)
		got := map[string]bool{}
		for _, f := range fs {
			if f.Rule == "unparsed-size" {
				got[f.Object.Name+" "+f.Field] = true
			}
		}
		bad := 0
		for i, s := range sizes {
			want := !builtins.SizeParses(s)
			for _, k := range []string{fmt.Sprintf("m%d spec.modelParameterSize", i), fmt.Sprintf("r%d spec.modelSizeRange.min", i), fmt.Sprintf("r%d spec.modelSizeRange.max", i)} {
				if got[k] != want {
					t.Errorf("%s: %q (%s): unparsed-size %v, OME reads it as 0: %v", name, s, k, got[k], want)
				}
			}
			if want {
				bad++
			}
		}
		require.Greater(t, bad, 100, name)
		require.Less(t, bad, len(sizes)-100, name)
	}
}
