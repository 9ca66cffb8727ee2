# OME runtime matching, in Rego.
#
# Input: input.model, a model's spec; input.runtimes, a list of runtime specs;
# input.acceleratorClasses, the classes an InferenceService asks for (absent
# or [] in `evaluate match`); input.batch, optional, data.ome.match.batch
# of the runtimes and classes, computed before by an engine that evaluates
# many models against them (results then needs no input.runtimes).
# data.ome.match.results is one verdict per runtime, in order: {"compatible",
# "reason", "entries"}, where each entry is {"index", "matched",
# "differences"} and reason is OME's text.
# Selection's scores are in select.rego.
#
# One query evaluates a model against many runtimes: what depends only on
# the model (its label) is computed once, what depends only on the runtimes
# once (batch), each check once per distinct value of the field it reads,
# and each distinct entry, list of entries and size range once.
#
# A field is set when it is present (the loader drops YAML nulls), and the
# fields tested here hold strings or objects, never false, so `x.f` tests
# presence and `not x.f` absence.
#
# The ome.version.* and ome.size.* functions are the Go builtins (see
# `evaluate policies --functions`); everything else is here.
package ome.match

model := object.get(input, "model", {})

classes := object.get(input, "acceleratorClasses", [])

# runtime_result evaluates one model (spec) against one runtime (spec), as
# `evaluate match` does: no InferenceService, so no accelerator classes.
runtime_result(m, runtime) := r[0] if {
	r := results with input as {"model": m, "runtimes": [runtime]}
}

model_label := label(model)

# model_fields are the fields of input.model that results reads: models
# that agree on them get the same verdicts. An engine may evaluate a model
# with these fields alone and give its verdicts to every model that agrees.
model_fields := ["diffusionPipeline", "modelArchitecture", "modelFormat", "modelFramework", "modelParameterSize", "quantization"]

# A query evaluates one model against a batch of runtimes. What depends
# only on the runtimes (and the accelerator classes) is batch, computed once
# per query:
#   - values: for each field the entry checks read, its distinct values;
#   - entries: the batch's distinct entries (the fields the checks read),
#     each as the keys of its values, in checked_fields order;
#   - lists: the distinct lists of entries of the runtimes; single, those
#     with one entry (to its entry's key), and multi, the others;
#   - ranges: the distinct modelSizeRange values of the runtimes;
#   - runtimes: for each runtime of input.runtimes, the keys of its list of
#     entries and of its range, and gate: the runtime's reason when it fails
#     before its entries are looked at (absent when it does not).
# Everything is keyed by its JSON text ("null" for a field that is not
# set): an object as an object key is not always found again. An engine
# that evaluates many models against the same runtimes may compute batch
# once (data.ome.match.batch) and give it back as input.batch.
checked_fields := ["diffusionPipeline", "modelArchitecture", "quantization", "modelFormat", "modelFramework"]

batch := input.batch if {
	input.batch
} else := runtimes_batch

runtimes_batch := {
	"values": values,
	"entries": entries,
	"lists": {json.marshal(l): l | some l in lists},
	"single": {json.marshal(l): l[0] | some l in lists; count(l) == 1},
	"multi": {json.marshal(l): l | some l in lists; count(l) != 1},
	"ranges": {json.marshal(x): x | some r in input.runtimes; x := object.get(r, "modelSizeRange", null)},
	"runtimes": [object.union(
		{
			"list": json.marshal(lists[i]),
			"range": json.marshal(object.get(r, "modelSizeRange", null)),
		},
		{"gate": g | g := runtime_gate(r); g != ""},
	) |
		some i, r in input.runtimes
	],
} if {
	lists := [[json.marshal(object.filter(e, checked_fields)) |
		some e in object.get(r, "supportedModelFormats", [])
	] |
		some r in input.runtimes
	]
	distinct := {object.filter(e, checked_fields) |
		some r in input.runtimes
		some e in object.get(r, "supportedModelFormats", [])
	}
	entries := {json.marshal(e): [json.marshal(object.get(e, f, null)) | some f in checked_fields] | some e in distinct}
	values := {f: {json.marshal(v): v | some e in distinct; v := object.get(e, f, null)} | some f in checked_fields}
}

