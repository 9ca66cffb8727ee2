# Unit tests of match.rego. Run them with
#   evaluate test policies/rego
# (OPA's test runner, with the ome.* builtins registered).
package ome.match_test

import data.ome.match

llama := {
	"modelFormat": {"name": "safetensors", "version": "1.0.0"},
	"modelFramework": {"name": "transformers", "version": "4.45.0.dev0"},
	"modelArchitecture": "LlamaForCausalLM",
}

entry(framework) := {
	"modelFormat": {"name": "safetensors", "version": "1.0.0"},
	"modelFramework": framework,
	"modelArchitecture": "LlamaForCausalLM",
}

# Spec 4.1, step 2: a suffix on either side, or Equal, means equality.
test_suffix_forces_equality if {
	match.version_accepted("GreaterThan", "4.45.0.dev0", "4.45.0.dev0")
	not match.version_accepted("GreaterThanOrEqual", "4.45.0.dev0", "4.44.0")
	not match.version_accepted("GreaterThanOrEqual", "4.46.0", "4.45.0.dev0")
}

test_equal_ignores_parts_and_v if {
	match.version_accepted("Equal", "1.0", "1.0.0")
	match.version_accepted("Equal", "v1.0.0", "1.0.0")
}

# Step 3: ordering needs the same number of parts and the v on both or neither.
test_ordering_needs_same_shape if {
	not match.version_accepted("GreaterThanOrEqual", "4.46.0", "4.46")
	match.version_accepted("GreaterThanOrEqual", "4.46", "4.45")
	not match.version_accepted("GreaterThanOrEqual", "v4.46.0", "4.45.0")
	match.version_accepted("GreaterThanOrEqual", "v4.46.0", "v4.45.0")
}

# Step 4: an upper limit, compared as numbers.
test_ordering_is_an_upper_limit if {
	match.version_accepted("GreaterThan", "4.10.0", "4.9.0")
	not match.version_accepted("GreaterThan", "4.45.0", "4.45.0")
	match.version_accepted("GreaterThanOrEqual", "4.45.0", "4.45.0")
	not match.version_accepted("GreaterThanOrEqual", "4.44.0", "4.45.0")
}

# Spec 4.3: other operator strings mean equality, after the shape check.
test_unknown_operators if {
	match.version_accepted("LessThan", "1.0.0", "1.0.0")
	not match.version_accepted("LessThan", "2.0.0", "1.0.0")
	not match.version_accepted("", "1.0", "1.0.0")
	match.version_accepted("", "1.0.0", "1.0.0")
}

test_unparsable_versions_never_match if {
	not match.version_accepted("Equal", "", "")
	not match.version_accepted("Equal", "01.0.0", "01.0.0")
	not match.version_accepted("Equal", "1.0-rc1", "1.0-rc1")
}

test_label if {
	match.label(llama) == "mt:safetensors:1.0.0:LlamaForCausalLM:transformers:4.45.0.dev0"
	match.label({"modelFormat": {"name": "onnx"}}) == "mt:onnx"
	match.label({"modelFormat": {"name": "x"}, "quantization": "fp8", "modelFramework": {"name": "f"}}) == "mt:x:fp8:f"
}

test_seed_example_reason if {
	model := object.union(llama, {"modelFramework": {"name": "transformers", "version": "4.46.0"}})
	runtime := {"supportedModelFormats": [entry({"name": "transformers", "version": "4.45.0.dev0"})]}
	r := match.runtime_result(model, runtime)
	not r.compatible
	r.reason == "model format 'mt:safetensors:1.0.0:LlamaForCausalLM:transformers:4.46.0' not in supported formats: framework version mismatch (model=4.46.0, runtime=4.45.0.dev0)"
}

test_entry_results_are_per_entry if {
	runtime := {"supportedModelFormats": [
		entry({"name": "transformers", "version": "4.46.0", "operator": "GreaterThanOrEqual"}),
		entry({"name": "transformers", "version": "4.45.0.dev0"}),
	]}
	r := match.runtime_result(llama, runtime)
	r.compatible
	r.reason == ""
	r.entries == [
		{"index": 0, "matched": false, "differences": ["framework version mismatch (model=4.45.0.dev0, runtime=4.46.0)"]},
		{"index": 1, "matched": true, "differences": []},
	]
}

test_presence_texts if {
	match.version_difference("format", {"version": "1.0.0"}, {}) == "model has no format version but runtime requires 1.0.0"
	match.version_difference("framework", {}, {"version": "1.0.0"}) == "model has framework version but runtime has no version requirement"
	match.version_difference("format", {}, {}) == ""
	match.version_difference("format", {"version": ""}, {"version": "1.0.0"}) == "format version mismatch (model=1.0.0, runtime=)"
}

test_entry_without_format_is_unknown if {
	e := object.remove(entry({"name": "transformers", "version": "4.45.0.dev0"}), ["modelFormat"])
	match.runtime_result(llama, {"supportedModelFormats": [e]}).entries[0].differences == ["unknown mismatch"]
}

test_pipeline_first_difference_only if {
	model := {"diffusionPipeline": {"className": "A", "scheduler": {"library": "x"}}}
	e := {"diffusionPipeline": {"className": "B", "scheduler": {"library": "y"}}}
	match.pipeline_difference(model, e) == "pipeline class mismatch (model=A, runtime=B)"
}

