# Unit tests of select.rego and of the scoring in match.rego. Run them with
#   evaluate test policies/rego
package ome.select_test

import data.ome.match
import data.ome.select

llama := {
	"modelFormat": {"name": "safetensors", "version": "1.0.0"},
	"modelFramework": {"name": "transformers", "version": "4.45.0"},
}

model_object := {"apiVersion": "ome.io/v1beta1", "kind": "ClusterBaseModel", "metadata": {"name": "llama"}, "spec": llama}

entry(extra) := object.union({
	"modelFormat": {"name": "safetensors", "version": "1.0.0"},
	"modelFramework": {"name": "transformers", "version": "4.45.0"},
	"autoSelect": true,
}, extra)

runtime(name, spec) := {"apiVersion": "ome.io/v1beta1", "kind": "ClusterServingRuntime", "metadata": {"name": name}, "spec": spec}

service(spec) := {"apiVersion": "ome.io/v1beta1", "kind": "InferenceService", "metadata": {"name": "svc", "namespace": "team-a"}, "spec": spec}

test_entry_score_weights if {
	match.entry_score(llama, entry({})) == 2
	match.entry_score(llama, entry({"priority": 3})) == 6
	match.entry_score(llama, entry({"modelFormat": {"name": "safetensors", "weight": 0}})) == 11
	match.entry_score(llama, entry({"modelFramework": {"name": "transformers", "weight": 0}})) == 6
}

test_entry_score_zero_on_disagreement if {
	match.entry_score(llama, entry({"modelFormat": {"name": "pytorch"}})) == 0
	match.entry_score(llama, entry({"modelFramework": {"name": "transformers", "version": "4.44.0"}})) == 0
	match.entry_score({"modelFormat": {"name": "safetensors"}}, entry({})) == 0
}

test_runtime_score_skips_autoselect_false if {
	spec := {"supportedModelFormats": [entry({"autoSelect": false, "priority": 9}), entry({"priority": 2})]}
	match.runtime_score(llama, spec) == 4
	match.auto_selectable(spec)
	not match.auto_selectable({"supportedModelFormats": [object.remove(entry({}), ["autoSelect"])]})
}

test_selects_the_best_runtime if {
	r := select.result with input as {
		"inferenceService": service({"model": {"name": "llama"}, "engine": {}}),
		"objects": [model_object, runtime("a", {"supportedModelFormats": [entry({})]}), runtime("b", {"supportedModelFormats": [entry({"priority": 2})]})],
	}
	r.admitted
	r.selected.name == "b"
	[c.name | some c in r.candidates] == ["b", "a"]
}

test_no_engine_is_admitted_without_selection if {
	r := select.result with input as {"inferenceService": service({"model": {"name": "llama"}}), "objects": [model_object]}
	r.admitted
	not r.selection
	r.candidates == []
}

test_no_runtime_message if {
	r := select.result with input as {
		"inferenceService": service({"model": {"name": "llama"}, "engine": {}}),
		"objects": [model_object, runtime("off", {"disabled": true})],
	}
	not r.admitted
	r.message == "no supporting runtime found for model llama and engine does not have complete runner configuration: no runtime found to support model safetensors with format safetensors in namespace team-a. Checked 1 runtimes (0 namespace-scoped, 1 cluster-scoped). Excluded runtimes: off (runtime is disabled)"
}

test_named_runtime_warning if {
	r := select.result with input as {
		"inferenceService": service({"model": {"name": "llama"}, "engine": {}, "runtime": {"name": "gone"}}),
		"objects": [model_object],
	}
	r.admitted
	r.warnings == ["runtime gone not found in namespace team-a or at cluster scope"]
}

test_excluded_newest_first if {
	off := {"disabled": true}
	r := select.result with input as {
		"inferenceService": service({"model": {"name": "llama"}, "engine": {}}),
		"objects": [
			model_object,
			object.union(runtime("old", off), {"metadata": {"creationTimestamp": "2024-01-01T00:00:00Z"}}),
			runtime("none", off),
			object.union(runtime("new", off), {"metadata": {"creationTimestamp": "2025-01-01T00:00:00Z"}}),
			object.union(runtime("same", off), {"metadata": {"creationTimestamp": "2024-01-01T00:00:00Z"}}),
			{"apiVersion": "ome.io/v1beta1", "kind": "ServingRuntime", "metadata": {"name": "ns", "namespace": "team-a"}, "spec": off},
		],
	}
	[e.name | some e in r.excluded] == ["ns", "new", "old", "same", "none"]
}

