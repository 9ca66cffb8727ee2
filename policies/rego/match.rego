# OME runtime matching, in Rego: the rules. A reader audits this file alone.
#
# Each function below is one check of OME's decision, in the order of the
# spec (../shared/spec/version-matching.md, sections cited), and gives the
# difference text OME gives, or "" when the check passes. runtime_result is
# the whole decision for one model spec and one runtime spec:
# {"compatible", "reason", "entries"}, each entry {"index", "matched",
# "differences"}, reason being OME's text ("" when compatible).
#
# How an engine evaluates many models against many runtimes at once
# (batching, tables of distinct values, memo keys) is the evaluation plan,
# match_plan.rego: data.ome.match.results, one verdict per runtime of
# input.runtimes for input.model. The plan only calls these functions, and
# gives what runtime_result gives.
#
# A field is set when it is present (the loader drops YAML nulls), and the
# fields tested here hold strings or objects, never false, so `x.f` tests
# presence and `not x.f` absence. The ome.version.* and ome.size.* functions
# are the Go builtins (see `evaluate policies --functions`); everything else
# is here.
package ome.match

# runtime_result is OME's verdict on one model (spec) and one runtime
# (spec), as `evaluate match` gives it: no InferenceService, so no
# accelerator classes.
runtime_result(model, runtime) := runtime_verdict(model, runtime, [])

# runtime_verdict is that verdict when an InferenceService asks for the
# accelerator classes classes.
runtime_verdict(model, runtime, classes) := {
	"compatible": reason == "",
	"reason": reason,
	"entries": [{"index": i, "matched": count(d) == 0, "differences": d} | some i, d in differences],
} if {
	differences := runtime_differences(model, runtime)
	reason := runtime_reason(model, runtime, classes, differences)
}

# Spec 7: each entry's differences, in the runtime's order.
runtime_differences(model, runtime) := [entry_differences_of(model, e) | some e in object.get(runtime, "supportedModelFormats", [])]

# Spec 9: a runtime's reason, "" when it is compatible: the checks on the
# runtime itself, then its entries (differences holds each entry's), then
# the model size.
runtime_reason(model, runtime, classes, differences) := gate if {
	gate := runtime_gate(runtime, classes)
	gate != ""
} else := failure if {
	failure := entries_failure(label(model), differences)
	failure != ""
} else := size_failure(model, runtime)

# Spec 9: the checks on the runtime itself, which come before its entries:
# disabled, then the accelerator classes an InferenceService asks for.
# runtime_gate is the reason when one of them fails, "" otherwise.
runtime_gate(runtime, classes) := "runtime is disabled" if {
	runtime.disabled == true
} else := "runtime does not support the required accelerator class" if {
	# Every class asked for must be listed; a runtime without
	# acceleratorRequirements supports none.
	some c in classes
	not c in object.get(object.get(runtime, "acceleratorRequirements", {}), "acceleratorClasses", [])
} else := ""

# Spec 7: the entries' verdict: "" when one of them matched (it has no
# differences), else OME's reason, which gives every entry's differences
# (entries_text), after the model's label.
entries_failure(lbl, differences) := "" if {
	some d in differences
	count(d) == 0
} else := no_format_matched(lbl, entries_text([entry_text(d) | some d in differences]))

# Spec 7: the reason when no entry matched.
no_format_matched(lbl, details) := concat("", ["model format '", lbl, "' not in supported formats: ", details])

# Spec 7: an entry's differences are joined by ", "; the entries' by "; ",
# and a runtime without entries has "no supported formats defined".
entry_text(differences) := concat(", ", differences)

entries_text(texts) := "no supported formats defined" if count(texts) == 0
else := concat("; ", texts)

# Spec 6 and 7: an entry's differences, its checks in OME's order (the
# pipeline, the architecture, the quantization, the format, the framework);
# the entry matches when there are none.
entry_differences_of(model, entry) := with_unknown(
	[d |
		some d in [
			pipeline_difference(model, entry),
			architecture_difference(model, entry),
			quantization_difference(model, entry),
			format_difference(model, entry),
			framework_difference(model, entry),
		]
		d != ""
	],
	entry,
)

# An entry without modelFormat never matches; when nothing else differs OME
# calls it an unknown mismatch.
with_unknown(found, entry) := ["unknown mismatch"] if {
	count(found) == 0
	not entry.modelFormat
} else := found

# Spec 6: the architecture, then the quantization (see pair_text).
architecture_difference(model, entry) := pair_text(object.get(model, "modelArchitecture", null), object.get(entry, "modelArchitecture", null), "architecture")

quantization_difference(model, entry) := pair_text(object.get(model, "quantization", null), object.get(entry, "quantization", null), "quantization")

# Spec 6: architecture and quantization: both unset, or both set and equal.
# pair_text compares the model's value m with the entry's value e (null
# when unset). The branches exclude one another; the usual cases go first.
pair_text(m, e, what) := "" if m == e
else := concat("", [what, " mismatch (model=", m, ", runtime=", e, ")"]) if {
	m != null
	e != null
} else := concat("", ["model has no ", what, " but runtime requires ", e]) if {
	m == null
} else := concat("", ["model has ", what, " ", m, " but runtime has no ", what, " requirement"])

