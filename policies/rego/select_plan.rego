# OME's admission webhook, in Rego: the evaluation plan of select.rego.
# The rules are in select.rego and match.rego; this file only asks the match
# policy for the verdicts selection needs, each set of runtimes in one query
# (match_plan.rego's results), so that what depends only on the model is
# computed once.
package ome.select

import data.ome.match

# Spec 9: each runtime looked at, with its verdict and score, from one
# batch of the match policy.
assessed(rs) := [{"runtime": r, "verdict": verdicts[i], "score": scores[i], "auto_select": auto[i]} |
	some i, r in rs
] if {
	batch := {"model": model_spec, "runtimes": [object.get(r, "spec", {}) | some r in rs], "acceleratorClasses": accelerator_classes}
	verdicts := match.results with input as batch
	scores := [runtime_score(model_spec, r) | some r in batch.runtimes]
	auto := [auto_selectable_bool(r) | some r in batch.runtimes]
}

# The verdict on the runtime named in spec.runtime.name, for the warnings.
named_runtime_verdict := verdicts[0] if {
	batch := {"model": model_spec, "runtimes": [object.get(named_runtime, "spec", {})], "acceleratorClasses": accelerator_classes}
	verdicts := match.results with input as batch
}
