package rego

import (
	"context"
	"maps"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/stretchr/testify/require"

	"github.com/ome-policy/evaluator/objects/synth"
	"github.com/ome-policy/evaluator/policies/policyset"
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
	ms, rs := synth.Cluster(11, 40, 150)
	runtimes := make([]any, len(rs))
	for i, r := range rs {
		runtimes[i] = r["spec"]
	}
	// A runtime without entries, and one whose only entry has no format.
	runtimes = append(runtimes, map[string]any{}, map[string]any{"supportedModelFormats": []any{map[string]any{"modelArchitecture": "X"}}})
	// Entries whose framework the tables take apart from the others (the
	// framework table asks version_difference itself for a framework of
	// the model's name): of another name, without a name, with an empty
	// name, without a version, absent; and models whose framework is the
	// same. (A framework that is not an object is refused as input before
	// any policy sees it.)
	format := map[string]any{"name": "safetensors"}
	frameworks := []any{
		map[string]any{"name": "other", "version": "4.0.0"},
		map[string]any{"version": "4.0.0"},
		map[string]any{"name": "", "version": "4.0.0", "operator": "GreaterThanOrEqual"},
		map[string]any{"name": "transformers"},
		nil,
	}
	for _, fw := range frameworks {
		e := map[string]any{"modelFormat": format}
		if fw != nil {
			e["modelFramework"] = fw
		}
		runtimes = append(runtimes, map[string]any{"supportedModelFormats": []any{e}})
	}
	// Two entries equal in Rego but written differently in JSON (a field
	// the checks do not read, an integer and a float of the same value):
	// the batch tells entries and values apart by their JSON text.
	for _, n := range []any{int64(100000000000000000), float64(1e17)} {
		runtimes = append(runtimes, map[string]any{"supportedModelFormats": []any{
			map[string]any{"modelFormat": map[string]any{"name": "safetensors", "note": n}, "modelFramework": frameworks[3]},
		}})
	}
	models := make([]any, 0, len(ms)+len(frameworks))
	for _, m := range ms {
		models = append(models, m["spec"])
	}
	for _, fw := range frameworks {
		m := map[string]any{"modelFormat": format}
		if fw != nil {
			m["modelFramework"] = fw
		}
		models = append(models, m)
	}
	compatible := 0
	for _, m := range models {
		input, err := ast.InterfaceToValue(map[string]any{"model": m, "runtimes": runtimes})
		require.NoError(t, err)
		plan, rules := eval(qs[0], input), eval(qs[1], input)
		require.Equal(t, rules, plan, "model %v", m)
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
	for _, shape := range []synth.Shape{synth.Few, synth.OME, {Name: "many-12", Architectures: 12, Versions: 150, Formats: 3}} {
		ms, rs := synth.ShapedCluster(5, 30, 120, shape)
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

// runtime_fields (match_plan.rego) names every field of a runtime's spec
// that the rules read: a runtime cut down to them gets the same verdict for
// every model and accelerator classes, and the same batch. Runtimes are
// given extra fields the rules must not read.
func TestRuntimeFieldsAreWhatTheRulesRead(t *testing.T) {
	set, err := policyset.Embedded()
	require.NoError(t, err)
	m, err := New(set)
	require.NoError(t, err)
	require.ElementsMatch(t, []string{"acceleratorRequirements", "disabled", "modelSizeRange", "supportedModelFormats"}, m.runtimeFields)
	qs, err := Queries(set, []string{"ome.match"},
		"[data.ome.match.runtime_verdict(input.model, r, input.classes) | some r in input.runtimes]",
		BatchQuery)
	require.NoError(t, err)
	eval := func(q rego.PreparedEvalQuery, input map[string]any) any {
		rs, err := q.Eval(context.Background(), rego.EvalInput(input))
		require.NoError(t, err)
		require.Len(t, rs, 1)
		return rs[0].Expressions[0].Value
	}
	gated := 0
	for _, shape := range []synth.Shape{synth.Few, synth.OME} {
		ms, rs := synth.ShapedCluster(3, 12, 150, shape)
		full := make([]any, len(rs))
		cut := make([]any, len(rs))
		for i, r := range rs {
			spec := maps.Clone(r["spec"].(map[string]any))
			spec["protocolVersions"] = []any{"openAI"}
			spec["containers"] = []any{map[string]any{"name": "ome-container", "image": "x"}}
			full[i] = spec
			cut[i] = only(spec, m.runtimeFields)
			if spec["disabled"] == true || spec["acceleratorRequirements"] != nil {
				gated++
			}
		}
		for _, mo := range ms {
			for _, classes := range []any{[]any{}, []any{"nvidia-h100"}} {
				in := map[string]any{"model": mo["spec"], "classes": classes}
				in["runtimes"] = full
				want := eval(qs[0], in)
				in["runtimes"] = cut
				require.Equal(t, want, eval(qs[0], in), "%s: model %v, classes %v", shape.Name, mo["metadata"], classes)
			}
		}
		require.Equal(t, eval(qs[1], map[string]any{"runtimes": full}), eval(qs[1], map[string]any{"runtimes": cut}), shape.Name)
	}
	require.Positive(t, gated, "some runtimes are disabled or need accelerator classes")
}
