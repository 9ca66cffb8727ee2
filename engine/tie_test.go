package engine

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ome-policy/evaluator/objects"
)

// tieCluster is a model and two ClusterServingRuntimes that accept it with
// one score, the second of a higher priority on an entry that does not
// accept it; the model's size and the runtimes' ranges as given.
func tieCluster(size string, skipFiles bool, ranges ...map[string]any) []*objects.Object {
	entry := func(extra map[string]any) map[string]any {
		e := map[string]any{
			"modelFormat":    map[string]any{"name": "safetensors", "version": "1.0.0"},
			"modelFramework": map[string]any{"name": "transformers", "version": "4.46.0"},
			"autoSelect":     true,
		}
		for k, v := range extra {
			e[k] = v
		}
		return e
	}
	spec := map[string]any{
		"modelFormat":    map[string]any{"name": "safetensors", "version": "1.0.0"},
		"modelFramework": map[string]any{"name": "transformers", "version": "4.46.0"},
	}
	if size != "" {
		spec["modelParameterSize"] = size
	}
	meta := map[string]any{"name": "llama"}
	if skipFiles {
		meta["annotations"] = map[string]any{"ome.oracle.com/skip-config-parsing": "true"}
	}
	objs := []*objects.Object{{Kind: objects.KindClusterBaseModel, Name: "llama", Value: map[string]any{
		"apiVersion": "ome.io/v1beta1", "kind": objects.KindClusterBaseModel, "metadata": meta, "spec": spec}}}
	for i, name := range []string{"vllm", "sglang"} {
		rspec := map[string]any{"supportedModelFormats": []any{entry(nil)}}
		if i == 1 {
			rspec["supportedModelFormats"] = []any{entry(nil), entry(map[string]any{
				"modelFormat": map[string]any{"name": "onnx"}, "priority": int64(4)})}
		}
		if ranges[i] != nil {
			rspec["modelSizeRange"] = ranges[i]
		}
		objs = append(objs, &objects.Object{Kind: objects.KindClusterServingRuntime, Name: name, Value: map[string]any{
			"apiVersion": "ome.io/v1beta1", "kind": objects.KindClusterServingRuntime,
			"metadata": map[string]any{"name": name}, "spec": rspec}})
	}
	return objs
}

// Select names the runtimes that tie with the one it selects on all but
// the name, with a priority that breaks the tie, on every engine; and
// none where the model's size, which OME reads from its files, may break
// it. Explain's TieFinder says the same of each runtime.
func TestSelectNamesATie(t *testing.T) {
	r19 := map[string]any{"min": "1B", "max": "9B"}
	r210 := map[string]any{"min": "2B", "max": "10B"}
	isvc := &objects.Object{Kind: objects.KindInferenceService, Namespace: "team-a", Name: "chat", Value: map[string]any{
		"apiVersion": "ome.io/v1beta1", "kind": objects.KindInferenceService,
		"metadata": map[string]any{"name": "chat", "namespace": "team-a"},
		"spec":     map[string]any{"model": map[string]any{"name": "llama"}, "engine": map[string]any{}},
	}}
	vllm := Ref{Kind: objects.KindClusterServingRuntime, Name: "vllm"}
	sglang := Ref{Kind: objects.KindClusterServingRuntime, Name: "sglang"}
	for _, tc := range []struct {
		name      string
		size      string
		skipFiles bool
		ranges    []map[string]any
		tied      bool
	}{
		{"one distance from a size", "8B", false, []map[string]any{r19, r210}, true},
		{"no size and one range", "", false, []map[string]any{r19, r19}, true},
		{"no size and no range", "", false, []map[string]any{nil, nil}, true},
		{"no size, other ranges, and OME reads a size from the files", "", false, []map[string]any{r19, r210}, false},
		{"no size, other ranges, and OME reads no files", "", true, []map[string]any{r19, r210}, true},
		{"a range that fits more closely", "8B", false, []map[string]any{{"min": "7B", "max": "9B"}, r210}, false},
	} {
		for _, name := range Names {
			s, err := NewSelector(name, testPolicies(t))
			require.NoError(t, err)
			cluster := tieCluster(tc.size, tc.skipFiles, tc.ranges...)
			d, err := s.Select(isvc, cluster)
			require.NoError(t, err, "%s: %s", tc.name, name)
			require.True(t, d.Admitted, "%s: %s", tc.name, name)
			tf := NewTieFinder(s, cluster)
			tie, err := tf.Tie(Ref{Kind: objects.KindClusterBaseModel, Name: "llama"}, vllm)
			require.NoError(t, err)
			if !tc.tied {
				require.Empty(t, d.TiedWith, "%s: %s", tc.name, name)
				require.Zero(t, d.TiePriority, "%s: %s", tc.name, name)
				require.Nil(t, tie, "%s: %s", tc.name, name)
				continue
			}
			require.Equal(t, sglang, *d.Selected, "%s: %s", tc.name, name)
			require.Equal(t, []Ref{vllm}, d.TiedWith, "%s: %s", tc.name, name)
			require.Equal(t, 5, d.TiePriority, "%s: %s: one more than the priority 4 of sglang's other entry", tc.name, name)
			require.Equal(t, &Tie{Selected: sglang, TiedWith: []Ref{sglang}, Score: 2, Priority: 5}, tie, "%s: %s", tc.name, name)
		}
	}
}
