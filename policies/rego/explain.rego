# Explanations of a verdict, in Rego: the same explanations as
# policies/cel/explain.yaml, byte for byte. The verdict itself and OME's
# reason come from the match policies (match.rego), unchanged; this policy
# only says why, in words, and how to fix each failing check.
#
# data.ome.explain.result, with input {"model", "runtime"} (the two specs),
# is {"runtime": {"checks", "notes", "advice", "quotesEntries",
# "reasonRule"}, "entries": [checks, ...]}: the runtime's own checks
# (disabled, size), notes on how OME will use the runtime, advice when the
# model is not accepted, whether OME's reason quotes each entry's
# differences, the release's rule for its reason where a later release words
# it otherwise, and for each entry of spec.supportedModelFormats its five
# checks in OME's order: pipeline, architecture, quantization, format,
# framework.
#
# A check is {"check", "passed", "summary", "details", "fix"}, "rule" where
# the release decides it by a rule a later release does not have, and
# "versions" for a format or framework check that got to the versions; see
# explain.yaml for the fields.
package ome.explain

import data.ome.match

result := {
	"runtime": {
		"checks": [disabled_check(input.runtime), size_check(input.model, input.runtime)],
		"notes": notes(input.runtime),
		"advice": advice(input.model, input.runtime),
		"quotesEntries": quotes_entries(input.model, input.runtime),
		"reasonRule": reason_rule,
	},
	"entries": [entry_checks(input.model, e) | some e in object.get(input.runtime, "supportedModelFormats", [])],
}

has(o, key) if _ = o[key]

check(name, passed, summary, details, fix) := {
	"check": name, "passed": passed, "summary": summary,
	"details": details, "fix": fix,
}

entry_checks(model, entry) := [
	pipeline_check(model, entry),
	pair_check(model, entry, "architecture", "modelArchitecture"),
	pair_check(model, entry, "quantization", "quantization"),
	format_check(model, entry),
	framework_check(model, entry),
]

# Spec 6: the pipeline difference, as the match policies give it.
pipeline_check(model, entry) := check("pipeline", true, "the entry asks for no diffusion pipeline", [], "") if {
	not has(entry, "diffusionPipeline")
} else := check("pipeline", true, "the model's diffusion pipeline has what the entry asks for", [], "") if {
	match.pipeline_difference(model, entry) == ""
} else := check(
	"pipeline", false, match.pipeline_difference(model, entry), [],
	"give the model the pipeline class and components the entry's diffusionPipeline asks for, or ask for less in the entry",
)

pair_noun("architecture") := "an architecture"

pair_noun("quantization") := "a quantization"

from_config("modelArchitecture") := " (OME reads it from config.json's architectures)"

from_config("quantization") := ""

# Spec 6: architecture and quantization: both unset, or both set and equal.
pair_check(model, entry, what, key) := check(what, true, concat("", ["neither the model nor the entry sets ", pair_noun(what)]), [], "") if {
	not has(model, key)
	not has(entry, key)
} else := check(what, false, concat("", ["the entry requires ", entry[key], "; the model sets none"]), [], concat("", [
	"set the model's ", key, " to ", entry[key], from_config(key), ", or remove ", key, " from the entry",
])) if {
	not has(model, key)
} else := check(
	what, false,
	concat("", ["the model sets ", model[key], "; the entry sets none, so it accepts only models without one"]), [],
	concat("", ["add ", key, ": ", model[key], " to the entry"]),
) if {
	not has(entry, key)
} else := check(what, true, concat("", ["both ", model[key]]), [], "") if {
	model[key] == entry[key]
} else := check(
	what, false,
	concat("", ["model ", model[key], ", entry ", entry[key], " (compared exactly)"]), [],
	concat("", ["set the entry's ", key, " to ", model[key], ", or use a runtime for ", model[key]]),
)

name_of(block) := object.get(block, "name", "") if is_object(block)
else := ""

