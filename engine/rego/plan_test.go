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

// runtime_accepts (match_plan.rego), the yes or no that selection asks
// first, is the rules' compatible for every pair, with and without
// accelerator classes, on clusters of several shapes (the many-valued one
// with fewer architectures, so that some pairs are compatible).
func TestRuntimeAcceptsIsTheVerdict(t *testing.T) {
	set, err := policyset.Embedded()
	require.NoError(t, err)
	qs, err := Queries(set, []string{"ome.match"},
		"[b | some r in input.runtimes; b := count({1 | data.ome.match.runtime_accepts(input.model, r, input.classes)}) == 1]",
		"[data.ome.match.runtime_verdict(input.model, r, input.classes).compatible | some r in input.runtimes]")
	require.NoError(t, err)
	eval := func(q rego.PreparedEvalQuery, input ast.Value) []any {
		rs, err := q.Eval(context.Background(), rego.EvalParsedInput(input))
		require.NoError(t, err)
		require.Len(t, rs, 1)
		return rs[0].Expressions[0].Value.([]any)
	}
	for _, shape := range []generate.Shape{generate.Few, generate.OME, {Name: "many-12", Architectures: 12, Versions: 150, Formats: 3}} {
		ms, rs := generate.ShapedCluster(5, 30, 120, shape)
		runtimes := make([]any, len(rs))
		for i, r := range rs {
			runtimes[i] = r["spec"]
		}
		runtimes = append(runtimes, map[string]any{}, map[string]any{"supportedModelFormats": []any{map[string]any{"modelArchitecture": "X"}}})
		compatible, incompatible := 0, 0
		for _, m := range ms {
			for _, classes := range [][]any{{}, {"A100"}} {
				input, err := ast.InterfaceToValue(map[string]any{"model": m["spec"], "runtimes": runtimes, "classes": classes})
				require.NoError(t, err)
				accepts, verdicts := eval(qs[0], input), eval(qs[1], input)
				require.Equal(t, verdicts, accepts, "%s: model %v, classes %v", shape.Name, m["metadata"], classes)
				for _, v := range accepts {
					if v == true {
						compatible++
					} else {
						incompatible++
					}
				}
			}
		}
		require.Positive(t, compatible, "%s: some pairs are compatible", shape.Name)
		require.Positive(t, incompatible, "%s: some pairs are not", shape.Name)
	}
}
