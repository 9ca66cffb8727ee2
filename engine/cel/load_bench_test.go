package cel

import (
	"testing"

	"github.com/ome-policy/evaluator/objects/synth"
)

// BenchmarkStartUp is what a fresh process of `evaluate match` spends on
// the CEL policies for one pair, side by side: from the embedded
// precompiled file (read afresh each time), and compiled from their text.
func BenchmarkStartUp(b *testing.B) {
	set := testPolicies(b)
	ms, rs := synth.Cluster(1, 1, 1)
	for _, bc := range []struct {
		name string
		load func() (*precompiledCache, error)
	}{
		{"precompiled", func() (*precompiledCache, error) { return decodePrecompiled(precompiledFile) }},
		{"text", func() (*precompiledCache, error) { return nil, nil }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				cache, err := bc.load()
				if err != nil {
					b.Fatal(err)
				}
				ps, err := compileWith(cache, set, "entry", "runtime")
				if err != nil {
					b.Fatal(err)
				}
				if _, err := ps.matcher.Match(ms[0], rs[0]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