# Spec 9: the runtime's checks in OME's order: disabled, accelerator
# classes, the entries, the model size. The first two do not depend on the
# model: runtime_gate is the reason when one of them fails, "" otherwise.
runtime_gate(runtime) := "runtime is disabled" if {
	runtime.disabled == true
} else := "runtime does not support the required accelerator class" if {
	# Every class asked for must be listed; a runtime without
	# acceleratorRequirements supports none.
	some c in classes
	not c in object.get(object.get(runtime, "acceleratorRequirements", {}), "acceleratorClasses", [])
} else := ""

only(_, null) := {}

only(field, v) := {field: v} if v != null

# Each check of an entry reads one field of the model and one field of the
# entry, so it runs once per distinct value of its entry field; a table
# holds what it finds, [] or [text] (object.get({"": []}, t, [t]) is []
# when t is ""), and each distinct entry is put together from those.
#
# table_fields names each table and the one model field it reads. An engine
# that evaluates many models against one batch may evaluate a table once
# per distinct value of that field (with input.model holding that field
# alone, or nothing when the model has none) and give the tables back as
# input.tables: a table given there is used as it is.
table_fields := {
	"pipeline_found": "diffusionPipeline",
	"architecture_found": "modelArchitecture",
	"quantization_found": "quantization",
	"format_found": "modelFormat",
	"framework_found": "modelFramework",
}

pipeline_found := input.tables.pipeline_found if {
	input.tables.pipeline_found
} else := {k: object.get({"": []}, t, [t]) |
	some k, v in batch.values.diffusionPipeline
	t := pipeline_difference(model, only("diffusionPipeline", v))
}

architecture_found := input.tables.architecture_found if {
	input.tables.architecture_found
} else := {k: object.get({"": []}, t, [t]) |
	m := object.get(model, "modelArchitecture", null)
	some k, v in batch.values.modelArchitecture
	t := pair_text(m, v, "architecture")
}

quantization_found := input.tables.quantization_found if {
	input.tables.quantization_found
} else := {k: object.get({"": []}, t, [t]) |
	m := object.get(model, "quantization", null)
	some k, v in batch.values.quantization
	t := pair_text(m, v, "quantization")
}

format_found := input.tables.format_found if {
	input.tables.format_found
} else := {k: object.get({"": []}, t, [t]) |
	some k, v in batch.values.modelFormat
	t := format_difference(model, only("modelFormat", v))
}

framework_found := input.tables.framework_found if {
	input.tables.framework_found
} else := {k: object.get({"": []}, t, [t]) |
	some k, v in batch.values.modelFramework
	t := framework_difference(model, only("modelFramework", v))
}

# Each distinct entry's differences, its checks in OME's order (pipeline,
# architecture, quantization, format, framework):
# the entry matched when there are none. An entry without modelFormat never
# matches (see with_unknown).
entry_differences := object.union(found, unknown) if {
	# The tables, bound once: a lookup in a local value is cheaper.
	p := pipeline_found
	a := architecture_found
	q := quantization_found
	f := format_found
	fw := framework_found
	found := {k: array.concat(array.concat(array.concat(array.concat(p[x[0]], a[x[1]]), q[x[2]]), f[x[3]]), fw[x[4]]) |
		some k, x in batch.entries
	}
	unknown := {k: with_unknown(found[k], json.unmarshal(k)) |
		some k, x in batch.entries
		x[3] == "null"
	}
}

# Each distinct list of entries' failure: "" when one of its entries
# matched, else the reason, which gives each entry's differences. Most lists
# have one entry, whose failure in a list of its own is entry_failures'.
list_failures := object.union(single, multi_failures) if {
	ef := entry_failures
	single := {lk: ef[k] | some lk, k in batch.single}
}

