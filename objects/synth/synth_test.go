package synth

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"
)

// distinct counts the distinct values each shape knob governs, over the
// models and the runtimes' entries.
func distinct(ms, rs []map[string]any) (archs, versions, formats int) {
	a, v, f := map[any]bool{}, map[any]bool{}, map[any]bool{}
	add := func(spec map[string]any) {
		a[spec["modelArchitecture"]] = true
		v[spec["modelFramework"].(map[string]any)["version"]] = true
		f[spec["modelFormat"].(map[string]any)["name"]] = true
	}
	for _, m := range ms {
		add(m["spec"].(map[string]any))
	}
	for _, r := range rs {
		for _, e := range r["spec"].(map[string]any)["supportedModelFormats"].([]any) {
			add(e.(map[string]any))
		}
	}
	return len(a), len(v), len(f)
}

func TestShapes(t *testing.T) {
	for _, tc := range []struct {
		shape                    Shape
		archs, versions, formats int
	}{
		{Few, 3, 4, 1},
		{OME, 30, 16, 2},
		{Many, 400, 600, 6},
		{Shape{Name: "custom", Architectures: 12, Versions: 150, Formats: 1}, 12, 150, 1},
	} {
		t.Run(tc.shape.Name, func(t *testing.T) {
			ms, rs := ShapedCluster(1, 300, 700, tc.shape)
			require.Len(t, ms, 300)
			require.Len(t, rs, 700)
			// Random draws reach (nearly) every value of the shape, and no other.
			a, v, f := distinct(ms, rs)
			for _, c := range []struct {
				what      string
				got, want int
			}{{"architectures", a, tc.archs}, {"versions", v, tc.versions}, {"formats", f, tc.formats}} {
				require.LessOrEqual(t, c.got, c.want, c.what)
				require.GreaterOrEqual(t, c.got, c.want*9/10, c.what)
			}
			again, _ := ShapedCluster(1, 300, 700, tc.shape)
			require.True(t, reflect.DeepEqual(ms, again), "the same seed gives the same cluster")
		})
	}
	// Cluster is the OME shape.
	ms, rs := Cluster(3, 20, 40)
	ms2, rs2 := ShapedCluster(3, 20, 40, OME)
	require.Equal(t, ms, ms2)
	require.Equal(t, rs, rs2)
}
