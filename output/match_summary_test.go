package output

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/results"
)

// TestMatchSummaryStreams: each model's line is written when the model
// is, before the next one and the summary, so what is held is one model's
// results.
func TestMatchSummaryStreams(t *testing.T) {
	var out bytes.Buffer
	w, err := NewMatchWriter("summary", &out)
	require.NoError(t, err)
	sw, ok := w.(results.SelectionWriter)
	require.True(t, ok, "-o summary shows what selection chooses")
	require.NoError(t, w.Begin([]*objects.Object{{Kind: "ClusterBaseModel", Name: "m"}, {Kind: "ClusterBaseModel", Name: "n"}}, nil))
	model := engine.Ref{Kind: "ClusterBaseModel", Name: "m"}
	rt := engine.Ref{Kind: "ClusterServingRuntime", Name: "rt"}
	rs := []engine.Result{{Model: model, Runtime: rt, Verdict: engine.Verdict{Compatible: true}}}
	require.NoError(t, sw.ModelSelected(model, rs, &rt))
	require.Equal(t, "MODEL               COMPATIBLE  SELECTED\nClusterBaseModel m  1/1         ClusterServingRuntime rt\n", out.String())
	require.NoError(t, sw.ModelSelected(engine.Ref{Kind: "ClusterBaseModel", Name: "n"}, nil, nil))
	require.Contains(t, out.String(), "ClusterBaseModel n  0/0         none\n")
	require.NoError(t, w.End(results.MatchSummary{}))
	require.Contains(t, out.String(), "\n2 model(s), 1 with no compatible runtime\n")
}
