# Unit tests of lint.rego. Run them with
#   evaluate test policies/rego
# cases/engines_test.go also runs every lint case of policies/cel/lint_test.yaml
# on these rules, so the two engines are held to the same findings.
package ome.lint_test

import data.ome.lint

runtime(entries) := {
	"apiVersion": "ome.io/v1beta1", "kind": "ClusterServingRuntime",
	"metadata": {"name": "r"}, "spec": {"supportedModelFormats": entries},
}

model(spec) := {"apiVersion": "ome.io/v1beta1", "kind": "ClusterBaseModel", "metadata": {"name": "m"}, "spec": spec}

entry(format, framework) := {"modelFormat": format, "modelFramework": framework}

safetensors := {"name": "safetensors", "version": "1.0.0"}

transformers := {"name": "transformers", "version": "4.46.0"}

# The rules and fields found for one object.
found(obj) := {[f.rule, f.field] | some f in lint.findings with input as {"object": obj, "raw": {}}}

found_raw(obj, raw) := {[f.rule, f.field] | some f in lint.findings with input as {"object": obj, "raw": raw}}

message(obj, rule) := [f.message | some f in lint.findings with input as {"object": obj, "raw": {}}; f.rule == rule][0]

set_found(objects, cross) := {[f.index, f.rule, f.field] |
	some f in lint.set_findings with input as {"objects": objects, "crossCheck": cross}
}

# An object as the engine gives it to the set rules (cluster-scoped, as
# model and runtime make them: no namespace).
item(i, obj) := {
	"kind": obj.kind, "namespace": "", "name": obj.metadata.name,
	"file": "f.yaml", "line": i + 1, "valid": true, "spec": object.get(obj, "spec", {}),
}

test_clean_objects_have_no_finding if {
	found(runtime([object.union(entry(safetensors, object.union(transformers, {"operator": "GreaterThanOrEqual"})), {"autoSelect": true, "priority": 1})])) == set()
	found(model({"modelFormat": safetensors, "modelFramework": {"name": "transformers", "version": "4.45.0.dev0"}})) == set()
	found({"kind": "InferenceService", "metadata": {"name": "svc"}, "spec": {}}) == set()
}

test_invalid_version_says_why if {
	r := runtime([entry({"name": "safetensors", "version": "1.0-rc1"}, transformers)])
	found(r) == {["invalid-version", "spec.supportedModelFormats[0].modelFormat.version"]}
	contains(message(r, "invalid-version"), "a suffix may only follow the third number")
	contains(message(r, "invalid-version"), "this entry accepts no model")
}

test_empty_version_says_to_leave_it_out if {
	m := model({"modelFormat": safetensors, "modelFramework": {"name": "transformers", "version": ""}})
	found(m) == {["empty-version", "spec.modelFramework.version"]}
	contains(message(m, "empty-version"), "Leave the field out")
}

test_non_string_version_quotes_the_source if {
	r := runtime([entry(safetensors, {"name": "transformers", "version": 4.4})])
	field := "spec.supportedModelFormats[0].modelFramework.version"
	found_raw(r, {field: "4.40"}) == {["non-string-version", field]}
	msgs := [f.message | some f in lint.findings with input as {"object": r, "raw": {field: "4.40"}}]
	contains(msgs[0], `Quote it: version: "4.40".`)
}

test_non_string_version_list if {
	found(model({"modelFormat": {"name": "safetensors", "version": ["1.0.0"]}, "modelFramework": transformers})) == {["non-string-version", "spec.modelFormat.version"]}
}

test_unknown_operators if {
	r := runtime([entry(object.union(safetensors, {"operator": ""}), object.union(transformers, {"operator": "greaterThan"}))])
	found(r) == {
		["unknown-operator", "spec.supportedModelFormats[0].modelFormat.operator"],
		["unknown-operator", "spec.supportedModelFormats[0].modelFramework.operator"],
	}
	msgs := [f.message | some f in lint.findings with input as {"object": r, "raw": {}}]
	contains(msgs[0], "An empty operator is not the same as none")
	contains(msgs[1], "Operators are case-sensitive: write GreaterThan.")
}

test_ordering_operator_with_suffix if {
	r := runtime([entry(safetensors, {"name": "transformers", "version": "4.45.0.dev0", "operator": "GreaterThanOrEqual"})])
	found(r) == {["ordering-operator-with-suffix", "spec.supportedModelFormats[0].modelFramework.operator"]}
	contains(message(r, "ordering-operator-with-suffix"), "(such as 4.45.0)")
}

test_equal_on_a_suffix_is_fine if {
	found(runtime([entry(safetensors, {"name": "transformers", "version": "4.45.0.dev0", "operator": "Equal"})])) == set()
}

test_operator_without_version if {
	found(runtime([entry(safetensors, {"name": "transformers", "operator": "GreaterThan"})])) == {["operator-without-version", "spec.supportedModelFormats[0].modelFramework.operator"]}
}

test_ignored_fields if {
	found(runtime([object.union(entry(safetensors, transformers), {"name": "x", "version": "1"})])) == {
		["ignored-field", "spec.supportedModelFormats[0].name"],
		["ignored-field", "spec.supportedModelFormats[0].version"],
	}
	found(model({"modelFormat": object.union(safetensors, {"operator": "GreaterThan"}), "modelFramework": transformers})) == {["ignored-field", "spec.modelFormat.operator"]}
}

