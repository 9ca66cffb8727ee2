package rego

import (
	"github.com/ome-policy/evaluator/input"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ome-policy/evaluator/objects/synth"
	"github.com/ome-policy/evaluator/policies/policyset"
)

// BenchmarkPrepare is the batch of OME's runtime catalog (207 runtimes) and
// of 700 generated runtimes of each shape: what a Rego run of evaluate
// match computes once, on one core, before any model is matched.
func BenchmarkPrepare(b *testing.B) {
	set, err := policyset.Embedded()
	require.NoError(b, err)
	m, err := New(set)
	require.NoError(b, err)
	catalog, err := input.Load([]string{"../../testdata/catalog/runtimes"}, input.LoadOptions{})
	require.NoError(b, err)
	type runtimeSet struct {
		name  string
		specs []map[string]any
	}
	sets := []runtimeSet{{name: "catalog"}}
	for _, r := range catalog {
		sets[0].specs = append(sets[0].specs, r.Spec())
	}
	for _, shape := range synth.Shapes {
		_, rs := synth.ShapedCluster(1, 1, 700, shape)
		set := runtimeSet{name: shape.Name}
		for _, r := range rs {
			set.specs = append(set.specs, r["spec"].(map[string]any))
		}
		sets = append(sets, set)
	}
	for _, set := range sets {
		b.Run(set.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := m.Prepare(set.specs); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