# A version as written, parsed; null when the block sets none.
parsed(block) := null if {
	not has(block, "version")
} else := {
	"text": t, "valid": true, "problem": "", "v": p.v, "parts": p.parts,
	"numbers": array.slice(split(split(split(strip_v(t, p.v), "+")[0], "-")[0], "."), 0, p.parts),
	"dev": p.dev, "pre": p.pre, "build": p.build,
} if {
	t := block.version
	match.version_parses(t)
	p := ome.version.parse(t)
} else := {
	"text": block.version, "valid": false, "problem": match.version_problem(block.version), "v": false, "parts": 0,
	"numbers": [], "dev": [], "pre": [], "build": [],
}

strip_v(t, true) := substring(t, 1, -1)

strip_v(t, false) := t

# A version in words: "3 numbers (4.45.0), no v, dev suffix dev0".
described(p) := concat("", ["does not parse: ", p.problem, ", so it never matches"]) if {
	not p.valid
} else := concat("", [
	format_int(p.parts, 10), numbers_noun(p.parts), " (", concat(".", p.numbers), "), ",
	v_text(p.v), ", ", suffix_text(p),
])

numbers_noun(1) := " number"

numbers_noun(n) := " numbers" if n != 1

v_text(true) := "with a v"

v_text(false) := "no v"

suffix_text(p) := "no suffix" if {
	count(p.dev) + count(p.pre) + count(p.build) == 0
} else := concat(", ", [x |
	some x in [
		prefixed("dev suffix ", p.dev),
		prefixed("pre-release ", p.pre),
		prefixed("build ", p.build),
	]
	x != ""
])

prefixed(_, parts) := "" if count(parts) == 0

prefixed(label, parts) := concat("", [label, concat(".", parts)]) if count(parts) > 0

format_check(model, entry) := check("format", false, "the entry has no modelFormat, so it never matches", [], concat("", [
	"add modelFormat with the model's format name to the entry, such as modelFormat: {name: ",
	example_name(name_of(object.get(model, "modelFormat", {}))), "}",
])) if {
	not has(entry, "modelFormat")
} else := names_differ("format", object.get(model, "modelFormat", {}), entry.modelFormat) if {
	name_of(object.get(model, "modelFormat", {})) != name_of(entry.modelFormat)
} else := version_check("format", "modelFormat", object.get(model, "modelFormat", {}), entry.modelFormat)

example_name("") := "safetensors"

example_name(n) := n if n != ""

framework_check(model, entry) := check("framework", true, "neither the model nor the entry has a framework", [], "") if {
	not has(model, "modelFramework")
	not has(entry, "modelFramework")
} else := check(
	"framework", false,
	concat("", ["the entry requires framework ", name_of(entry.modelFramework), "; the model has none"]),
	["a framework that only one side has never matches"],
	concat("", [
		"give the model a modelFramework (name ", name_of(entry.modelFramework),
		` and its version), or let OME read it from the model's config.json (it does unless ome.oracle.com/skip-config-parsing is "true")`,
	]),
) if {
	not has(model, "modelFramework")
} else := check(
	"framework", false,
	concat("", ["the model has framework ", name_of(model.modelFramework), "; the entry has none"]),
	["a framework that only one side has never matches"],
	concat("", ["add modelFramework: {name: ", name_of(model.modelFramework), "} to the entry (the API requires one on every entry)"]),
) if {
	not has(entry, "modelFramework")
} else := names_differ("framework", model.modelFramework, entry.modelFramework) if {
	name_of(model.modelFramework) != name_of(entry.modelFramework)
} else := version_check("framework", "modelFramework", model.modelFramework, entry.modelFramework)

names_differ(what, m, e) := check(
	what, false,
	concat("", ["names differ: model ", name_of(m), ", entry ", name_of(e), case_note(name_of(m), name_of(e))]), [],
	concat("", [
		"spell the ", what, " name the same on both sides: set the entry's ", block_key(what), ".name to ",
		name_of(m), ", or use a runtime for it",
	]),
)