test_pipeline_additional_components_sorted if {
	model := {"diffusionPipeline": {"additionalComponents": {"b": {}}}}
	e := {"diffusionPipeline": {"additionalComponents": {"z": {}, "c": {}, "b": {}}}}
	match.pipeline_difference(model, e) == "diffusion component c missing in model"
}

test_size_range_is_inclusive if {
	runtime := {"modelSizeRange": {"min": "7B", "max": "8B"}, "supportedModelFormats": [entry({"name": "transformers", "version": "4.45.0.dev0"})]}
	match.runtime_result(object.union(llama, {"modelParameterSize": "8B"}), runtime).compatible
	r := match.runtime_result(object.union(llama, {"modelParameterSize": "8.5B"}), runtime)
	r.reason == "model size 8.5B is outside supported range [7B, 8B]"
}

test_disabled_comes_first if {
	match.runtime_result(llama, {"disabled": true}).reason == "runtime is disabled"
}

# A batch computed for the runtimes and given back as input.batch, without
# the runtimes, gives the same verdicts as computing it in the query.
test_batch_given_back if {
	runtimes := [
		{"supportedModelFormats": [entry({"name": "transformers", "version": "4.46.0", "operator": "GreaterThanOrEqual"})]},
		{"supportedModelFormats": [entry({"name": "transformers", "version": "4.45.0.dev0"}), {"modelFormat": {"name": "onnx"}}]},
		{"disabled": true, "supportedModelFormats": []},
		{"modelSizeRange": {"min": "1B", "max": "2B"}, "supportedModelFormats": [entry({"name": "transformers", "version": "4.45.0.dev0"})]},
	]
	model := object.union(llama, {"modelParameterSize": "8B"})
	b := match.batch with input as {"runtimes": runtimes}
	computed := match.results with input as {"model": model, "runtimes": runtimes}
	given := match.results with input as {"model": model, "batch": b}
	count(computed) == 4
	given == computed
	computed[1].compatible
	computed[2].reason == "runtime is disabled"
	computed[3].reason == "model size 8B is outside supported range [1B, 2B]"
}

# Each table of table_fields, computed from its model field alone, is the
# table computed from the whole model, and given back as input.tables it
# gives the same verdicts.
test_tables_given_back if {
	runtimes := [
		{"supportedModelFormats": [entry({"name": "transformers", "version": "4.46.0", "operator": "GreaterThanOrEqual"})]},
		{"supportedModelFormats": [object.union(entry({"name": "transformers", "version": "4.45.0.dev0"}), {"quantization": "fp8"}), {"modelFormat": {"name": "onnx"}}]},
		{"supportedModelFormats": [object.union(entry({"name": "transformers"}), {"diffusionPipeline": {"className": "FluxPipeline"}})]},
	]
	model := object.union(llama, {"quantization": "fp8", "diffusionPipeline": {"className": "SD3Pipeline"}})
	b := match.batch with input as {"runtimes": runtimes}
	tables := {name: t |
		some name, field in match.table_fields
		alone := {f: v | some f, v in model; f == field}
		t := table(name) with input as {"model": alone, "batch": b}
		whole := table(name) with input as {"model": model, "batch": b}
		t == whole
	}
	count(tables) == 5
	computed := match.results with input as {"model": model, "batch": b}
	given := match.results with input as {"model": model, "batch": b, "tables": tables}
	given == computed
	[r.compatible | some r in computed] == [false, true, false]
}

# A model with its model_fields alone gets the verdicts of the whole model.
test_model_fields_are_all_results_reads if {
	runtimes := [
		{"supportedModelFormats": [entry({"name": "transformers", "version": "4.46.0", "operator": "GreaterThanOrEqual"})]},
		{"supportedModelFormats": [object.union(entry({"name": "transformers", "version": "4.45.0.dev0"}), {"quantization": "fp8"})]},
		{"modelSizeRange": {"min": "1B", "max": "2B"}, "supportedModelFormats": [entry({"name": "transformers", "version": "4.45.0.dev0"})]},
		{"supportedModelFormats": [object.union(entry({"name": "transformers"}), {"diffusionPipeline": {"className": "FluxPipeline"}})]},
	]
	model := object.union(llama, {
		"quantization": "fp8",
		"modelParameterSize": "8B",
		"diffusionPipeline": {"className": "SD3Pipeline"},
		"displayName": "llama",
		"vendor": "meta",
		"version": "3.1",
		"modelType": "llama",
		"storage": {"storageUri": "hf://meta-llama/Llama-3.1-8B"},
	})
	alone := {f: v | some f, v in model; f in match.model_fields}
	whole := match.results with input as {"model": model, "runtimes": runtimes}
	whole == match.results with input as {"model": alone, "runtimes": runtimes}
	count(alone) == 6
	[r.compatible | some r in whole] == [false, true, false, false]
}

table("pipeline_found") := match.pipeline_found

table("architecture_found") := match.architecture_found

table("quantization_found") := match.quantization_found

table("format_found") := match.format_found

table("framework_found") := match.framework_found
