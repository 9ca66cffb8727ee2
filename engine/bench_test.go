package engine

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ome-policy/evaluator/bench/reference"
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
			var m Matcher = refMatcher{}
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

// BenchmarkVersionDecision is one decision of spec 4.1 (entry 4.46.0
// GreaterThanOrEqual, model 4.45.0) as each engine makes it: the CEL
// entry policy's frameworkVersionDifference variable, the Rego policy's
// version_accepted, and plain Go on the builtins.
func BenchmarkVersionDecision(b *testing.B) {
	model := map[string]any{"modelFramework": map[string]any{"name": "transformers", "version": "4.45.0"}}
	entry := map[string]any{"modelFramework": map[string]any{"name": "transformers", "version": "4.46.0", "operator": "GreaterThanOrEqual"}}
	set := testPolicies(b)
	b.Run(CEL, func(b *testing.B) {
		ps, err := compileCELPolicies(set)
		require.NoError(b, err)
		p := ps.byName["entry"]
		b.ReportAllocs()
		for b.Loop() {
			act := p.activation(map[string]any{"model": model, "entry": entry})
			v, err := act.variable("frameworkVersionDifference")
			if err != nil || v == nil {
				b.Fatal(err)
			}
		}
	})
	b.Run(Rego, func(b *testing.B) {
		pqs, err := prepareRego(set, []string{"ome.match"}, `data.ome.match.version_accepted("GreaterThanOrEqual", "4.46.0", "4.45.0")`)
		require.NoError(b, err)
		pq := pqs[0]
		b.ReportAllocs()
		for b.Loop() {
			rs, err := pq.Eval(context.Background())
			if err != nil || len(rs) != 1 {
				b.Fatal(err, rs)
			}
		}
	})
	b.Run("reference", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if !reference.VersionOK("GreaterThanOrEqual", "4.46.0", "4.45.0") {
				b.Fatal("want accepted")
			}
		}
	})
}

// BenchmarkCatalogMatrix matches every model made from OME's Hugging Face
// configs against OME's whole runtime catalog (66 x 207 = 13,662 pairs), per
// engine; ns/pair is the cost of one pair.
func BenchmarkCatalogMatrix(b *testing.B) {
	models, err := Load([]string{"../testdata/catalog/models"}, LoadOptions{ModelFolders: true})
	require.NoError(b, err)
	runtimes, err := Load([]string{"../testdata/catalog/runtimes"}, LoadOptions{})
	require.NoError(b, err)
	pairs := len(models) * len(runtimes)
	for _, name := range []string{CEL, Rego, "reference"} {
		b.Run(name, func(b *testing.B) {
			var m Matcher = refMatcher{}
			if name != "reference" {
				m, err = New(name, testPolicies(b))
				require.NoError(b, err)
			}
			b.ReportAllocs()
			for b.Loop() {
				n := 0
				err := MatchObjects(m, models, runtimes, func(Result) error { n++; return nil })
				if err != nil || n != pairs {
					b.Fatal(err, n)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*pairs), "ns/pair")
		})
	}
}