block_key("format") := "modelFormat"

block_key("framework") := "modelFramework"

case_note(a, b) := " (only in case: names are compared exactly)" if lower_ascii(a) == lower_ascii(b)
else := ""

# CEL's lowerAscii: only A-Z change.
lower_ascii(s) := concat("", [lower_char(c) | some c in split(s, "")])

lower_char(c) := lower(c) if regex.match(`^[A-Z]$`, c)
else := c

operator_label(entry_block) := entry_block.operator if has(entry_block, "operator")
else := "Equal (no operator)"

operator_line(entry_block) := "operator: none, so Equal" if {
	not has(entry_block, "operator")
} else := concat("", ["operator: ", entry_block.operator]) if {
	entry_block.operator in {"Equal", "GreaterThan", "GreaterThanOrEqual"}
} else := concat("", [`operator: "`, entry_block.operator, `", which is not one OME knows`])

version_check(what, key, m, e) := object.union(c, {"versions": {k: v |
	some k, v in {"operator": object.get(e, "operator", null), "model": parsed(m), "entry": parsed(e)}
	v != null
}}) if {
	c := version_check_body(what, key, m, e, parsed(m), parsed(e))
}

version_check_body(what, _, _, e, null, null) := check(
	what, true, concat("", ["names match (", name_of(e), "); neither side sets a version"]), [], "",
)

version_check_body(what, key, _, e, null, ev) := check(
	what, false,
	concat("", ["names match (", name_of(e), "); the entry requires version ", ev.text, ", the model sets none"]),
	["a version that only one side sets never matches"],
	concat("", [
		"set the model's ", key, `.version yourself (OME read none from its files), such as version: "`, ev.text,
		`", or remove the version from the entry to accept models without one`,
	]),
) if ev != null

version_check_body(what, key, _, e, mv, null) := check(
	what, false,
	concat("", ["names match (", name_of(e), "); the model sets version ", mv.text, ", the entry sets none"]),
	["a version that only one side sets never matches"],
	concat("", [
		"give the entry's ", key, " a version that accepts ", mv.text, `, such as version: "`, mv.text,
		`", or remove the version from the model`,
	]),
) if mv != null

version_check_body(what, _, _, e, mv, ev) := object.union(check(
	what, false,
	concat("", ["names match (", name_of(e), "); ", invalid_summary(mv, ev)]),
	version_details(e, mv, ev),
	invalid_fix(mv, ev),
), {"rule": version_rule(mv, ev)}) if {
	mv != null
	ev != null
	not both_valid(mv, ev)
}

version_check_body(what, _, _, e, mv, ev) := check(
	what, r.ok,
	concat("", ["names match (", name_of(e), "); entry ", ev.text, " ", operator_label(e), accepts_word(r.ok), " model ", mv.text]),
	array.concat(version_details(e, mv, ev), [concat("", [accepts_text(e, ev), "; ", r.why])]),
	r.fix,
) if {
	mv != null
	ev != null
	both_valid(mv, ev)
	r := operator_result(e, mv, ev)
}

both_valid(mv, ev) if {
	mv.valid
	ev.valid
}

invalid_summary(mv, ev) := "neither version parses" if {
	not ev.valid
	not mv.valid
} else := "the entry's version does not parse" if {
	not ev.valid
} else := "the model's version does not parse"

invalid_fix(mv, ev) := concat("", ["fix both versions, the entry's ", ev.text, " and the model's ", mv.text, ": ", ev.problem]) if {
	not ev.valid
	not mv.valid
	ev.problem == mv.problem
} else := concat("", ["fix both versions: the entry's ", ev.text, ": ", ev.problem, "; the model's ", mv.text, ": ", mv.problem]) if {
	not ev.valid
	not mv.valid
} else := concat("", ["fix the entry's version ", ev.text, ": ", ev.problem]) if {
	not ev.valid
} else := concat("", ["fix the model's version ", mv.text, ": ", mv.problem])

