package admission

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/ome-policy/evaluator/cases"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/objects/synth"
	"github.com/ome-policy/evaluator/policies/policyset"
)

// refusalPlanQuery asks OMERuntimeSelection's modules for the template's
// decision, the whole result of the rules with every runtime
// (select.admission with given.all_objects), the step selection stops at,
// and the model's key found among the models alone and as the rules find
// it with every object. Each is a list of its values: empty when
// undefined. (all is bound first: in a query, with ... as
// data.lib.ome.given.all_objects, the reference itself, hands the rules no
// model.)
const refusalPlanQuery = `all := data.lib.ome.given.all_objects
x := {
	"decision": [d | d := data.omeruntimeselection.decision],
	"rules": [d | d := data.lib.ome.select.admission with data.lib.ome.given.objects as all],
	"step": [s | s := data.lib.ome.select.step],
	"key": [k | k := data.lib.ome.select.model_key_of(data.lib.ome.inventory.models)],
	"rules_key": [k | k := [data.lib.ome.select.model_architecture, data.lib.ome.select.format_name] with data.lib.ome.given.objects as all],
}`

// TestRefusalPlanIsTheWholeResult: the template's decision, whichever of
// its plans gives it (selection's admission with the runtimes that can be
// compatible, lib.ome.refusal when selection refuses, the decision before
// selection), is the result select.rego gives with every runtime
// (select.admission) in all that the template reads of it (asRead): the
// verdict, the message, the runtime selected, the model, the runtimes
// checked, every excluded runtime with its reason, in order, and the
// warnings when the constraint validates the named runtime. It is held so
// on every selection case of testdata/cases (its inventory as the suites
// sync it, and its objects as they are), and on a generated cluster with
// ServingRuntimes of the namespace and of another, creation times,
// disabled runtimes, accelerator requirements, ClusterServingRuntimes
// synced under a namespace, InferenceServices with and without an
// accelerator class, and ones that name a runtime, which the constraint
// checks. The model's key that the template looks runtimes up by is the
// one the rules find.
func TestRefusalPlanIsTheWholeResult(t *testing.T) {
	set, err := policyset.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	g := templateQuery(t, templateOf(t, set, "omeruntimeselection"), refusalPlanQuery)
	type job struct {
		name   string
		isvc   map[string]any
		inv    []map[string]any
		params map[string]any
	}
	var jobs []job
	named, err := NamedRuntimeCaseFile()
	if err != nil {
		t.Fatal(err)
	}
	files := selectionCaseFiles(t, set.Release)
	files[namedRuntimeLabel] = cases.ForRelease(named, set.Release)
	for file, cs := range files {
		converted, err := SelectionCases(cs)
		if err != nil {
			t.Fatal(err)
		}
		params := map[string]any{"validateNamedRuntime": file == namedRuntimeLabel}
		for i, c := range cs {
			jobs = append(jobs,
				job{file + ": " + c.Name, converted[i].Object, converted[i].Inventory, params},
				job{file + ": " + c.Name + " (objects as they are)", converted[i].Object, values(c.Objects), params})
		}
	}
	ms, rts := synth.ShapedCluster(11, 12, 240, selectionShape)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, r := range rts {
		meta := r["metadata"].(map[string]any)
		if i%4 != 0 {
			meta["creationTimestamp"] = base.Add(time.Duration(i%9) * time.Hour).Format(time.RFC3339)
		}
		switch i % 5 {
		case 1:
			r["kind"] = objects.KindServingRuntime
			meta["namespace"] = "default"
		case 2:
			r["kind"] = objects.KindServingRuntime
			meta["namespace"] = "other"
		}
		if i%10 == 3 {
			// A ServingRuntime of the same name as a ClusterServingRuntime.
			rts[i-1]["metadata"].(map[string]any)["name"] = meta["name"]
		}
	}
	// ClusterServingRuntimes that say a namespace (synced under it) and
	// have the name, and no creation time, of one that does not: the
	// inventory's order settles theirs.
	for _, ns := range []string{"other", "default"} {
		twin := DeepCopy(rts[0])
		twin["metadata"].(map[string]any)["namespace"] = ns
		twin["spec"] = map[string]any{"supportedModelFormats": []any{map[string]any{"name": ns}}}
		rts = append(rts, twin)
	}
	// And a ClusterBaseModel so, of another spec: the rules take the first.
	twin := DeepCopy(ms[1])
	twin["metadata"].(map[string]any)["namespace"] = "default"
	twin["spec"] = map[string]any{"modelFormat": map[string]any{"name": "onnx"}}
	ms = append(ms, twin)
	ms = append(ms, map[string]any{"apiVersion": "ome.io/v1beta1", "kind": "ClusterBaseModel", "metadata": map[string]any{"name": "unmatched"},
		"spec": map[string]any{"modelFormat": map[string]any{"name": "safetensors"}, "modelArchitecture": "NoSuchArchitecture"}})
	ms = append(ms, map[string]any{"apiVersion": "ome.io/v1beta1", "kind": "ClusterBaseModel", "metadata": map[string]any{"name": "no-format"},
		"spec": map[string]any{"modelArchitecture": "LlamaForCausalLM"}})
	cluster := append(append([]map[string]any{}, ms...), rts...)
	for _, m := range ms {
		name := m["metadata"].(map[string]any)["name"].(string)
		for _, class := range []string{"", "nvidia-a100"} {
			isvc := DeepCopy(selectingInferenceService(name).Value)
			if class != "" {
				isvc["metadata"].(map[string]any)["annotations"] = map[string]any{"ome.io/accelerator-class": class}
			}
			jobs = append(jobs, job{fmt.Sprintf("generated: %s, class %q", name, class), isvc, cluster, nil})
		}
	}
	// InferenceServices that name a runtime, checked by the constraint: one
	// of the cluster, a ServingRuntime of the namespace that has the name
	// of a ClusterServingRuntime, one of another namespace, a disabled one,
	// one synced under two namespaces, and one that does not exist.
	runtimeNames := []string{"runtime-0000", "runtime-0003", "runtime-0007", "no-such-runtime"}
	for _, r := range rts {
		if r["spec"].(map[string]any)["disabled"] == true {
			runtimeNames = append(runtimeNames, r["metadata"].(map[string]any)["name"].(string))
			break
		}
	}
	for _, name := range []string{"model-0000", "model-0001", "no-format", "not-there"} {
		for _, runtime := range runtimeNames {
			isvc := DeepCopy(selectingInferenceService(name).Value)
			isvc["spec"].(map[string]any)["runtime"] = map[string]any{"name": runtime}
			jobs = append(jobs, job{fmt.Sprintf("generated: %s, runtime %s", name, runtime), isvc, cluster, map[string]any{"validateNamedRuntime": true}})
		}
	}
	steps := map[string]int{}
	warned := 0
	for _, j := range jobs {
		rs := g.eval(t, j.isvc, j.inv, j.params)
		if len(rs) != 1 {
			t.Fatalf("%s: %d results", j.name, len(rs))
		}
		got := rs[0].Bindings["x"].(map[string]any)
		decision, rules, step := got["decision"].([]any), got["rules"].([]any), got["step"].([]any)
		if len(decision) != 1 || len(rules) != 1 || len(step) != 1 {
			t.Fatalf("%s: decision %d, rules %d, step %d values", j.name, len(decision), len(rules), len(step))
		}
		steps[step[0].(string)]++
		strict := j.params["validateNamedRuntime"] == true
		if a, b := asRead(decision[0], strict), asRead(rules[0], strict); !reflect.DeepEqual(a, b) {
			a, _ := json.Marshal(a)
			b, _ := json.Marshal(b)
			t.Errorf("%s (step %s):\n  template: %.800s\n  rules:    %.800s", j.name, step[0], a, b)
		}
		if w, _ := rules[0].(map[string]any)["warnings"].([]any); len(w) > 0 {
			warned++
		}
		if !reflect.DeepEqual(got["key"], got["rules_key"]) {
			t.Errorf("%s: model key %v, the rules' %v", j.name, got["key"], got["rules_key"])
		}
	}
	for _, s := range []string{"selected", "no-runtime", "model-not-found", "no-format-name", "name", "decoder-without-engine"} {
		if steps[s] == 0 {
			t.Errorf("no job stops at step %q: %v", s, steps)
		}
	}
	if warned == 0 {
		t.Error("no job has a warning about its named runtime")
	}
	t.Logf("%d jobs, %d with warnings: %v", len(jobs), warned, steps)
}

// asRead is what OMERuntimeSelection reads of a decision d, with the
// defaults it reads for what d lacks: its violations' admitted, message
// and (when strict, validateNamedRuntime) warnings, their details' model,
// checked and excluded; and the runtime selected.
func asRead(v any, strict bool) map[string]any {
	d, _ := v.(map[string]any)
	get := func(k string, def any) any {
		if x, ok := d[k]; ok {
			return x
		}
		return def
	}
	out := map[string]any{
		"admitted": get("admitted", nil),
		"message":  get("message", nil),
		"selected": get("selected", nil),
		"model":    get("model", nil),
		"checked":  get("checked", map[string]any{"namespaced": json.Number("0"), "cluster": json.Number("0")}),
		"excluded": get("excluded", []any{}),
	}
	if strict {
		out["warnings"] = get("warnings", nil)
	}
	return out
}