# Two objects of one kind and name (a test's inventory may sync a
# cluster-scoped one under the namespace it says): the first is the model,
# and the named runtime, as in select.yaml.
test_first_of_two_of_a_name if {
	r := select.result with input as {
		"inferenceService": service({"model": {"name": "llama"}, "engine": {}, "runtime": {"name": "twin"}}),
		"objects": [
			model_object,
			object.union(model_object, {"metadata": {"namespace": "team-b"}, "spec": {"disabled": true}}),
			runtime("twin", {"disabled": true}),
			runtime("twin", {"supportedModelFormats": [entry({})]}),
		],
	}
	r.admitted
	r.model == {"kind": "ClusterBaseModel", "namespace": "", "name": "llama"}
	r.warnings == ["cluster-scoped runtime twin is disabled"]
}

# The checks of the InferenceService alone come first, in OME's order, and
# name themselves.
test_isvc_checks_in_order if {
	svc := object.union(service({"model": {"name": "missing"}, "decoder": {}}), {"metadata": {
		"name": "chat.v1",
		"annotations": {"ome.io/autoscalerClass": "bogus", "ome.io/targetUtilizationPercentage": "150"},
	}})
	r := select.result with input as {"inferenceService": svc, "objects": []}
	r.check == "name"
	r2 := select.result with input as {"inferenceService": object.union(svc, {"metadata": {"name": "chat"}}), "objects": []}
	r2.check == "autoscaler-class"
	r2.message == "[bogus] is not a supported autoscaler class type"
	r3 := select.result with input as {"inferenceService": object.union(svc, {"metadata": {"name": "chat", "annotations": {"ome.io/autoscalerClass": "hpa"}}}), "objects": []}
	r3.check == "target-utilization"
	r4 := select.result with input as {"inferenceService": service({"model": {"name": "missing"}, "decoder": {}}), "objects": []}
	r4.check == "decoder-without-engine"
	not r4.selection
}

test_keda_values_in_order if {
	svc := object.union(service({"model": {"name": "llama"}, "engine": {}, "kedaConfig": {"scalingOperator": "LessThan", "scalingThreshold": "x"}}), {"metadata": {"annotations": {
		"ome.io/autoscalerClass": "keda",
		"autoscaling.keda.sh/operator": "Below",
	}}})
	r := select.result with input as {"inferenceService": svc, "objects": [model_object]}
	r.check == "keda-scaling-operator"
	r.message == `invalid KEDA scaling operator "Below", must be one of: GreaterThan, GreaterThanOrEqual, LessThan, LessThanOrEqual`
}

test_an_empty_accelerator_class_is_a_class if {
	svc := object.union(service({"model": {"name": "llama"}, "engine": {}}), {"metadata": {"annotations": {"ome.io/accelerator-class": ""}}})
	select.accelerator_classes == [""] with input as {"inferenceService": svc, "objects": []}
}

# Runtimes that tie on score and size distance are ranked by name alone:
# the result names the others, with a priority that breaks the tie.
test_tie_on_all_but_the_name if {
	r := select.result with input as {
		"inferenceService": service({"model": {"name": "llama"}, "engine": {}}),
		"objects": [
			model_object,
			runtime("b", {"supportedModelFormats": [entry({})]}),
			runtime("a", {"supportedModelFormats": [entry({})]}),
			runtime("c", {"supportedModelFormats": [entry({"priority": 2})]}),
			runtime("d", {"supportedModelFormats": [entry({"priority": 2}), entry({"priority": 4, "autoSelect": false})]}),
		],
	}
	r.selected.name == "c"
	r.tiedWith == [{"kind": "ClusterServingRuntime", "namespace": "", "name": "d"}]
	r.tiePriority == 5
}