# The rule of this release that refuses a version a later release reads:
# "" when there is none, else the rule and the versions it refuses.
version_rule(mv, ev) := "" if {
	count(refused_versions(mv, ev)) == 0
} else := concat("", ["parses only versions of three numbers, without a v: ", concat(", ", refused_versions(mv, ev))])

refused_versions(mv, ev) := [concat(" ", [x[0], x[1].text]) |
	some x in [["model", mv], ["entry", ev]]
	not x[1].valid
	ome.version.is_valid(x[1].text)
]

accepts_word(true) := " accepts"

accepts_word(false) := " refuses"

version_details(e, mv, ev) := [
	concat("", ["model version ", mv.text, ": ", described(mv)]),
	concat("", ["entry version ", ev.text, ": ", described(ev)]),
	operator_line(e),
]

shape(ev) := concat("", [format_int(ev.parts, 10), "-part versions ", v_shape(ev.v)])

v_shape(true) := "with a v and no suffix"

v_shape(false) := "without v or suffix"

# What the entry's operator accepts, for this entry version.
accepts_text(e, ev) := concat("", [
	"entry ", ev.text, " ", operator_label(e),
	" has a suffix, so every operator means equality: it accepts only a version equal to ", ev.text,
]) if {
	ome.version.has_suffix(ev.text)
} else := concat("", [
	"entry ", ev.text, " ", operator_label(e), " accepts a version equal to ", ev.text, equal_hint,
]) if {
	object.get(e, "operator", "Equal") == "Equal"
} else := concat("", ["entry ", ev.text, " GreaterThan accepts ", shape(ev), " below ", ev.text]) if {
	e.operator == "GreaterThan"
} else := concat("", ["entry ", ev.text, " GreaterThanOrEqual accepts ", shape(ev), " up to ", ev.text]) if {
	e.operator == "GreaterThanOrEqual"
} else := concat("", ["entry ", ev.text, ` with operator "`, e.operator, `" accepts only `, shape(ev), " equal to ", ev.text])

# How this release compares versions for equality, beyond their numbers.
equal_hint := " (missing numbers count as 0; the v does not count)"

numbers_noun_count(n) := concat("", [format_int(n, 10), numbers_noun(n)])

# Whether the operator accepts the model's version, why, and how to fix it.
operator_result(e, mv, ev) := r if {
	object.get(e, "operator", "Equal") == "Equal"
	r := equality_result(mv, ev, false)
} else := r if {
	ome.version.has_suffix(ev.text)
	r := equality_result(mv, ev, true)
} else := {"ok": true, "why": concat("", ["the model's ", mv.text, " has a suffix, so only an equal version would match, and it is equal"]), "fix": ""} if {
	ome.version.has_suffix(mv.text)
	ome.version.equal(ev.text, mv.text)
} else := {
	"ok": false,
	"why": concat("", ["the model's ", mv.text, " has a suffix, so only an equal version would match"]),
	"fix": concat("", ["set the entry's version to ", mv.text, " to accept exactly this version (a suffix only ever matches an equal version)"]),
} if {
	ome.version.has_suffix(mv.text)
} else := {
	"ok": false,
	"why": concat("", ["the model's ", mv.text, " has ", numbers_noun_count(mv.parts), ", not ", format_int(ev.parts, 10)]),
	"fix": concat("", [
		"write both versions with the same number of numbers: the entry's as ", numbers_noun_count(mv.parts),
		", like the model's ", mv.text,
	]),
} if {
	ev.parts != mv.parts
} else := {"ok": false, "why": concat("", ["the ", v_mismatch(mv, ev)]), "fix": "write the v on both versions or on neither"} if {
	ev.v != mv.v
} else := ordering_result(e.operator, mv, ev, ome.version.compare(ev.text, mv.text))