# What each entry's failure would be in a list of its own ("" when it
# matched): object.get({0: a}, n, b) is a when n is 0, b otherwise.
entry_failures := {k: object.get({0: ""}, count(d), concat("", [prefix, concat(", ", d)])) |
	prefix := failure_prefix
	some k, d in entry_differences
}

failure_prefix := concat("", ["model format '", model_label, "' not in supported formats: "])

# The lists without exactly one entry. An entry that did not match has
# differences, so the details are "" only for a list without entries:
# object.get({"": b}, a, a) is a, or b when a is "".
multi_failures := object.union(failing, passing) if {
	ed := entry_differences
	passing := {lk: "" | some lk, keys in batch.multi; some k in keys; count(ed[k]) == 0}
	prefix := failure_prefix
	none := {"": "no supported formats defined"}
	failing := {lk: concat("", [prefix, object.get(none, d, d)]) |
		some lk, keys in batch.multi
		not passing[lk]
		d := concat("; ", [concat(", ", ed[k]) | some k in keys])
	}
}

# Each runtime's reason, in order: its gate when it has one, else its list's
# failure when it is not "", else its range's size failure:
# object.get({"": b}, a, a) is a, or b when a is "". "" is compatible.
# A model without a size passes every range (spec 9).
reasons := [object.get(x, "gate", lf[x.list]) |
	lf := list_failures
	some x in batch.runtimes
] if {
	not model.modelParameterSize
} else := [reason |
	lf := list_failures
	sf := size_failures
	some x in batch.runtimes
	f := lf[x.list]
	reason := object.get(x, "gate", object.get(sf[x.range], f, f))
]

# The model size check of each distinct range, as {"": text}: see reasons.
size_failures := {k: {"": size_failure(model, only("modelSizeRange", x))} | some k, x in batch.ranges}

# verdicts is results in parts, for an engine that keeps batch: each
# distinct entry's differences (entry_differences) and each runtime's
# reason. A runtime's entries are its list's entries (batch.lists,
# batch.runtimes[i].list), each with its index in the list.
verdicts := {"entries": entry_differences, "reasons": reasons}

# Each distinct list's entries, each with its index in the list.
list_entries := {lk: entries |
	ed := entry_differences
	some lk, keys in batch.lists
	entries := [{"index": j, "matched": count(d) == 0, "differences": d} |
		some j, k in keys
		d := ed[k]
	]
}

results := [{"compatible": reason == "", "reason": reason, "entries": le[x.list]} |
	le := list_entries
	rs := reasons
	some i, x in batch.runtimes
	reason := rs[i]
]

first(list) := list[0] if count(list) > 0
else := ""

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

# An entry without modelFormat never matches; when nothing else differs OME
# calls it an unknown mismatch.
with_unknown(found, entry) := ["unknown mismatch"] if {
	count(found) == 0
	not entry.modelFormat
} else := found

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
# model's (right).
version_accepted(op, entry_version, model_version) if {
	ome.version.is_valid(entry_version)
	ome.version.is_valid(model_version)
	operator_accepts(op, entry_version, model_version)
}

# Step 2: a suffix on either side, or Equal, means equality.
operator_accepts(op, a, b) if {
	equality_forced(op, a, b)
	ome.version.equal(a, b)
}

# Steps 3 and 4: the same number of parts and the v on both or neither, then
# the operator; an operator that is none of the three means equality.
operator_accepts(op, a, b) if {
	not equality_forced(op, a, b)
	ome.version.parts(a) == ome.version.parts(b)
	ome.version.has_v(a) == ome.version.has_v(b)
	ordered(op, ome.version.compare(a, b))
}

equality_forced("Equal", _, _)

equality_forced(_, a, _) if ome.version.has_suffix(a)

equality_forced(_, _, b) if ome.version.has_suffix(b)

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
