package output

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/results"
)

func TestSelectCSV(t *testing.T) {
	var b bytes.Buffer
	w, err := NewSelectWriter("csv", &b, "v1.2.2")
	require.NoError(t, err)
	rt := engine.Ref{Kind: "ClusterServingRuntime", Name: "vllm"}
	require.NoError(t, w.Write([]results.SelectResult{
		{InferenceService: engine.Ref{Kind: "InferenceService", Namespace: "a", Name: "chat"}, Decision: engine.Decision{Admitted: true, Selected: &rt}},
		{InferenceService: engine.Ref{Kind: "InferenceService", Namespace: "a", Name: "gone"}, Decision: engine.Decision{Message: `model "x", not found`}},
	}, nil))
	require.Equal(t, "namespace,name,admitted,runtime,message\na,chat,true,ClusterServingRuntime vllm,\na,gone,false,,\"model \"\"x\"\", not found\"\n", b.String())
}