# What OME's CRD writes by default (operator Equal, weight 1), as every
# object read back from a cluster has it, is no finding.
test_crd_defaults_are_no_finding if {
	defaulted := {"operator": "Equal", "weight": 1}
	found(model({"modelFormat": object.union(safetensors, defaulted), "modelFramework": object.union(transformers, defaulted)})) == set()
	found(runtime([entry(object.union(safetensors, defaulted), object.union(transformers, defaulted))])) == set()
}

test_missing_format_and_framework if {
	found(runtime([{"modelFramework": transformers}, {"modelFormat": safetensors}])) == {
		["missing-format", "spec.supportedModelFormats[0].modelFormat"],
		["missing-framework", "spec.supportedModelFormats[1].modelFramework"],
	}
	severities := {[f.rule, f.severity] | some f in lint.findings with input as {"object": model({}), "raw": {}}}
	severities == {["missing-format", "error"], ["missing-framework", "warning"]}
}

test_incomplete_size_range if {
	r := object.union(runtime([entry(safetensors, transformers)]), {"spec": {"modelSizeRange": {"min": "1B"}}})
	found(r) == {["incomplete-size-range", "spec.modelSizeRange"]}
	contains(message(r, "incomplete-size-range"), "a min (1B) but no max")
}

test_wrong_types if {
	found(runtime([{"modelFormat": "safetensors", "modelFramework": transformers, "autoSelect": "yes", "priority": 1.5}, "x"])) == {
		["wrong-type", "spec.supportedModelFormats[0].modelFormat"],
		["wrong-type", "spec.supportedModelFormats[0].autoSelect"],
		["wrong-type", "spec.supportedModelFormats[0].priority"],
		["wrong-type", "spec.supportedModelFormats[1]"],
	}
	found(runtime([object.union(entry(safetensors, transformers), {"priority": 2.0})])) == set()
}

test_duplicate_names if {
	objects := [
		item(0, object.union(runtime([]), {"metadata": {"name": "r", "namespace": "ignored"}})),
		item(1, runtime([])),
		item(2, {"kind": "ServingRuntime", "metadata": {"name": "r", "namespace": "ignored"}, "spec": {}}),
	]
	set_found(objects, false) == {[1, "duplicate-name", "metadata.name"]}
}

# Each later copy names the first of its key, however the keys interleave
# (the objects of one key are not neighbours in the input).
test_duplicate_names_name_the_first_of_their_key if {
	objects := [named(0, "b"), named(1, "a"), named(2, "b"), named(3, "a"), named(4, "b"), named(5, "c")]
	{[f.index, f.message] | some f in lint.set_findings with input as {"objects": objects, "crossCheck": false}} == {
		[2, "ClusterServingRuntime b is also defined at f.yaml:1; on apply, the later one replaces the earlier, so only one of them takes effect. Rename one of them, or remove the duplicate."],
		[3, "ClusterServingRuntime a is also defined at f.yaml:2; on apply, the later one replaces the earlier, so only one of them takes effect. Rename one of them, or remove the duplicate."],
		[4, "ClusterServingRuntime b is also defined at f.yaml:1; on apply, the later one replaces the earlier, so only one of them takes effect. Rename one of them, or remove the duplicate."],
	}
}

named(i, name) := item(i, object.union(runtime([]), {"metadata": {"name": name}}))

test_name_case if {
	objects := [
		item(0, model({"modelFormat": {"name": "SafeTensors"}, "modelFramework": {"name": "vLLM"}})),
		item(1, runtime([entry(safetensors, {"name": "vllm"}), entry(safetensors, {"name": "vllm"})])),
	]
	set_found(objects, false) == {[0, "name-case", "spec.modelFormat.name"], [0, "name-case", "spec.modelFramework.name"]}
}

test_name_case_ties_are_not_flagged if {
	set_found([item(0, runtime([entry({"name": "A"}, {"name": "x"}), entry({"name": "a"}, {"name": "x"})]))], false) == set()
}

test_cross_check_only_when_asked if {
	objects := [item(0, model({"modelFormat": safetensors, "modelFramework": transformers})), item(1, runtime([entry({"name": "onnx"}, {"name": "onnx"})]))]
	set_found(objects, false) == set()
	set_found(objects, true) == {[0, "unmatched-model", "spec"], [1, "unreachable-entry", "spec.supportedModelFormats[0]"]}
}

test_cross_check_closest_miss if {
	objects := [
		item(0, model({"modelFormat": safetensors, "modelFramework": transformers, "modelArchitecture": "LlamaForCausalLM"})),
		item(1, runtime([
			object.union(entry(safetensors, {"name": "transformers", "version": "4.36.0"}), {"modelArchitecture": "MistralForCausalLM"}),
			object.union(entry(safetensors, {"name": "transformers", "version": "4.45.0.dev0"}), {"modelArchitecture": "LlamaForCausalLM"}),
		])),
	]
	msgs := [f.message | some f in lint.set_findings with input as {"objects": objects, "crossCheck": true}; f.rule == "unmatched-model"]
	contains(msgs[0], "the closest miss is ClusterServingRuntime r entry 1: framework version mismatch (model=4.46.0, runtime=4.45.0.dev0)")
}

test_cross_check_skips_invalid_objects if {
	objects := [
		object.union(item(0, model({"modelFormat": {"name": "onnx", "version": 1}, "modelFramework": {"name": "onnx"}})), {"valid": false}),
		item(1, runtime([entry({"name": "onnx"}, {"name": "onnx"})])),
	]
	set_found(objects, true) == set()
}
