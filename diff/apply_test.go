package diff

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ome-policy/evaluator/objects"
)

// TestApply: the files replace the cluster's objects of the same
// kind, namespace and name in place, with their creationTimestamp; new
// ones are created now.
func TestApply(t *testing.T) {
	obj := func(kind, ns, name, ts string) *objects.Object {
		meta := map[string]any{"name": name}
		if ts != "" {
			meta["creationTimestamp"] = ts
		}
		return &objects.Object{Kind: kind, Namespace: ns, Name: name, Value: map[string]any{"metadata": meta}}
	}
	cluster := []*objects.Object{obj("ClusterServingRuntime", "", "a", "2025-01-01T00:00:00Z"), obj("ServingRuntime", "x", "b", "2025-02-01T00:00:00Z")}
	files := []*objects.Object{obj("ServingRuntime", "y", "b", ""), obj("ClusterServingRuntime", "", "a", "")}
	now := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	got := Apply(cluster, files, now)
	require.Len(t, got, 3)
	require.Equal(t, "a", got[0].Name)
	require.Equal(t, "2025-01-01T00:00:00Z", got[0].Value["metadata"].(map[string]any)["creationTimestamp"])
	require.Same(t, cluster[1], got[1])
	require.Equal(t, "y", got[2].Namespace)
	require.Equal(t, "2026-03-04T05:06:07Z", got[2].Value["metadata"].(map[string]any)["creationTimestamp"])
	require.NotContains(t, files[0].Value["metadata"], "creationTimestamp", "the file's object is not changed")
}
