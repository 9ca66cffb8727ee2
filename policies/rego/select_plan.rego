# OME's admission webhook, in Rego: the evaluation plan of select.rego.
# The rules are in select.rego and match.rego; this file only decides how
# they are evaluated for one InferenceService.
#
# A webhook request has one model, so there is nothing to share between
# models: each runtime is judged on its own by match.rego's rules. Whether
# a runtime is compatible is asked of match.runtime_accepts, which stops at
# the first check that fails and builds no text; the reason of an excluded
# runtime (match.runtime_reason) is only built when the request is refused
# or the result lists the excluded runtimes. OPA keeps the result of a
# function for arguments it has seen in the same request, so each runtime
# is judged once and each distinct version string parsed once.
package ome.select

import data.ome.match

# The fields of a runtime's spec that the rules read: match.rego's verdict,
# select.rego's score and autoSelect. Whoever hands runtimes to this
# policy may leave out the others (the Gatekeeper template does, to read
# less of its inventory); TestRuntimeSpecFieldsAreAllThatIsRead checks
# that the decisions do not change.
runtime_spec_fields := ["acceleratorRequirements", "disabled", "modelSizeRange", "supportedModelFormats"]

# Spec 9: whether a runtime is compatible with the model (with the
# accelerator classes). An entry matches only if its modelArchitecture
# equals the model's (both unset counts as equal: architecture_difference
# is "" then and only then), so a runtime without such an entry is not
# compatible: it is set aside with a comparison, before any function call.
compatible(r) if {
	some e in object.get(object.get(r, "spec", {}), "supportedModelFormats", [])
	object.get(e, "modelArchitecture", null) == model_architecture
	match.runtime_accepts(model_spec, object.get(r, "spec", {}), accelerator_classes)
}

# The model's modelArchitecture, null when it has none.
model_architecture := object.get(model_spec, "modelArchitecture", null)

# The reason why a runtime that is not compatible is excluded: the
# reason of match.runtime_verdict, without its list of entries.
exclusion_reason(r) := match.runtime_reason(model_spec, spec, accelerator_classes, match.runtime_differences(model_spec, spec)) if {
	spec := object.get(r, "spec", {})
}

# The verdict on the runtime named in spec.runtime.name, for the warnings.
named_runtime_verdict := match.runtime_verdict(model_spec, object.get(named_runtime, "spec", {}), accelerator_classes)

# What an admission webhook needs: the decision alone when selection
# admits the InferenceService (nothing explains an admission, so neither
# the excluded runtimes nor their reasons are built), the whole result
# otherwise.
admission := decision if {
	decision.admitted
	decision.selection
} else := result
