package rego

import (
	"context"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/stretchr/testify/require"

	"github.com/ome-policy/evaluator/bench/generate"
	"github.com/ome-policy/evaluator/engine/policyset"
)

// The evaluation plan (match_plan.rego's results) gives, for every runtime,
// what the rules give for the pair (match.rego's runtime_result): the plan
// only decides how to evaluate, never what.
func TestPlanGivesWhatTheRulesGive(t *testing.T) {
	set, err := policyset.Embedded()
	require.NoError(t, err)
	qs, err := Queries(set, []string{"ome.match"}, ResultsQuery,
		"[data.ome.match.runtime_result(input.model, r) | some r in input.runtimes]")
	require.NoError(t, err)
	eval := func(q rego.PreparedEvalQuery, input ast.Value) any {
		rs, err := q.Eval(context.Background(), rego.EvalParsedInput(input))
		require.NoError(t, err)
		require.Len(t, rs, 1)
		return rs[0].Expressions[0].Value
	}
	ms, rs := generate.Cluster(11, 40, 150)
	runtimes := make([]any, len(rs))
	for i, r := range rs {
		runtimes[i] = r["spec"]
	}
	// A runtime without entries, and one whose only entry has no format.
	runtimes = append(runtimes, map[string]any{}, map[string]any{"supportedModelFormats": []any{map[string]any{"modelArchitecture": "X"}}})
	compatible := 0
	for _, m := range ms {
		input, err := ast.InterfaceToValue(map[string]any{"model": m["spec"], "runtimes": runtimes})
		require.NoError(t, err)
		plan, rules := eval(qs[0], input), eval(qs[1], input)
		require.Equal(t, rules, plan, "model %v", m["metadata"])
		for _, v := range plan.([]any) {
			if v.(map[string]any)["compatible"] == true {
				compatible++
			}
		}
	}
	require.Positive(t, compatible, "some pairs are compatible")
}
