# OME's admission webhook, in Rego: the evaluation plan of select.rego.
# The rules are in select.rego and match.rego; this file only decides how
# they are evaluated for one InferenceService.
#
# A webhook request has one model, so there is nothing to share between
# models: each runtime is judged on its own by match.rego's rules
# (runtime_verdict), which costs less than putting the runtimes in a batch
# (match_plan.rego) for a single model. OPA keeps the result of a function
# for arguments it has seen in the same request, so each distinct version
# string is parsed and compared once. A runtime's score and its autoSelect
# are only looked at when it is compatible: the ranking needs no others.
package ome.select

import data.ome.match

# Spec 9: each runtime looked at, with its verdict (with the accelerator
# classes), and for a compatible one its score and whether it can be
# selected automatically.
assessed(rs) := [assessment(r, spec, match.runtime_verdict(model_spec, spec, accelerator_classes)) |
	some r in rs
	spec := object.get(r, "spec", {})
]

assessment(r, spec, verdict) := {"runtime": r, "verdict": verdict, "score": runtime_score(model_spec, spec), "auto_select": auto_selectable_bool(spec)} if {
	verdict.compatible
} else := {"runtime": r, "verdict": verdict, "score": 0, "auto_select": false}

# The verdict on the runtime named in spec.runtime.name, for the warnings.
named_runtime_verdict := match.runtime_verdict(model_spec, object.get(named_runtime, "spec", {}), accelerator_classes)