equality_result(mv, ev, _) := {"ok": true, "why": concat("", ["the model's ", mv.text, " is equal"]), "fix": ""} if {
	ome.version.equal(ev.text, mv.text)
} else := {
	"ok": false,
	"why": concat("", ["the model's ", mv.text, " is not equal to ", ev.text]),
	"fix": concat("", [
		"set the entry's version to ", mv.text, ", or write it without a suffix (", v_prefix(ev.v), concat(".", ev.numbers),
		") and use GreaterThanOrEqual for an upper limit",
	]),
} if {
	ome.version.has_suffix(ev.text)
} else := {
	"ok": false,
	"why": concat("", ["the model's ", mv.text, " is not equal to ", ev.text]),
	"fix": concat("", [
		"set the entry's version to ", mv.text, ", or use GreaterThanOrEqual with a version at or above ", mv.text,
		" (it sets an upper limit)",
	]),
}

v_prefix(true) := "v"

v_prefix(false) := ""

v_mismatch(mv, ev) := concat("", ["model's ", mv.text, " has a v and the entry's does not"]) if mv.v
else := concat("", ["entry's ", ev.text, " has a v and the model's does not"])

ordering_result("GreaterThan", mv, ev, cmp) := {"ok": true, "why": concat("", ["the model's ", mv.text, " is below ", ev.text]), "fix": ""} if cmp > 0

ordering_result("GreaterThan", mv, ev, 0) := {
	"ok": false,
	"why": concat("", ["the model's ", mv.text, " is not below ", ev.text, ": GreaterThan sets an upper limit, not a lower one"]),
	"fix": concat("", ["use GreaterThanOrEqual to accept ", ev.text, " itself, or raise the entry's version"]),
}

ordering_result("GreaterThan", mv, ev, cmp) := {
	"ok": false,
	"why": concat("", ["the model's ", mv.text, " is above ", ev.text, ": GreaterThan sets an upper limit, not a lower one"]),
	"fix": concat("", ["raise the entry's version above ", mv.text, " (GreaterThan is an upper limit)"]),
} if cmp < 0

ordering_result("GreaterThanOrEqual", mv, ev, cmp) := {"ok": true, "why": concat("", ["the model's ", mv.text, below_or_equal(cmp, ev)]), "fix": ""} if cmp >= 0

ordering_result("GreaterThanOrEqual", mv, ev, cmp) := {
	"ok": false,
	"why": concat("", ["the model's ", mv.text, " is above ", ev.text, ": GreaterThanOrEqual sets an upper limit, not a lower one"]),
	"fix": concat("", ["raise the entry's version to ", mv.text, " or above (GreaterThanOrEqual is an upper limit)"]),
} if cmp < 0

ordering_result(op, mv, ev, 0) := {"ok": true, "why": concat("", ["the model's ", mv.text, " is equal"]), "fix": ""} if {
	not op in {"GreaterThan", "GreaterThanOrEqual"}
	ome.version.equal(ev.text, mv.text)
}

ordering_result(op, mv, ev, _) := {
	"ok": false,
	"why": concat("", ["the model's ", mv.text, " is not equal to ", ev.text]),
	"fix": concat("", [`use Equal, GreaterThan or GreaterThanOrEqual; OME treats "`, op, `" as equality`]),
} if {
	not op in {"GreaterThan", "GreaterThanOrEqual"}
	not ome.version.equal(ev.text, mv.text)
}

below_or_equal(0, _) := " is equal"

below_or_equal(cmp, ev) := concat("", [" is below ", ev.text]) if cmp != 0

# The runtime's own checks.
disabled_check(runtime) := check("disabled", false, "spec.disabled is true: OME never uses this runtime", [], "set spec.disabled to false, or remove it") if {
	runtime.disabled == true
} else := check("disabled", true, "the runtime is not disabled", [], "")

