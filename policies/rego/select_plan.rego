# OME's admission webhook, in Rego: the evaluation plan of select.rego.
# The rules are in select.rego and match.rego; this file only decides how
# they are evaluated for one InferenceService.
#
# A webhook request has one model, so there is nothing to share between
# models, but much between runtimes: each check of match.rego reads one
# field of the model and one of the entry or runtime, so it is asked once
# per distinct value of that field (the *_text functions). Whether a
# runtime is compatible stops at the first check that fails. The reason of
# an excluded runtime is only built when the request is refused or the
# result lists the excluded runtimes, put together from the checks' texts
# (exclusion_reason). OPA keeps the result of a function for arguments it
# has seen in the same request, so each runtime is judged once, each check
# asked once per distinct value and each distinct version string parsed
# once.
package ome.select

import data.ome.match

# The fields of a runtime's spec that the rules read: match.rego's verdict,
# select.rego's score and autoSelect. Whoever hands runtimes to this
# policy may leave out the others (the Gatekeeper template does, to read
# less of its inventory); TestRuntimeSpecFieldsAreAllThatIsRead checks
# that the decisions do not change.
runtime_spec_fields := ["acceleratorRequirements", "disabled", "modelSizeRange", "supportedModelFormats"]

# The fields of a runtime's spec whose annotations alone the rules read
# (the deployment mode).
runtime_spec_annotations := ["engineConfig", "decoderConfig"]

# The parts of a runtime that its own checks read (gate_text).
gate_fields := ["spec/disabled", "spec/acceleratorRequirements", "spec/engineConfig/annotations", "spec/decoderConfig/annotations"]

# Spec 9: whether a runtime is compatible with the model (with the
# accelerator classes). An entry matches only if its modelArchitecture
# equals the model's (both unset counts as equal: architecture_difference
# is "" then and only then), so a runtime without such an entry is not
# compatible: it is set aside with a comparison, before any function call.
# It is false rather than undefined otherwise, so that OPA keeps the
# answer for the next time it is asked (it keeps no undefined result).
#
# The checks are those of match.runtime_accepts (the runtime's own, then
# each entry's, the cheap equalities before the versions, stopping at the
# first that fails), each asked as its text per distinct field value
# (below): "" when it passes.
compatible(r) if {
	architecture_listed(object.get(r, ["spec", "supportedModelFormats"], []))
	gate_text(json.filter(r, gate_fields)) == ""
	size_text(object.get(r, ["spec", "modelSizeRange"], null)) == ""
	some x in r.spec.supportedModelFormats
	entry_accepted(x)
} else := false

# Some entry's modelArchitecture is the model's (both unset counts). (The
# first asks it of every entry in one expression.)
architecture_listed(entries) if entries[_].modelArchitecture == model_architecture

architecture_listed(entries) if {
	model_architecture == null
	some e in entries
	not e.modelArchitecture
}

# An entry matches when it has a format and every check passes.
entry_accepted(e) if {
	e.modelFormat
	architecture_text(object.get(e, "modelArchitecture", null)) == ""
	quantization_text(object.get(e, "quantization", null)) == ""
	pipeline_text(object.get(e, "diffusionPipeline", null)) == ""
	format_text(e.modelFormat) == ""
	framework_text(object.get(e, "modelFramework", null)) == ""
}

# The model's modelArchitecture, null when it has none.
model_architecture := architecture_of(model_spec)

architecture_of(s) := object.get(s, "modelArchitecture", null)

# The reason why a runtime that is not compatible is excluded: the
# reason of match.runtime_verdict, without its list of entries
# (match.runtime_reason of match.runtime_differences), put together from
# what each check gives for the one model.
#
# Every check reads one field of the model and one of the entry or
# runtime, and the model is the same for every runtime, so each check is
# asked once per distinct value of its field: the *_text functions below
# are those checks with the field alone, and OPA keeps each function's
# result for arguments it has already seen in the request. Each runtime's
# reason is then its gate, else its entries' failure, else its size
# failure, in match.runtime_reason's order;
# TestExclusionReasonIsTheRules holds it to match.runtime_reason.
exclusion_reason(r) := gate if {
	gate_may_fail(r)
	gate := gate_text(json.filter(r, gate_fields))
	gate != ""
} else := entries_or_size_reason(object.get(r, ["spec", "supportedModelFormats"], []), object.get(r, ["spec", "modelSizeRange"], null))

# The reason of a runtime whose own checks pass, from its entries and its
# modelSizeRange (null when it has none): its entries' failure, else its
# size failure.
entries_or_size_reason(entries, size_range) := match.no_format_matched(model_label, concat("; ", texts)) if {
	# match.entries_failure with each entry's text (match.entry_text of
	# its differences): "" when an entry has no differences (its text is
	# "": a difference is never ""), else match.no_format_matched's text
	# with the entries' texts joined with "; " (match.entries_text, with at
	# least one entry).
	#
	# The usual runtime first: it has entries, and neither the model nor
	# any entry has a quantization or a pipeline. Each entry's text is then
	# that of its architecture, format and framework checks (see
	# entry_text), except for an entry without a format that differs in
	# nothing else: that gives "" here where its text is "unknown
	# mismatch", and the next branch takes the runtime.
	entries[0]
	unset_texts_empty
	not quantization_or_pipeline(entries)
	texts := [trim_suffix(concat("", [
		architecture_format_text(object.get(e, "modelArchitecture", null), object.get(e, "modelFormat", null)),
		framework_text(object.get(e, "modelFramework", null)),
	]), ", ") | some e in entries]
	not "" in texts
} else := match.no_format_matched(model_label, match.entries_text(texts)) if {
	# Any other runtime, each entry's text from entry_text.
	texts := [entry_text(e) | some e in entries]
	not "" in texts
} else := size_text(size_range)

