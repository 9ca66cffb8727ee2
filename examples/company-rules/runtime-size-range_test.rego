package company.runtime_size_range_test

import data.company.runtime_size_range

test_runtime_without_a_range_is_denied if {
	runtime_size_range.deny == {{
		"msg": "ClusterServingRuntime vllm declares no modelSizeRange: say which model sizes it serves",
		"field": "spec",
	}} with input as {"kind": "ClusterServingRuntime", "metadata": {"name": "vllm"}, "spec": {}}
}

test_runtime_with_a_range_passes if {
	count(runtime_size_range.deny) == 0 with input as {
		"kind": "ServingRuntime",
		"metadata": {"name": "vllm"},
		"spec": {"modelSizeRange": {"min": "1B", "max": "8B"}},
	}
}

test_models_are_not_judged if {
	count(runtime_size_range.deny) == 0 with input as {"kind": "ClusterBaseModel", "metadata": {"name": "m"}, "spec": {}}
}
