# Unit tests of explain.rego. Run them with
#   evaluate test policies/rego
# cases/engines_test.go also runs every case of policies/cel/explain_test.yaml
# on these rules, so the two engines are held to the same explanations.
package ome.explain_test

import data.ome.explain

st := {"name": "safetensors", "version": "1.0.0"}

tf(v) := {"name": "transformers", "version": v}

framework_check(model_fw, entry_fw) := explain.entry_checks({"modelFormat": st, "modelFramework": model_fw}, {"modelFormat": st, "modelFramework": entry_fw})[4]

test_five_checks_in_omes_order if {
	[c.check | some c in explain.entry_checks({"modelFormat": st}, {"modelFormat": st})] == ["pipeline", "architecture", "quantization", "format", "framework"]
}

test_suffix_forces_equality if {
	c := framework_check(tf("4.46.0"), tf("4.45.0.dev0"))
	not c.passed
	some d in c.details
	contains(d, "has a suffix, so every operator means equality")
	c.versions.entry.dev == ["dev0"]
	c.versions.entry.numbers == ["4", "45", "0"]
	not c.versions.operator
}

test_upper_limit if {
	c := framework_check(tf("4.44.2"), object.union(tf("4.46.0"), {"operator": "GreaterThanOrEqual"}))
	c.passed
	c.fix == ""
	"entry 4.46.0 GreaterThanOrEqual accepts 3-part versions without v or suffix up to 4.46.0; the model's 4.44.2 is below 4.46.0" in c.details
	c.versions.operator == "GreaterThanOrEqual"
}

test_model_suffix_against_ordering if {
	c := framework_check(tf("4.45.0.dev0"), object.union(tf("4.46.0"), {"operator": "GreaterThanOrEqual"}))
	not c.passed
	"entry 4.46.0 GreaterThanOrEqual accepts 3-part versions without v or suffix up to 4.46.0; the model's 4.45.0.dev0 has a suffix, so only an equal version would match" in c.details
}

test_version_on_one_side if {
	c := framework_check({"name": "transformers"}, tf("4.46.0"))
	not c.passed
	contains(c.fix, "yourself")
	not c.versions.model
	c.versions.entry.text == "4.46.0"
}

test_invalid_version if {
	c := framework_check(tf("4.45.dev0"), tf("4.46.0"))
	not c.passed
	c.versions.model.valid == false
	startswith(c.versions.model.problem, "number 3")
}

test_names_differ_in_case if {
	c := explain.entry_checks({"modelFormat": {"name": "SafeTensors"}}, {"modelFormat": {"name": "safetensors"}})[3]
	not c.passed
	endswith(c.summary, "(only in case: names are compared exactly)")
	not c.versions
}

test_runtime_checks_and_advice if {
	r := explain.result with input as {
		"model": {"modelFormat": {"name": "onnx"}, "modelParameterSize": "9B"},
		"runtime": {"disabled": true, "modelSizeRange": {"min": "1B", "max": "8B"}, "supportedModelFormats": [{"modelFormat": {"name": "onnx"}, "autoSelect": true}]},
	}
	[c.passed | some c in r.runtime.checks] == [false, false]
	r.runtime.checks[1].summary == "model size 9B is outside [1B, 8B]"
	r.runtime.notes == []
	count(r.runtime.advice) == 3
	[c.passed | some c in r.entries[0]] == [true, true, true, true, true]
}
