package engine

import (
	"github.com/ome-policy/evaluator/input"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ome-policy/evaluator/internal/reference/oracle"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/objects/synth"
)

var benchModel = map[string]any{
	"modelFormat":       map[string]any{"name": "safetensors", "version": "1.0.0"},
	"modelFramework":    map[string]any{"name": "transformers", "version": "4.45.0.dev0"},
	"modelArchitecture": "LlamaForCausalLM",
}

var benchRuntime = map[string]any{
	"supportedModelFormats": []any{
		map[string]any{
			"modelFormat":       map[string]any{"name": "safetensors", "version": "1.0.0"},
			"modelFramework":    map[string]any{"name": "transformers", "version": "4.46.0", "operator": "GreaterThanOrEqual"},
			"modelArchitecture": "LlamaForCausalLM",
		},
	},
}

// BenchmarkEntryMatch is one model against a one-entry runtime: the cost of
// one pair, per engine.
func BenchmarkEntryMatch(b *testing.B) {
	for _, name := range []string{CEL, Rego, "reference"} {
		b.Run(name, func(b *testing.B) {
			var m Matcher = oracle.Matcher{}
			if name != "reference" {
				var err error
				m, err = New(name, testPolicies(b))
				require.NoError(b, err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := m.Match(benchModel, benchRuntime); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCatalogMatrix matches every model made from OME's Hugging Face
// configs against OME's whole runtime catalog (66 x 207 = 13,662 pairs), per
// engine; ns/pair is the cost of one pair.
func BenchmarkCatalogMatrix(b *testing.B) {
	models, err := input.Load([]string{"../testdata/catalog/models"}, input.LoadOptions{ModelFolders: true})
	require.NoError(b, err)
	runtimes, err := input.Load([]string{"../testdata/catalog/runtimes"}, input.LoadOptions{})
	require.NoError(b, err)
	benchMatrix(b, "", models, runtimes)
}

// BenchmarkShapedMatrix matches 20 models against 700 runtimes of each
// shape of evaluate generate (few, ome, many), per engine, beside the
// reference rules in plain Go: the engines' batch path (what depends on the
// runtimes prepared once, each model evaluated against all of them) on
// clusters whose memos serve more or less. ns/pair is the cost of one pair.
func BenchmarkShapedMatrix(b *testing.B) {
	for _, shape := range synth.Shapes {
		ms, rs := synth.ShapedCluster(1, 20, 700, shape)
		benchMatrix(b, shape.Name+"/", generatedObjects(ms), generatedObjects(rs))
	}
}

// benchMatrix runs, per engine and for the reference rules (sub-benchmarks
// prefix+name), every model against every runtime, and reports ns/pair.
func benchMatrix(b *testing.B, prefix string, models, runtimes []*objects.Object) {
	pairs := len(models) * len(runtimes)
	for _, name := range []string{CEL, Rego, "reference"} {
		b.Run(prefix+name, func(b *testing.B) {
			var m Matcher = oracle.Matcher{}
			if name != "reference" {
				var err error
				m, err = New(name, testPolicies(b))
				require.NoError(b, err)
			}
			b.ReportAllocs()
			for b.Loop() {
				n := 0
				_, err := MatchObjects(m, models, runtimes, func(_ *objects.Object, rs []Result) error { n += len(rs); return nil })
				if err != nil || n != pairs {
					b.Fatal(err, n)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*pairs), "ns/pair")
		})
	}
}