# Spec 5: names are compared exactly; then the versions.
format_difference(model, entry) := "" if {
	not entry.modelFormat
} else := concat("", ["format name mismatch (model=", model_name, ", runtime=", entry_name, ")"]) if {
	model_name := object.get(object.get(model, "modelFormat", {}), "name", "")
	entry_name := object.get(entry.modelFormat, "name", "")
	model_name != entry_name
} else := version_difference("format", entry.modelFormat, object.get(model, "modelFormat", {}))

# The branches exclude one another: both set with the same name, the usual
# case, goes first.
framework_difference(model, entry) := version_difference("framework", entry.modelFramework, model.modelFramework) if {
	object.get(model.modelFramework, "name", "") == object.get(entry.modelFramework, "name", "")
} else := concat("", ["framework name mismatch (model=", model_name, ", runtime=", entry_name, ")"]) if {
	model_name := object.get(model.modelFramework, "name", "")
	entry_name := object.get(entry.modelFramework, "name", "")
	model_name != entry_name
} else := "" if {
	not model.modelFramework
	not entry.modelFramework
} else := concat("", ["model has no framework but runtime requires ", object.get(entry.modelFramework, "name", "")]) if {
	not model.modelFramework
} else := concat("", ["model has framework ", object.get(model.modelFramework, "name", ""), " but runtime has no framework requirement"])

# Spec 2: a version is set when the field is present, whatever its value.
# The branches exclude one another: both set, the usual case, goes first.
version_difference(what, want, got) := "" if {
	version_accepted(object.get(want, "operator", "Equal"), want.version, got.version)
} else := concat("", [what, " version mismatch (model=", got.version, ", runtime=", want.version, ")"]) if {
	want.version
	got.version
} else := "" if {
	not want.version
	not got.version
} else := concat("", ["model has no ", what, " version but runtime requires ", want.version]) if {
	not got.version
} else := concat("", ["model has ", what, " version but runtime has no version requirement"])

# Spec 4.1: the entry's operator compares the entry's version (left) with the
# model's (right), when OME reads both (version_parses, written out: this
# runs for every entry of every runtime).
version_accepted(op, entry_version, model_version) if {
	ome.version.is_valid(entry_version)
	ome.version.is_valid(model_version)
	operator_accepts(op, entry_version, model_version)
}

# Spec 3: the versions OME reads: one to three numbers with an optional v
# (ome.version.is_valid). version_problem says why OME does not read a
# version ("" when it does).
version_parses(v) if ome.version.is_valid(v)

version_problem(v) := ome.version.problem(v)

# Step 2: Equal, or a suffix on either side, means equality. Steps 3 and 4
# otherwise: the same number of parts and the v on both or neither, then
# the operator; an operator that is none of the three means equality. (The
# branches are in else order, so that each is tried only when the one
# before it did not apply.)
operator_accepts(op, a, b) := ome.version.equal(a, b) if {
	op == "Equal"
} else := ome.version.equal(a, b) if {
	ome.version.has_suffix(a)
} else := ome.version.equal(a, b) if {
	ome.version.has_suffix(b)
} else if {
	ome.version.parts(a) == ome.version.parts(b)
	ome.version.has_v(a) == ome.version.has_v(b)
	ordered(op, ome.version.compare(a, b))
}

ordered("GreaterThan", c) if c > 0

ordered("GreaterThanOrEqual", c) if c >= 0

ordered(op, 0) if not op in {"GreaterThan", "GreaterThanOrEqual"}

# Spec 6: the diffusion pipeline; only the first difference is reported.
pipeline_difference(model, entry) := "" if {
	not entry.diffusionPipeline
} else := "diffusion pipeline required by runtime but not specified in model" if {
	not model.diffusionPipeline
} else := first([d |
	some d in pipeline_checks(model.diffusionPipeline, entry.diffusionPipeline)
	d != ""
])

pipeline_checks(got, want) := array.concat(
	array.concat([class_check(got, want)], [component_check(c, object.get(got, c, {}), want[c], missing_component(c, got)) |
		some c in ["scheduler", "textEncoder", "tokenizer", "transformer", "vae"]
		want[c]
	]),
	additional_checks(got, want),
)

class_check(got, want) := concat("", ["pipeline class mismatch (model=", object.get(got, "className", "<nil>"), ", runtime=", want.className, ")"]) if {
	want.className
	object.get(got, "className", null) != want.className
} else := ""

missing_component(c, got) := "" if got[c]
else := concat("", ["component ", c, " required by runtime but not specified in model"])

# Additional components are visited in sorted key order, so the first
# difference is always the same.
additional_checks(got, want) := [] if {
	count(object.get(want, "additionalComponents", {})) == 0
} else := ["diffusion pipeline missing required additional components"] if {
	count(object.get(got, "additionalComponents", {})) == 0
} else := [component_check(k, object.get(got.additionalComponents, k, {}), want.additionalComponents[k], missing_additional(k, got)) |
	some k in sort(object.keys(want.additionalComponents))
]

