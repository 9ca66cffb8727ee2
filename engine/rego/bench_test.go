package rego

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ome-policy/evaluator/bench/generate"
	"github.com/ome-policy/evaluator/engine/policyset"
	"github.com/ome-policy/evaluator/objects"
)

// BenchmarkPrepare is the batch of OME's runtime catalog (207 runtimes) and
// of 700 generated runtimes of each shape: what a Rego run of evaluate
// match computes once, on one core, before any model is matched.
func BenchmarkPrepare(b *testing.B) {
	set, err := policyset.Embedded()
	require.NoError(b, err)
	m, err := New(set)
	require.NoError(b, err)
	catalog, err := objects.Load([]string{"../../testdata/catalog/runtimes"}, objects.LoadOptions{})
	require.NoError(b, err)
	var specs [][]map[string]any
	names := []string{"catalog"}
	specs = append(specs, nil)
	for _, r := range catalog {
		specs[0] = append(specs[0], r.Spec())
	}
	for _, shape := range generate.Shapes {
		_, rs := generate.ShapedCluster(1, 1, 700, shape)
		var s []map[string]any
		for _, r := range rs {
			s = append(s, r["spec"].(map[string]any))
		}
		names, specs = append(names, shape.Name), append(specs, s)
	}
	for i, name := range names {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := m.Prepare(specs[i]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
