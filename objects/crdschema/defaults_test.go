package crdschema

import (
	"github.com/ome-policy/evaluator/input"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ome-policy/evaluator/objects"
)

// TestWithDefaults: what OME's CRDs default is filled in where it is
// missing, what is set stays, and the object read is not changed.
func TestWithDefaults(t *testing.T) {
	in := &input.Result{}
	in.ReadData("rt.yaml", []byte(`apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata:
  name: rt
spec:
  supportedModelFormats:
    - modelFormat: {name: safetensors, version: "1.0.0"}
      modelFramework: {name: transformers, version: "4.45.0", operator: GreaterThan, weight: 3}
  containers:
    - name: c
      ports: [{containerPort: 8080}]
`), input.ReadOptions{})
	require.Empty(t, in.Problems)
	o := in.Objects[0]
	d, err := WithDefaults(o, testRelease)
	require.NoError(t, err)
	entry := d.Spec()["supportedModelFormats"].([]any)[0].(map[string]any)
	require.Equal(t, map[string]any{"name": "safetensors", "version": "1.0.0", "operator": "Equal", "weight": int64(1)}, entry["modelFormat"])
	require.Equal(t, map[string]any{"name": "transformers", "version": "4.45.0", "operator": "GreaterThan", "weight": int64(3)}, entry["modelFramework"])
	port := d.Spec()["containers"].([]any)[0].(map[string]any)["ports"].([]any)[0]
	require.Equal(t, map[string]any{"containerPort": int64(8080), "protocol": "TCP"}, port)
	// The object read is as it was.
	require.NotContains(t, o.Spec()["supportedModelFormats"].([]any)[0].(map[string]any)["modelFormat"], "operator")
	// Nothing missing: the same object.
	again, err := WithDefaults(d, testRelease)
	require.NoError(t, err)
	require.Same(t, d, again)
	// A kind without a CRD: the same object.
	other := &objects.Object{Kind: "Other", Value: map[string]any{}}
	got, err := WithDefaults(other, testRelease)
	require.NoError(t, err)
	require.Same(t, other, got)
}
