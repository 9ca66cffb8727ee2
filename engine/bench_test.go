package engine

import (
	"testing"

	"github.com/stretchr/testify/require"
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
