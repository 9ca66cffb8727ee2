package company.prod_redundancy_test

import data.company.prod_redundancy

model(namespace) := {"kind": "BaseModel", "metadata": {"name": "llama", "namespace": namespace}, "spec": {}}

runtime(name) := {"kind": "ClusterServingRuntime", "namespace": "", "name": name}

test_one_runtime_is_too_few if {
	prod_redundancy.deny == {{
		"msg": "BaseModel prod/llama is served by 1 runtime(s): prod needs two, so that one can fail",
		"field": "metadata.namespace",
	}} with input as model("prod")
		with data.evaluate.decision as {"runtimes": [runtime("vllm")]}
}

test_two_runtimes_pass if {
	count(prod_redundancy.deny) == 0 with input as model("prod")
		with data.evaluate.decision as {"runtimes": [runtime("vllm"), runtime("srt")]}
}

test_other_namespaces_are_not_judged if {
	count(prod_redundancy.deny) == 0 with input as model("dev")
		with data.evaluate.decision as {"runtimes": []}
}
