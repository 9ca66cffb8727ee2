package admission

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/ome-policy/evaluator/cases"
	regoengine "github.com/ome-policy/evaluator/engine/rego"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/objects/synth"
	"github.com/ome-policy/evaluator/policies/policyset"
)

// planSpecs are model and runtime specs to hold selection's plan to the
// rules with: every model and runtime of testdata/cases, generated ones of
// three shapes, and a few the others lack (diffusion pipelines, entries
// without a format or architecture, a runtime without entries).
func planSpecs(t *testing.T) (models, runtimes []any) {
	t.Helper()
	// Of the cases' models one in eight, of their runtimes one in three
	// (they are many, and alike).
	var caseModels, caseRuntimes []any
	seen := map[string]bool{}
	add := func(list *[]any, spec any) {
		b, err := json.Marshal(spec)
		if err != nil {
			t.Fatal(err)
		}
		if spec == nil || seen[string(b)] {
			return
		}
		seen[string(b)] = true
		*list = append(*list, spec)
	}
	addObject := func(o *objects.Object) {
		if o == nil {
			return
		}
		switch o.Kind {
		case "BaseModel", "ClusterBaseModel":
			add(&caseModels, o.Value["spec"])
		case "ServingRuntime", "ClusterServingRuntime":
			add(&caseRuntimes, o.Value["spec"])
		}
	}
	paths, err := filepath.Glob(repoPath("testdata/cases/*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		cs, err := cases.ReadCases(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			addObject(c.Model)
			addObject(c.Runtime)
			for _, o := range c.Objects {
				addObject(o)
			}
		}
	}
	for i, m := range caseModels {
		if i%8 == 0 {
			models = append(models, m)
		}
	}
	for i, r := range caseRuntimes {
		if i%3 == 0 {
			runtimes = append(runtimes, r)
		}
	}
	for _, shape := range []synth.Shape{synth.Few, synth.OME, benchShape} {
		ms, rs := synth.ShapedCluster(13, 6, 60, shape)
		for _, m := range ms {
			add(&models, m["spec"])
		}
		for _, r := range rs {
			add(&runtimes, r["spec"])
		}
	}
	pipeline := map[string]any{"className": "FluxPipeline", "scheduler": map[string]any{"library": "diffusers", "type": "Euler"},
		"additionalComponents": map[string]any{"b": map[string]any{"library": "x"}, "a": map[string]any{"type": "y"}}}
	format := map[string]any{"name": "safetensors", "version": "1.0.0"}
	framework := map[string]any{"name": "diffusers", "version": "0.31.0", "operator": "GreaterThanOrEqual"}
	add(&models, map[string]any{"modelFormat": format, "modelFramework": framework, "diffusionPipeline": pipeline})
	add(&models, map[string]any{"modelFormat": format, "modelFramework": framework, "diffusionPipeline": map[string]any{"className": "Other"}})
	add(&models, map[string]any{"modelFormat": map[string]any{"name": "safetensors"}})
	for _, entries := range [][]any{
		{},
		{map[string]any{"modelArchitecture": "X"}},
		{map[string]any{"modelFramework": framework}},
		{map[string]any{"modelFormat": format, "modelFramework": framework, "diffusionPipeline": pipeline}},
		{map[string]any{"modelFormat": format, "diffusionPipeline": map[string]any{"className": "FluxPipeline", "vae": map[string]any{"library": "d"}}}},
		{map[string]any{"modelFormat": format, "quantization": "fp8", "modelArchitecture": "LlamaForCausalLM"}, map[string]any{"modelFormat": format}},
	} {
		add(&runtimes, map[string]any{"supportedModelFormats": entries})
		add(&runtimes, map[string]any{"supportedModelFormats": entries, "disabled": true})
		add(&runtimes, map[string]any{"supportedModelFormats": entries, "modelSizeRange": map[string]any{"min": "1B", "max": "7B"}})
	}
	add(&runtimes, map[string]any{})
	return models, runtimes
}

// TestExclusionReasonIsTheRules: the reason selection's plan gives an
// excluded runtime (select_plan.rego's exclusion_reason, put together from
// each check's text per distinct field value) is the rules' reason,
// match.runtime_reason of match.runtime_differences, for every pair of
// planSpecs' models and runtimes, with and without accelerator classes;
// and compatible is the rules' verdict.
func TestExclusionReasonIsTheRules(t *testing.T) {
	set, err := policyset.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	qs, err := regoengine.Queries(set, []string{"ome.select", "ome.match"},
		`[[data.ome.select.exclusion_reason({"spec": r}), data.ome.select.compatible({"spec": r})] | some r in input.runtimes]
			with data.ome.select.model_spec as input.model
			with data.ome.select.accelerator_classes as input.classes`,
		`[[data.ome.match.runtime_reason(input.model, r, input.classes, data.ome.match.runtime_differences(input.model, r)),
			data.ome.match.runtime_verdict(input.model, r, input.classes).compatible] | some r in input.runtimes]`)
	if err != nil {
		t.Fatal(err)
	}
	eval := func(q rego.PreparedEvalQuery, input ast.Value) []any {
		rs, err := q.Eval(context.Background(), rego.EvalParsedInput(input))
		if err != nil {
			t.Fatal(err)
		}
		if len(rs) != 1 {
			t.Fatalf("%d results", len(rs))
		}
		return rs[0].Expressions[0].Value.([]any)
	}
	models, runtimes := planSpecs(t)
	pairs, excluded, compatible := 0, 0, 0
	for _, m := range models {
		for _, classes := range [][]any{{}, {"nvidia-a100"}} {
			input, err := ast.InterfaceToValue(map[string]any{"model": m, "runtimes": runtimes, "classes": classes})
			if err != nil {
				t.Fatal(err)
			}
			plan, rules := eval(qs[0], input), eval(qs[1], input)
			for i := range rules {
				pairs++
				p, r := plan[i].([]any), rules[i].([]any)
				if p[0] != r[0] || p[1] != r[1] {
					a, _ := json.Marshal(m)
					b, _ := json.Marshal(runtimes[i])
					t.Fatalf("model %s, runtime %s, classes %v:\n  plan:  %q %v\n  rules: %q %v", a, b, classes, p[0], p[1], r[0], r[1])
				}
				if r[1] == true {
					compatible++
				} else {
					excluded++
				}
			}
		}
	}
	if compatible == 0 || excluded == 0 {
		t.Errorf("%d compatible and %d excluded pairs: both kinds are needed", compatible, excluded)
	}
	t.Logf("%d models, %d runtimes: %d pairs, %d compatible", len(models), len(runtimes), pairs, compatible)
}
