package crdschema

import (
	"github.com/ome-policy/evaluator/input"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ome-policy/evaluator/objects"
)

// The fields a release's CRD lacks, from the CRDs: v0.1.5 and v0.1.4 have
// no runtime revision pin, v0.1.4 no diffusionPipeline (on a model and on
// each entry), and v0.1.5 and v1.2.2 no minComputeCapability, which
// v0.1.4 has.
func TestLackedFields(t *testing.T) {
	load := func(doc string) *objects.Object {
		objs, err := input.LoadData("test.yaml", []byte(doc), input.LoadOptions{Lenient: true})
		require.NoError(t, err)
		require.Len(t, objs, 1)
		return objs[0]
	}
	isvc := load("apiVersion: ome.io/v1beta1\nkind: InferenceService\nmetadata: {name: s, namespace: a}\nspec:\n  model: {name: m}\n  runtime: {name: r, revision: cr-r-0123abcd, autoSync: false}\n")
	runtime := load("apiVersion: ome.io/v1beta1\nkind: ClusterServingRuntime\nmetadata: {name: r}\nspec:\n" +
		"  acceleratorRequirements: {minComputeCapability: 8}\n" +
		"  supportedModelFormats:\n  - modelFormat: {name: diffusers}\n    modelFramework: {name: diffusers}\n  - modelFormat: {name: diffusers}\n    modelFramework: {name: diffusers}\n    diffusionPipeline: {className: FluxPipeline}\n")
	for _, c := range []struct {
		release string
		o       *objects.Object
		want    []string // field: message
	}{
		{"v1.2.2", isvc, nil},
		{"v0.1.5", isvc, []string{
			"spec.runtime.autoSync: OME v0.1.5's InferenceService CRD has no spec.runtime.autoSync (OME v1.2.2's has): the API server drops the field on apply, so OME never reads it. Remove it, or upgrade OME to v1.2.2.",
			"spec.runtime.revision: OME v0.1.5's InferenceService CRD has no spec.runtime.revision (OME v1.2.2's has): the API server drops the field on apply, so OME never reads it. Remove it, or upgrade OME to v1.2.2.",
		}},
		{"v0.1.4", isvc, []string{
			"spec.runtime.autoSync: OME v0.1.4's InferenceService CRD has no spec.runtime.autoSync (OME v1.2.2's has): the API server drops the field on apply, so OME never reads it. Remove it, or upgrade OME to v1.2.2.",
			"spec.runtime.revision: OME v0.1.4's InferenceService CRD has no spec.runtime.revision (OME v1.2.2's has): the API server drops the field on apply, so OME never reads it. Remove it, or upgrade OME to v1.2.2.",
		}},
		{"v1.2.2", runtime, []string{
			"spec.acceleratorRequirements.minComputeCapability: OME v1.2.2's ClusterServingRuntime CRD has no spec.acceleratorRequirements.minComputeCapability (OME v0.1.4's has): the API server drops the field on apply, so OME never reads it. Remove it.",
		}},
		{"v0.1.4", runtime, []string{
			"spec.supportedModelFormats[1].diffusionPipeline: OME v0.1.4's ClusterServingRuntime CRD has no spec.supportedModelFormats[1].diffusionPipeline (OME v1.2.2's and v0.1.5's have): the API server drops the field on apply, so OME never reads it. Remove it, or upgrade OME to v0.1.5 or later.",
		}},
	} {
		t.Run(c.release+"/"+c.o.Kind, func(t *testing.T) {
			lacked, err := LackedFields(c.o, c.release)
			require.NoError(t, err)
			var got []string
			for _, l := range lacked {
				got = append(got, l.Field+": "+l.Message())
			}
			require.Equal(t, c.want, got)

			// Pruned drops exactly these, and leaves o as it is.
			p, again, err := Pruned(c.o, c.release)
			require.NoError(t, err)
			require.Equal(t, lacked, again)
			if len(lacked) == 0 {
				require.Same(t, c.o, p)
				return
			}
			left, err := LackedFields(p, c.release)
			require.NoError(t, err)
			require.Empty(t, left)
			require.NotEqual(t, c.o.Value, p.Value)
			still, err := LackedFields(c.o, c.release)
			require.NoError(t, err)
			require.Equal(t, lacked, still, "o is left as it is")
		})
	}
	_, err := LackedFields(isvc, "v9.9.9")
	require.EqualError(t, err, `no CRDs of OME release "v9.9.9"`)
	// A model made from a folder is not a document: nothing is dropped.
	lacked, err := LackedFields(&objects.Object{Kind: objects.KindClusterBaseModel, FromFolder: true, Value: map[string]any{"spec": map[string]any{"diffusionPipeline": map[string]any{}}}}, "v0.1.4")
	require.NoError(t, err)
	require.Empty(t, lacked)
}

// Pruned keeps everything else: the other entries, their other fields, and
// the runtime's name.
func TestPrunedKeepsTheRest(t *testing.T) {
	objs, err := input.LoadData("r.yaml", []byte("apiVersion: ome.io/v1beta1\nkind: ClusterServingRuntime\nmetadata: {name: r}\nspec:\n  supportedModelFormats:\n  - modelFormat: {name: diffusers}\n    modelFramework: {name: diffusers}\n    diffusionPipeline: {className: FluxPipeline}\n    autoSelect: true\n"), input.LoadOptions{Lenient: true})
	require.NoError(t, err)
	p, _, err := Pruned(objs[0], "v0.1.4")
	require.NoError(t, err)
	require.Equal(t, map[string]any{
		"supportedModelFormats": []any{map[string]any{
			"modelFormat": map[string]any{"name": "diffusers"}, "modelFramework": map[string]any{"name": "diffusers"}, "autoSelect": true,
		}},
	}, p.Value["spec"])
	require.Equal(t, "r", p.Name)
}

// The lists of lacking fields: the outermost field lacked, not each one
// below it; "[]" and "{}" for a list's items and a map's values.
func TestSplitSchemaPath(t *testing.T) {
	require.Equal(t, []string{"spec", "supportedModelFormats", "[]", "diffusionPipeline"}, splitSchemaPath("spec.supportedModelFormats[].diffusionPipeline"))
	require.Equal(t, []string{"spec", "a", "{}", "[]", "b"}, splitSchemaPath("spec.a{}[].b"))
	table, err := lackingTable("v0.1.4")
	require.NoError(t, err)
	for _, lf := range table[objects.KindClusterBaseModel] {
		require.NotEqual(t, []string{"spec", "diffusionPipeline", "className"}, lf.steps, "under spec.diffusionPipeline, which is lacked too")
	}
}
