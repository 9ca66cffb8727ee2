package admission

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/ome-policy/evaluator/builtins"
)

// OMEVersionLint refuses a size exactly when OME reads it as 0 though it
// is not a zero (builtins.SizeParses, Go's own ParseFloat), in its Rego
// (the lint policy on the plain-Rego stand-in of ome.go.is_float) and in
// its CEL (the lint policy's plain CEL, rewritten for Kubernetes' CEL), on
// the sizes of testdata/sizes/corpus.txt.
func TestLintTemplateReadsSizesAsOME(t *testing.T) {
	b, err := os.ReadFile(repoPath("testdata/sizes/corpus.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var sizes []string
	for _, line := range strings.Split(string(b), "\n") {
		if line != "" && !strings.HasPrefix(line, "#") {
			var s string
			if err := json.Unmarshal([]byte(line), &s); err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			sizes = append(sizes, s)
		}
	}
	if testing.Short() {
		sizes = sizes[:150]
	}
	tp := templateOf(t, embeddedSet(t), "omeversionlint")
	g := templateEval(t, tp)
	c := newCELEval(t, tp.CEL)
	refused := 0
	for _, s := range sizes {
		want := !builtins.SizeParses(s)
		for _, o := range []map[string]any{
			{"apiVersion": "ome.io/v1beta1", "kind": "ClusterBaseModel", "metadata": map[string]any{"name": "m"},
				"spec": map[string]any{"modelFormat": map[string]any{"name": "safetensors"}, "modelParameterSize": s}},
			{"apiVersion": "ome.io/v1beta1", "kind": "ClusterServingRuntime", "metadata": map[string]any{"name": "r"},
				"spec": map[string]any{"modelSizeRange": map[string]any{"min": "1B", "max": s}, "supportedModelFormats": []any{
					map[string]any{"modelFormat": map[string]any{"name": "safetensors"}, "modelFramework": map[string]any{"name": "transformers"}},
				}}},
		} {
			rego := g.review(t, DeepCopy(o), nil, nil)
			cel, err := c.review(DeepCopy(o), nil)
			if err != nil {
				t.Fatalf("%q: CEL: %v", s, err)
			}
			for what, got := range map[string][]string{"Rego": rego, "CEL": cel} {
				found := len(got) == 1 && strings.HasPrefix(got[0], "[unparsed-size] ")
				if found != want || len(got) > 1 || len(got) == 1 && !found {
					t.Errorf("%s of %s: size %q: %q; OME reads it as 0: %v", what, o["kind"], s, got, want)
				}
			}
		}
		if want {
			refused++
		}
	}
	if refused == 0 || refused == len(sizes) {
		t.Errorf("%d of %d sizes refused", refused, len(sizes))
	}
}