model_label := match.label(model_spec)

# An entry's text: match.entry_text of match.entry_differences_of, from
# each check's text on the entry's field (with_unknown for an entry
# without a format). Each *_text gives "" or its text followed by ", ",
# so that the texts joined with ", " are their concatenation less the
# last ", ". The usual entry, with an architecture, a format and a
# framework but neither quantization nor pipeline, takes the first branch:
# the checks of the unset fields are asked once (unset_texts).
entry_text(e) := trim_suffix(concat("", [
	architecture_text(e.modelArchitecture),
	format_text(e.modelFormat),
	framework_text(e.modelFramework),
]), ", ") if {
	not e.quantization
	not e.diffusionPipeline
	unset_texts_empty
} else := trim_suffix(concat("", [
	unset_texts.pipeline,
	architecture_text(e.modelArchitecture),
	unset_texts.quantization,
	format_text(e.modelFormat),
	framework_text(e.modelFramework),
]), ", ") if {
	not e.quantization
	not e.diffusionPipeline
} else := trim_suffix(concat("", [
	pipeline_text(object.get(e, "diffusionPipeline", null)),
	architecture_text(object.get(e, "modelArchitecture", null)),
	quantization_text(object.get(e, "quantization", null)),
	format_text(e.modelFormat),
	framework_text(object.get(e, "modelFramework", null)),
]), ", ") if {
	e.modelFormat
} else := match.entry_text(match.entry_differences_of(model_spec, e))

# Some entry has a quantization or a pipeline.
quantization_or_pipeline(entries) if entries[_].quantization

quantization_or_pipeline(entries) if entries[_].diffusionPipeline

unset_texts := {"pipeline": pipeline_text(null), "quantization": quantization_text(null)}

# Both are "" unless the model has a quantization or a pipeline.
unset_texts_empty if {
	unset_texts.pipeline == ""
	unset_texts.quantization == ""
}

# The runtime's own checks (match.runtime_gate, then the deployment mode)
# can fail only for a disabled runtime or when the InferenceService asks
# for accelerator classes or deployment modes; otherwise gate_text is "",
# and the usual runtime is settled without asking it.
gate_may_fail(_) if classes_asked

gate_may_fail(_) if count(requested_modes) > 0

gate_may_fail(r) if r.spec.disabled == true

classes_asked if count(accelerator_classes) > 0

# The checks on one field, with the model: the field alone (nothing when
# it is null, unset). gate_text's are the runtime's own checks, given the
# runtime with the fields of gate_fields alone.
gate_text(r) := runtime_own_reason(object.get(r, "spec", {}))

pipeline_text(v) := separated(match.pipeline_difference(model_spec, only("diffusionPipeline", v)))

architecture_text(v) := separated(match.architecture_difference(model_spec, only("modelArchitecture", v)))

quantization_text(v) := separated(match.quantization_difference(model_spec, only("quantization", v)))

format_text(v) := separated(match.format_difference(model_spec, only("modelFormat", v)))

# The two together, asked once per distinct pair: entries have few
# architectures and formats.
architecture_format_text(architecture, format) := concat("", [architecture_text(architecture), format_text(format)])

framework_text(v) := separated(match.framework_difference(model_spec, only("modelFramework", v)))

separated("") := ""

separated(d) := concat("", [d, ", "]) if d != ""

size_text(v) := match.size_failure(model_spec, only("modelSizeRange", v))

only(_, null) := {}

only(field, v) := {field: v} if v != null

# The verdict on the runtime named in spec.runtime.name, for the warnings:
# match.runtime_verdict's, unless the runtime's own checks fail.
named_runtime_verdict := {"compatible": false, "reason": own} if {
	own := runtime_own_reason(object.get(named_runtime, "spec", {}))
	own != ""
} else := match.runtime_verdict(model_spec, object.get(named_runtime, "spec", {}), accelerator_classes)

# What the Gatekeeper template asks, once selection is reached, of the
# runtimes that can be compatible with the model: the decision when
# selection admits the InferenceService, undefined otherwise, without
# building the excluded runtimes' reasons. Only the last two steps depend
# on the runtimes, and selection admits exactly when it ranks a candidate.
selection_admission := decision if step == "selected"

# The model's architecture and format name (model_architecture and
# format_name) with the model found among objects (model_of): what the
# Gatekeeper template lists the runtimes by, before it has any.
model_key_of(objects) := [architecture_of(spec), format_name_of(spec)] if {
	spec := object.get(model_of(objects), "spec", {})
} else := [null, ""]

# What an admission webhook needs: the decision alone when selection
# admits the InferenceService (nothing explains an admission, so neither
# the excluded runtimes nor their reasons are built), the whole result
# otherwise.
admission := decision if {
	decision.admitted
	decision.selection
} else := result
