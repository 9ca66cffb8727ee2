package admission

import (
	"github.com/ome-policy/evaluator/input"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/policies/policyset"
)

// benchCluster is an InferenceService that asks OME to select a runtime
// for a Llama model among 200 of the catalog's runtimes (none of which
// takes it: the webhook's longest message, with 200 reasons).
func benchCluster(b *testing.B) (isvc *objects.Object, cluster []*objects.Object) {
	b.Helper()
	runtimes, err := input.Load([]string{repoPath("testdata/catalog/runtimes")}, input.LoadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	kept, _ := objects.Deduplicate(runtimes)
	if len(kept) < 200 {
		b.Fatalf("only %d runtimes in the catalog", len(kept))
	}
	dir := b.TempDir()
	path := filepath.Join(dir, "objects.yaml")
	if err := os.WriteFile(path, []byte(`apiVersion: ome.io/v1beta1
kind: ClusterBaseModel
metadata: {name: llama-3-8b}
spec:
  modelFormat: {name: safetensors, version: "1.0.0"}
  modelFramework: {name: transformers, version: "4.42.3"}
  modelArchitecture: LlamaForCausalLM
  modelParameterSize: 8B
---
apiVersion: ome.io/v1beta1
kind: InferenceService
metadata: {name: chat, namespace: team-a}
spec:
  model: {name: llama-3-8b}
  engine: {}
`), 0o644); err != nil {
		b.Fatal(err)
	}
	objs, err := input.Load([]string{path}, input.LoadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	return objs[1], append(kept[:200:200], objs[0])
}

func values(objs []*objects.Object) []map[string]any {
	out := make([]map[string]any, len(objs))
	for i, o := range objs {
		out[i] = DeepCopy(o.Value)
	}
	return out
}

// BenchmarkSelectionTemplate200 is OMERuntimeSelection on one
// InferenceService with 200 runtimes in data.inventory, as Gatekeeper
// evaluates it (this project's OPA; the template compiled once).
func BenchmarkSelectionTemplate200(b *testing.B) {
	isvc, cluster := benchCluster(b)
	g := newGatekeeperEval(b, "omeruntimeselection")
	object, inv := DeepCopy(isvc.Value), values(cluster)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if msgs := g.review(b, object, inv, nil); len(msgs) != 1 || !strings.Contains(msgs[0], "Checked 200 runtimes") {
			b.Fatalf("got %.200q", msgs)
		}
	}
}

// BenchmarkSelect200 is the same decision through `evaluate select`'s
// selector (Rego, with the Go builtins).
func BenchmarkSelect200(b *testing.B) {
	for _, name := range []string{engine.CEL, engine.Rego} {
		b.Run(name, func(b *testing.B) {
			isvc, cluster := benchCluster(b)
			set, err := policyset.Embedded()
			if err != nil {
				b.Fatal(err)
			}
			s, err := engine.NewSelector(name, set)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				d, err := s.Select(isvc, cluster)
				if err != nil || d.Admitted {
					b.Fatal(err, d.Admitted)
				}
			}
		})
	}
}
