package cel

import (
	"context"
	"testing"

	"github.com/ome-policy/evaluator/engine/rego"
	"github.com/ome-policy/evaluator/internal/reference"
	"github.com/stretchr/testify/require"
)

// BenchmarkVersionDecision is one decision of spec 4.1 (entry 4.46.0
// GreaterThanOrEqual, model 4.45.0) as each engine makes it: the CEL
// entry policy's frameworkVersionDifference variable, the Rego policy's
// version_accepted, and plain Go on the builtins.
func BenchmarkVersionDecision(b *testing.B) {
	model := map[string]any{"modelFramework": map[string]any{"name": "transformers", "version": "4.45.0"}}
	entry := map[string]any{"modelFramework": map[string]any{"name": "transformers", "version": "4.46.0", "operator": "GreaterThanOrEqual"}}
	set := testPolicies(b)
	b.Run(Name, func(b *testing.B) {
		ps, err := compileAllPolicies(set)
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
	b.Run(rego.Name, func(b *testing.B) {
		pqs, err := rego.Queries(set, []string{"ome.match"}, `data.ome.match.version_accepted("GreaterThanOrEqual", "4.46.0", "4.45.0")`)
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
