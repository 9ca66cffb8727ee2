package company.prod_pins_runtime_test

import data.company.prod_pins_runtime

isvc(namespace, spec) := {"kind": "InferenceService", "metadata": {"name": "chat", "namespace": namespace}, "spec": spec}

test_no_runtime_in_prod_is_denied if {
	prod_pins_runtime.deny == {{
		"msg": "InferenceService prod/chat names no runtime (spec.runtime.name): in prod, a runtime is chosen, not found",
		"field": "spec.runtime.name",
	}} with input as isvc("prod", {"model": {"name": "llama"}})
}

test_a_named_runtime_passes if {
	count(prod_pins_runtime.deny) == 0 with input as isvc("prod", {"runtime": {"name": "vllm-llama"}})
}

test_other_namespaces_are_not_judged if {
	count(prod_pins_runtime.deny) == 0 with input as isvc("dev", {})
}