missing_additional(k, got) := "" if got.additionalComponents[k]
else := concat("", ["diffusion component ", k, " missing in model"])

component_check(name, got, want, missing) := missing if missing != ""
else := concat("", [name, " library mismatch (model=", object.get(got, "library", ""), ", runtime=", want.library, ")"]) if {
	object.get(want, "library", "") != ""
	want.library != object.get(got, "library", "")
} else := concat("", [name, " type mismatch (model=", object.get(got, "type", ""), ", runtime=", want.type, ")"]) if {
	object.get(want, "type", "") != ""
	want.type != object.get(got, "type", "")
} else := ""

# Spec 9: a range with one bound missing leaves that side unbounded.
size_failure(model, runtime) := "" if {
	not model.modelParameterSize
} else := "" if {
	not runtime.modelSizeRange
} else := "" if {
	not below_min(model.modelParameterSize, runtime.modelSizeRange)
	not above_max(model.modelParameterSize, runtime.modelSizeRange)
} else := concat("", [
	"model size ", model.modelParameterSize, " is outside supported range [",
	object.get(runtime.modelSizeRange, "min", ""), ", ",
	object.get(runtime.modelSizeRange, "max", ""), "]",
])

below_min(size, range) if ome.size.compare(size, range.min) < 0

above_max(size, range) if ome.size.compare(size, range.max) > 0

# Spec 9: the deployment modes OME knows (the annotation
# ome.io/deploymentMode), in the order its messages name them.
deployment_modes := ["RawDeployment", "MultiNodeRayVLLM", "MultiNode", "VirtualDeployment"]

# Spec 7: mt:<format name>, then each that is set: format version,
# architecture, quantization, framework name and framework version.
label(model) := concat(":", array.concat(
	[concat("", ["mt:", object.get(object.get(model, "modelFormat", {}), "name", "")])],
	[v |
		some v in [
			object.get(object.get(model, "modelFormat", {}), "version", null),
			object.get(model, "modelArchitecture", null),
			object.get(model, "quantization", null),
			framework_name(model),
			object.get(object.get(model, "modelFramework", {}), "version", null),
		]
		v != null
	],
))

framework_name(model) := object.get(model.modelFramework, "name", "") if model.modelFramework
else := null

first(list) := list[0] if count(list) > 0
else := ""

# Spec 9, selection: a runtime's score is the best score of its entries that
# do not say autoSelect: false (0 when there is none).
runtime_score(model, runtime) := max(array.concat([0], [entry_score(model, e) |
	some e in object.get(runtime, "supportedModelFormats", [])
	object.get(e, "autoSelect", true) != false
]))

# Automatic selection needs at least one entry with autoSelect: true.
auto_selectable(runtime) if {
	some e in object.get(runtime, "supportedModelFormats", [])
	e.autoSelect == true
}

# An entry scores 0 when a name or a set pair of versions disagree, or when
# exactly one side has a framework; otherwise format weight x priority, plus
# framework weight x priority when both have a framework. Presence of
# versions, architecture, quantization and pipeline do not count.
entry_score(model, entry) := 0 if {
	not score_agrees(model, entry)
} else := format_score(entry) + framework_score(model, entry)

score_agrees(model, entry) if {
	format_agrees(model, entry)
	framework_agrees(model, entry)
}

format_agrees(_, entry) if not entry.modelFormat

format_agrees(model, entry) if {
	model_format := object.get(model, "modelFormat", {})
	object.get(entry.modelFormat, "name", "") == object.get(model_format, "name", "")
	set_versions_agree(entry.modelFormat, model_format)
}

framework_agrees(model, entry) if {
	not model.modelFramework
	not entry.modelFramework
}

framework_agrees(model, entry) if {
	object.get(entry.modelFramework, "name", "") == object.get(model.modelFramework, "name", "")
	set_versions_agree(entry.modelFramework, model.modelFramework)
}

set_versions_agree(want, got) if not want.version

set_versions_agree(want, got) if not got.version

set_versions_agree(want, got) if version_accepted(object.get(want, "operator", "Equal"), want.version, got.version)

format_score(entry) := weight(entry.modelFormat, 10) * priority(entry) if entry.modelFormat
else := 0

framework_score(model, entry) := weight(entry.modelFramework, 5) * priority(entry) if {
	model.modelFramework
	entry.modelFramework
} else := 0

# The API server stores an absent weight as 1; OME's own code turns an
# explicit 0 into its default (10 for a format, 5 for a framework).
weight(spec, default_weight) := 1 if not spec.weight
else := default_weight if spec.weight == 0
else := spec.weight

priority(entry) := object.get(entry, "priority", 1)

# Spec 9: whether OME reads a model size as the number it writes: once one
# last T, B or M is off, Go's strconv.ParseFloat takes the rest
# (ome.go.is_float). Any other text OME reads as 0 (8b, 7 B, 7G, seven,
# "", a number beyond the largest float64).
size_parses(s) if ome.go.is_float(size_number(s))

size_number(s) := trim_suffix(s, "T") if endswith(s, "T")
else := trim_suffix(s, "B") if endswith(s, "B")
else := trim_suffix(s, "M") if endswith(s, "M")
else := s