# Spec 9: a range with one bound missing leaves that side unbounded. A
# size that OME reads as 0 (one last T, B or M off, then what Go's
# strconv.ParseFloat refuses) is said to.
size_check(model, runtime) := check("size", true, "no size check: the model has no modelParameterSize", [], "") if {
	not has(model, "modelParameterSize")
} else := check("size", true, "no size check: the runtime has no modelSizeRange", [], "") if {
	not has(runtime, "modelSizeRange")
} else := check(
	"size", ok,
	concat("", [
		"model size ", size, within_word(ok), "[", object.get(r, "min", "unbounded"), ", ", object.get(r, "max", "unbounded"), "]",
		zero_sizes_text(zero_sizes(size, r)),
	]),
	array.concat(one_bound_note(r), zero_sizes_note(zero_sizes(size, r))),
	size_fix(ok, size, zero_sizes(size, r)),
) if {
	r := runtime.modelSizeRange
	size := model.modelParameterSize
	ok := in_range(size, r)
}

in_range(size, r) := true if {
	not below_min(size, r)
	not above_max(size, r)
} else := false

below_min(size, r) if ome.size.compare(size, r.min) < 0

above_max(size, r) if ome.size.compare(size, r.max) > 0

within_word(true) := " is within "

within_word(false) := " is outside "

one_bound_note(r) := [] if {
	has(r, "min")
	has(r, "max")
} else := ["a range with only one bound makes OME's own code fail; this tool reads the missing bound as unbounded"]

# The sizes of the check that OME reads as 0, each once, in order: the
# model's, the min, the max.
zero_sizes(size, r) := [z |
	sizes := array.concat([size], [b | some k in ["min", "max"]; b := r[k]])
	some i, z in sizes
	not match.size_parses(z)
	not z in array.slice(sizes, 0, i)
]

zero_sizes_text([]) := ""

zero_sizes_text([z]) := concat("", [" (", z, " reads as 0)"])

zero_sizes_text(zs) := concat("", [" (", zero_sizes_list(zs), " read as 0)"]) if count(zs) > 1

zero_sizes_note([]) := []

zero_sizes_note(zs) := ["OME reads a size as a decimal number with an optional upper-case T, B or M, and any other text as 0 (evaluate lint: unparsed-size)"] if count(zs) > 0

size_fix(true, _, _) := ""

size_fix(false, size, []) := concat("", ["use a runtime whose modelSizeRange includes ", size, ", or widen this one's range"])

size_fix(false, _, zs) := concat("", ["write ", zero_sizes_list(zs), " as OME reads a size (evaluate lint gives the fix of each)"]) if count(zs) > 0

zero_sizes_list([z]) := z

zero_sizes_list(zs) := concat("", [concat(", ", array.slice(zs, 0, count(zs) - 1)), " and ", zs[count(zs) - 1]]) if count(zs) > 1

# OME's reason quotes each entry's differences when no entry matches and
# the runtime is not disabled.
quotes_entries(model, runtime) := false if {
	runtime.disabled == true
} else := false if {
	some e in match.runtime_result(model, runtime).entries
	e.matched
} else := true

# The release's rule for its reason where a later release words it
# otherwise.
reason_rule := ""

notes(runtime) := [] if {
	some e in object.get(runtime, "supportedModelFormats", [])
	e.autoSelect == true
} else := ["no entry has autoSelect: true, so OME picks this runtime only for an InferenceService that names it in spec.runtime.name"]

# When the model is not accepted: the ways out, as OME's documentation gives
# them.
advice(model, runtime) := [] if {
	match.runtime_result(model, runtime).compatible
} else := [
	"change the entry's version or operator so that it accepts the model's",
	"if OME read no version from the model's files, set it yourself in the model's spec",
	"naming the runtime in an InferenceService's spec.runtime.name skips the webhook's selection, but OME's controller still checks that the runtime supports the model",
]
