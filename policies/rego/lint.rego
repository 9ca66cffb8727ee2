# Lint rules for models and runtimes, in Rego: the same rules as
# policies/cel/lint.yaml, which must give the same findings, byte for byte.
#
# The contract with the engine:
#
# - data.ome.lint.findings, with input {"object", "raw"}: the findings for
#   one model or runtime. input.object is the whole object as read (wrong
#   types included); input.raw holds the source text of every scalar that
#   YAML did not read as a string, by field path ({"spec.modelFormat.version":
#   "1.0"}). Each finding is {"rule", "severity", "field", "message"}, where
#   severity is error, warning or info and field is a path into the object
#   ("spec.supportedModelFormats[0].modelFramework.version").
# - data.ome.lint.set_findings, with input {"objects", "crossCheck"}: the
#   findings about the input as a whole. Each of input.objects is
#   {"kind", "namespace", "name", "file", "line", "valid", "readsFiles",
#   "spec"}, in input order (namespace is "" for the cluster-scoped kinds, as Kubernetes
#   ignores theirs; spec holds at least each format and framework block's
#   name, and is whole with crossCheck; valid is false when a field that
#   matching reads has the wrong type, and such objects are left out of the
#   cross-check). Each finding also has "index", the object's position in
#   input.objects.
#
# The engine maps each field to a file and line, and sorts the findings by
# file, line and rule. Every message says what is wrong and how to fix it.
#
# ome.version.problem(s) says why s does not parse (a Go builtin); the
# cross-check runs the match policies through data.ome.match.runtime_result.
package ome.lint

import data.ome.match

# --- One object --------------------------------------------------------------

obj := input.object

# The source text of the object's non-string scalars, by field ({} when
# the input has none).
raw := r if {
	r := input.raw
} else := {}

kind := object.get(obj, "kind", "")

is_model if kind in {"BaseModel", "ClusterBaseModel"}

is_runtime if kind in {"ServingRuntime", "ClusterServingRuntime"}

is_service if kind == "InferenceService"

findings := array.concat(wrong_type_findings, findings_but_wrong_type) if {
	kind in {"BaseModel", "ClusterBaseModel", "ServingRuntime", "ClusterServingRuntime"}
} else := deployment_mode_findings if {
	is_service
} else := []

# Every finding of findings but wrong-type's, in the same order (the
# Gatekeeper template OMEVersionLint reads these: the API server refuses a
# wrong type first).
findings_but_wrong_type := array.concat(
	array.concat(
		array.concat(version_findings, array.concat(operator_findings, ignored_findings)),
		array.concat(weight_findings, autoselect_findings),
	),
	array.concat(
		array.concat(presence_findings, array.concat(size_range_findings, size_findings)),
		array.concat(unread_field_findings, deployment_mode_findings),
	),
)

# unread-field: a field that the OME release does not read (its CRD prunes
# it). The newest reads every field the rules read.
unread_field_findings := []

# unknown-deployment-mode: an ome.io/deploymentMode annotation that names
# no mode OME knows (match.deployment_modes), on a runtime's engineConfig or
# decoderConfig, or on an InferenceService's engine or decoder: OME reads
# none, so the runtime is never excluded for an InferenceService's mode, or
# the InferenceService's mode excludes no runtime.
deployment_mode_findings := [{
	"rule": "unknown-deployment-mode", "severity": "warning", "field": a.field,
	"message": concat("", [
		`ome.io/deploymentMode "`, a.mode, `" is not a deployment mode OME knows (`,
		concat(", ", match.deployment_modes), "): it reads none, so ", mode_consequence(a.component),
		". Write one of them, or remove the annotation.",
	]),
} |
	some a in mode_annotations
	not a.mode in match.deployment_modes
]

mode_consequence(_) := "it excludes this runtime for no InferenceService's mode" if is_runtime

mode_consequence(c) := concat("", ["no runtime is excluded for this InferenceService's ", c, " mode"]) if is_service

# The annotations ome.io/deploymentMode that are strings, on the components
# whose mode OME compares, with their fields.
mode_annotations := [{"field": concat("", ["spec.", c, `.annotations["ome.io/deploymentMode"]`]), "component": c, "mode": mode} |
	some c in mode_components
	mode := object.get(spec, [c, "annotations", "ome.io/deploymentMode"], null)
	is_string(mode)
]

mode_components := ["engineConfig", "decoderConfig"] if is_runtime
else := ["engine", "decoder"] if is_service
else := []

has(o, key) if _ = o[key]

spec := obj.spec if is_object(obj.spec)
else := {}

# OME fills in a model's format and framework from its files unless this
# annotation says not to (spec section 8).
filled_from_files if not skip_config_parsing

skip_config_parsing if {
	is_object(obj.metadata)
	is_object(obj.metadata.annotations)
	obj.metadata.annotations["ome.oracle.com/skip-config-parsing"] == "true"
}

formats_list := spec.supportedModelFormats if {
	is_runtime
	is_array(spec.supportedModelFormats)
} else := []

entry_path(i) := concat("", ["spec.supportedModelFormats[", format_int(i, 10), "]"])

# The runtime's entries that are objects, with their paths, but for the
# plain ones, of which no rule has anything to say; [] for a model.
map_entries := [{"path": entry_path(i), "value": e} |
	some i, e in formats_list
	not plain_entries[i]
	is_object(e)
]

# The plain entries, by index. A plain entry, as most are, has nothing for
# the rules to find, and no name-case finding about a well-known name (its
# names are lowercase): one match of its text as Rego writes it (sprintf
# %v: keys in order) tells it, where the rules take each field in turn
# (and here, not in a function of the entry: OPA would keep each entry's
# result, which costs more than the match). It has modelFormat and
# modelFramework, each with a lowercase name, maybe a version (well formed,
# without a suffix after GreaterThan or GreaterThanOrEqual), an operator
# with that version, and an integer weight other than 0; maybe autoSelect (a boolean),
# modelArchitecture, priority (an integer) and quantization (strings); and
# nothing else. Anything else is not plain, and the rules look at it.
plain_entries := {i | some i, e in formats_list; regex.match(plain_entry_pattern, sprintf("%v", [e]))}

plain_entry_pattern := concat("", [
	`^\{"(?:autoSelect": (?:true|false), ")?model(?:Architecture": "[^"\\]*", "model)?Format": `, _plain_block,
	`, "modelFramework": `, _plain_block,
	`(?:, "(?:priority": -?[0-9]+(?:, "quantization": "[^"\\]*")?|quantization": "[^"\\]*"))?\}$`,
])

# The pattern is written so that at each choice the next character decides:
# Go's regular expressions then match it in one pass, the fastest way.
_plain_block := concat("", [
	`\{"name": "[a-z0-9][a-z0-9._-]*"(?:, "(?:operator": "(?:Equal", "version": "`, _plain_version,
	`|GreaterThan(?:OrEqual)?", "version": "`, _plain_number_version, `)"`, _plain_weight,
	`|version": "`, _plain_version, `"`, _plain_weight,
	`|weight": -?[1-9][0-9]*))?\}`,
])

# A plain modelFormat or modelFramework block of an entry that is not
# plain, told by the same pattern: no rule has anything to find in it, and
# its name is lowercase. blocks leaves it out.
plain_block("entry", b) if regex.match(plain_block_pattern, sprintf("%v", [b]))

plain_block_pattern := concat("", ["^", _plain_block, "$"])

# A version that the plain pattern takes parses: it has nothing for the
# version rules to find, without a parse.
plain_version(v) if {
	is_string(v)
	regex.match(plain_version_pattern, v)
}

plain_version_pattern := concat("", ["^", _plain_version, "$"])

# A weight other than 0 (zero-weight finds 0).
_plain_weight := `(?:, "weight": -?[1-9][0-9]*)?`

# Versions that parse: up to three numbers and after the third, suffixes of
# letters and digits (fewer than the parser takes: numbers of up to nine
# digits, so that the pattern stays small enough to match in one pass).
_plain_number := `(?:0|[1-9][0-9]{0,8})`

_plain_number_version := concat("", [`v?`, _plain_number, `(?:\.`, _plain_number, `(?:\.`, _plain_number, `)?)?`])

_plain_version := concat("", [
	`v?`, _plain_number, `(?:\.`, _plain_number, `(?:\.`, _plain_number,
	`(?:\.[0-9A-Za-z]+)*(?:-[0-9A-Za-z]+(?:\.[0-9A-Za-z]+)*)?(?:\+[0-9A-Za-z]+(?:\.[0-9A-Za-z]+)*)?)?)?`,
])

model_sites := [{"path": "spec", "side": "model", "parent": spec}] if is_model
else := []

# Every modelFormat and modelFramework block: the model's two, and two per
# entry but for the plain ones. value is null when the block is absent.
blocks := [b |
	some s in array.concat(model_sites, [{"path": e.path, "side": "entry", "parent": e.value} | some e in map_entries])
	some w in [["format", "modelFormat"], ["framework", "modelFramework"]]
	not plain_block(s.side, object.get(s.parent, w[1], null))
	b := {
		"path": concat(".", [s.path, w[1]]),
		"side": s.side,
		"what": w[0],
		"present": has_key(s.parent, w[1]),
		"value": object.get(s.parent, w[1], null),
	}
]

has_key(o, key) := true if has(o, key)
else := false

map_blocks := [b | some b in blocks; b.present; is_object(b.value)]

raw_text(field, v) := object.get(raw, field, sprintf("%v", [v]))

# wrong-type: the fields that matching reads, with the type each must have.
typed_candidates := [t |
	some group in [
		[[obj, "", "spec", "object"]],
		model_typed,
		runtime_typed,
		size_range_typed,
		[t2 | some e in map_entries; some t2 in [
			[e.value, e.path, "modelFormat", "object"],
			[e.value, e.path, "modelFramework", "object"],
			[e.value, e.path, "modelArchitecture", "string"],
			[e.value, e.path, "quantization", "string"],
			[e.value, e.path, "autoSelect", "boolean"],
			[e.value, e.path, "priority", "integer"],
		]],
		[t2 | some b in map_blocks; some t2 in [
			[b.value, b.path, "name", "string"],
			[b.value, b.path, "weight", "integer"],
		]],
	]
	some t in group
]

model_typed := [
	[spec, "spec", "modelFormat", "object"],
	[spec, "spec", "modelFramework", "object"],
	[spec, "spec", "modelArchitecture", "string"],
	[spec, "spec", "quantization", "string"],
	[spec, "spec", "modelParameterSize", "string"],
	[spec, "spec", "disabled", "boolean"],
] if is_model
else := []

runtime_typed := [
	[spec, "spec", "supportedModelFormats", "list"],
	[spec, "spec", "disabled", "boolean"],
	[spec, "spec", "modelSizeRange", "object"],
] if is_runtime
else := []

size_range_typed := [
	[spec.modelSizeRange, "spec.modelSizeRange", "min", "string"],
	[spec.modelSizeRange, "spec.modelSizeRange", "max", "string"],
] if {
	is_runtime
	is_object(spec.modelSizeRange)
} else := []

typed_fields := [{"field": join_field(t[1], t[2]), "value": t[0][t[2]], "want": t[3]} |
	some t in typed_candidates
	has(t[0], t[2])
]

join_field("", key) := key

join_field(path, key) := concat(".", [path, key]) if path != ""

has_type("object", v) if is_object(v)

has_type("list", v) if is_array(v)

has_type("string", v) if is_string(v)

has_type("boolean", v) if is_boolean(v)

has_type("integer", v) if {
	is_number(v)
	v == floor(v)
}

wrong_type_findings := [wrong_type_finding(f) |
	some f in array.concat(
		[f2 | some f2 in typed_fields; not has_type(f2.want, f2.value)],
		[{"field": entry_path(i), "value": e, "want": "object"} | some i, e in formats_list; not is_object(e)],
	)
]

article(want) := "an " if want in {"object", "integer"}
else := "a "

wrong_type_finding(f) := {
	"rule": "wrong-type",
	"severity": "error",
	"field": f.field,
	"message": concat("", [
		"must be ", article(f.want), f.want, ", got ", describe(f.field, f.value),
		quote_hint(f),
		". The API server refuses the object as it is, and OME's matching cannot read the field.",
	]),
}

describe(_, v) := concat("", [`a string ("`, v, `")`]) if is_string(v)
else := "a list" if is_array(v)
else := "an object" if is_object(v)

describe(field, v) := concat("", ["a boolean (", raw_text(field, v), ")"]) if is_boolean(v)

describe(field, v) := concat("", ["a number (", raw_text(field, v), ")"]) if is_number(v)

quote_hint(f) := concat("", [`; quote it: "`, raw_text(f.field, f.value), `"`]) if {
	f.want == "string"
	scalar_not_string(f.value)
} else := ""

scalar_not_string(v) if is_number(v)

scalar_not_string(v) if is_boolean(v)

# Versions: non-string-version, empty-version, invalid-version (of the
# versions that plain_version does not take).
version_findings := [f |
	some b in map_blocks
	has(b.value, "version")
	not plain_version(b.value.version)
	some f in version_problem(b, b.value.version, concat(".", [b.path, "version"]))
]

consequence(b) := concat("", ["so no runtime entry accepts this model's ", b.what]) if b.side == "model"
else := "so this entry accepts no model"

version_problem(b, v, field) := [{
	"rule": "non-string-version", "severity": "error", "field": field,
	"message": concat("", [
		"version is a YAML ", collection_name(v),
		`, not a string: the API server refuses it. Write one version as a quoted string, such as version: "1.0.0".`,
	]),
}] if {
	collection_name(v)
} else := [{
	"rule": "non-string-version", "severity": "error", "field": field,
	"message": concat("", [
		"version is the YAML ", scalar_name(v), " ", raw_text(field, v),
		", not a string: the API server refuses it", number_hint(v),
		`. Quote it: version: "`, raw_text(field, v), `".`,
	]),
}] if {
	not is_string(v)
} else := [{
	"rule": "empty-version", "severity": "error", "field": field,
	"message": concat("", [`version: "" counts as set and never parses, `, consequence(b), ". Leave the field out when there is no version."]),
}] if {
	v == ""
} else := [{
	"rule": "invalid-version", "severity": "error", "field": field,
	"message": concat("", [
		`version "`, v, `" does not parse, `, consequence(b), ": ", match.version_problem(v), ". ", version_form,
	]),
}] if {
	not match.version_parses(v)
} else := []

# How to write a version OME reads.
version_form := `Write one to three numbers with an optional lowercase v, and any suffix after the third number only, such as "1.0.0", "v4.46" or "4.45.0.dev0".`

collection_name(v) := "list" if is_array(v)
else := "object" if is_object(v)

number_hint(v) := "" if is_boolean(v)
else := ", and YAML may already have changed what you wrote (4.40 reads as the number 4.4)"

scalar_name(v) := "boolean" if is_boolean(v)
else := "number"

known_operators := ["Equal", "GreaterThan", "GreaterThanOrEqual"]

# Operators on an entry: unknown-operator, operator-without-version,
# ordering-operator-with-suffix, each its own list (the Gatekeeper template
# reads the error rules and the warning rules apart).
operator_findings := array.concat(
	array.concat(unknown_operator_findings, operator_without_version_findings),
	ordering_with_suffix_findings,
)

# The entry blocks with an operator, and the operator's field.
operator_blocks := [{"block": b, "field": concat(".", [b.path, "operator"])} |
	some b in map_blocks
	b.side == "entry"
	has(b.value, "operator")
]

unknown_operator_findings := [f |
	some o in operator_blocks
	some f in unknown_operator(o.block.value.operator, o.field)
]

operator_without_version_findings := [f |
	some o in operator_blocks
	some f in operator_without_version(o.block, o.field)
]

ordering_with_suffix_findings := [f |
	some o in operator_blocks
	some f in ordering_with_suffix(o.block, o.field)
]

unknown_operator(op, field) := [{
	"rule": "unknown-operator", "severity": "error", "field": field,
	"message": "operator is not a string: write Equal, GreaterThan or GreaterThanOrEqual, or leave the field out for Equal.",
}] if {
	not is_string(op)
} else := [{
	"rule": "unknown-operator", "severity": "error", "field": field,
	"message": concat("", [
		`operator "`, op, `" is not Equal, GreaterThan or GreaterThanOrEqual. OME does not refuse it: it treats it as equality that also needs the same number of parts and the v on both versions or neither (with a suffix, plain equality)`,
		operator_hint(op),
	]),
}] if {
	not op in known_operators
} else := []

operator_hint(op) := concat("", [". Operators are case-sensitive: write ", k, "."]) if {
	k := [k2 | some k2 in known_operators; lower(k2) == lower(op)][0]
} else := ". An empty operator is not the same as none: leave the field out for Equal." if {
	op == ""
} else := ". Use one of the three, or leave the field out for Equal."

# Equal is what OME's CRD writes for an absent operator, so every entry
# read back from a cluster has it: said of itself, it is no finding.
operator_without_version(b, field) := [{
	"rule": "operator-without-version", "severity": "warning", "field": field,
	"message": concat("", [
		operator_name(b.value.operator), " has no ", b.what,
		" version to compare, so it has no effect. Add a version, or remove the operator.",
	]),
}] if {
	not has(b.value, "version")
	b.value.operator != crd_default_operator
} else := []

crd_default_operator := "Equal"

operator_name(op) := concat("", [`operator "`, op, `"`]) if is_string(op)
else := "the operator"

ordering_with_suffix(b, field) := [{
	"rule": "ordering-operator-with-suffix", "severity": "warning", "field": field,
	"message": concat("", [
		op, " on ", v, ", a version with a suffix, matches only a model version equal to ", v,
		": a suffix turns every operator into equality. For an upper limit, write the version without a suffix (such as ",
		numbers_only(v),
		"); to accept exactly ", v, ", use Equal.",
	]),
}] if {
	op := b.value.operator
	op in {"GreaterThan", "GreaterThanOrEqual"}
	v := b.value.version
	is_string(v)
	match.version_parses(v)
	ome.version.has_suffix(v)
} else := []

# The version as written, without its suffixes: "v4.45.0" for "v4.45.0.dev0".
numbers_only(v) := concat(".", array.slice(split(split(split(v, "+")[0], "-")[0], "."), 0, ome.version.parts(v)))

# ignored-field: what selection does not read.
ignored_findings := array.concat(
	[{
		"rule": "ignored-field", "severity": "warning", "field": concat(".", [b.path, "operator"]),
		"message": "an operator on a model is ignored: only a runtime entry's operator compares versions. Remove it; to accept a range of versions, set the operator on the runtime's entry.",
	} |
		some b in map_blocks
		b.side == "model"
		has(b.value, "operator")
		b.value.operator != crd_default_operator
	],
	[{
		"rule": "ignored-field", "severity": "warning", "field": concat(".", [e.path, k]),
		"message": concat("", [
			"the entry's top-level ", k, " is ignored by runtime selection: OME reads modelFormat.", k,
			" and modelFramework.", k, ". Remove it, or move it to the block it was meant for.",
		]),
	} |
		some e in map_entries
		some k in ["name", "version"]
		has(e.value, k)
	],
)

# zero-weight: weight: 0 on an entry's format or framework, which OME's
# scorer reads as no weight and replaces by its own default (10 for a
# format, 5 for a framework), where an absent weight is the CRD's default,
# 1 (spec 9).
weight_findings := [{
	"rule": "zero-weight", "severity": "warning", "field": concat(".", [b.path, "weight"]),
	"message": concat("", [
		"weight: 0 does not make the ", b.what, " count less: OME's scorer reads 0 as no weight and uses its own default, ",
		effective, ", so the ", b.what, " adds ", effective,
		" x priority to this entry's score, where leaving weight out gives 1 (the CRD's default). Leave weight out for 1, or write the weight you mean.",
	]),
} |
	some b in map_blocks
	b.side == "entry"
	w := object.get(b.value, "weight", null)
	is_number(w)
	w == 0
	effective := default_weight[b.what]
]

# OME's own weights for a format and a framework that say weight: 0.
default_weight := {"format": "10", "framework": "5"}

# implicit-autoselect: an entry that says nothing of autoSelect in a
# runtime where another entry says autoSelect: true. OME auto-selects a
# runtime that has an entry with autoSelect: true, and scores it on every
# entry but those with autoSelect: false (spec 9): so this entry's models
# are auto-selected too.
autoselect_findings := [{
	"rule": "implicit-autoselect", "severity": "warning", "field": entry_path(i),
	"message": concat("", [
		"this entry says nothing of autoSelect while entry ", format_int(on, 10),
		" says autoSelect: true, so OME auto-selects this runtime for the models this entry accepts too: it leaves out of a runtime's score only the entries with autoSelect: false. ",
		"Write autoSelect: true if that is meant, or autoSelect: false to keep this entry for InferenceServices that name the runtime.",
	]),
} |
	some i, e in formats_list
	is_object(e)
	object.get(e, "autoSelect", null) == null
	on := autoselect_on
]

# The index of the runtime's first entry with autoSelect: true (undefined
# without one). A rule of its own, read only for an entry that says
# nothing of autoSelect (most say it), and then once.
autoselect_on := min([j | some j, e in formats_list; is_object(e); e.autoSelect == true])

# missing-format, missing-framework: an absent block, or one without a name.
presence_findings := [presence_finding(b) |
	some b in blocks
	lacks_name(b)
]

lacks_name(b) if not b.present

lacks_name(b) if {
	is_object(b.value)
	not has(b.value, "name")
}

lacks_name(b) if b.value.name == ""

presence_finding(b) := {
	"rule": concat("", ["missing-", b.what]),
	"severity": presence_severity(b),
	"field": presence_field(b),
	"message": presence_message(b),
}

presence_severity(b) := "warning" if {
	b.side == "model"
	b.what == "framework"
} else := "error"

presence_field(b) := concat(".", [b.path, "name"]) if b.present
else := b.path

example("format") := "safetensors"

example("framework") := "transformers"

block_key("format") := "modelFormat"

block_key("framework") := "modelFramework"

from_files(b) := ` (unless OME fills it in from the model's files, as it does when the annotation ome.oracle.com/skip-config-parsing is not "true")` if {
	b.side == "model"
	filled_from_files
} else := ""

presence_message(b) := concat("", [
	"the entry has no ", key, ", which the API requires; ", entry_absence(b.what),
	". Add ", key, " with the ", b.what, "'s name, such as ", key, ": {name: ", example(b.what), "}.",
]) if {
	b.side == "entry"
	not b.present
	key := block_key(b.what)
} else := concat("", [
	"the entry's ", key, " has no name, so it accepts only models whose ", b.what,
	" has no name either. Set ", key, ".name, such as ", example(b.what), ".",
]) if {
	b.side == "entry"
	key := block_key(b.what)
} else := concat("", [
	`the model has no modelFormat.name, so no runtime entry accepts it and OME's webhook rejects its InferenceServices with "model format name is required"`,
	from_files(b), ". Set spec.modelFormat.name, such as safetensors.",
]) if {
	b.what == "format"
} else := concat("", [
	"the model has no modelFramework: the API requires one on every runtime entry, so no entry accepts this model",
	from_files(b), `. Set spec.modelFramework, such as {name: transformers, version: "4.46.0"}.`,
]) if {
	not b.present
} else := concat("", [
	"the model's modelFramework has no name, so only an entry whose framework has no name accepts it",
	from_files(b), ". Set spec.modelFramework.name, such as transformers.",
])

entry_absence("format") := "it never matches a model"

entry_absence("framework") := "it accepts only models without a framework"

# incomplete-size-range: OME's own code fails on a range with one bound.
size_range_findings := [{
	"rule": "incomplete-size-range", "severity": "error", "field": "spec.modelSizeRange",
	"message": concat("", [
		"modelSizeRange has ", size_range_has(r),
		": OME's own code fails on a range without both bounds (this tool reads a missing bound as unbounded). Set both, such as {min: 1B, max: 70B}, or remove the range.",
	]),
}] if {
	is_runtime
	r := spec.modelSizeRange
	is_object(r)
	not both_bounds(r)
} else := []

both_bounds(r) if {
	has(r, "min")
	has(r, "max")
}

size_range_has(r) := concat("", ["a min", bound_text(r.min), " but no max"]) if has(r, "min")
else := concat("", ["a max", bound_text(r.max), " but no min"]) if has(r, "max")
else := "neither a min nor a max"

bound_text(v) := concat("", [" (", v, ")"]) if is_string(v)
else := ""

# unparsed-size: a size that OME reads as 0 without a word
# (match.size_parses): a model's modelParameterSize, a runtime's
# modelSizeRange.min and max.
size_findings := [{
	"rule": "unparsed-size", "severity": "error", "field": f.field,
	"message": concat("", [
		f.name, ` "`, f.value, `" is not a size OME reads, and it reads it as 0 without a word: `, size_consequence[f.what],
		". OME reads a decimal number with an optional upper-case T, B or M (x 10^12, 10^9, 10^6) and nothing else: ",
		size_fix(f.value),
	]),
} |
	some f in size_fields
	not match.size_parses(f.value)
]

# The sizes of the object that may not parse: a size that the pattern
# plain_size_pattern takes parses, and most do, so only the others are
# built up and handed to the parser.
size_fields := [{"field": "spec.modelParameterSize", "what": "model", "name": "modelParameterSize", "value": v} |
	v := spec.modelParameterSize
	is_string(v)
	not regex.match(plain_size_pattern, v)
] if is_model
else := [{"field": concat(".", ["spec.modelSizeRange", k]), "what": k, "name": concat(".", ["modelSizeRange", k]), "value": v} |
	is_object(spec.modelSizeRange)
	some k in ["min", "max"]
	v := spec.modelSizeRange[k]
	is_string(v)
	not regex.match(plain_size_pattern, v)
] if is_runtime
else := []

# Sizes that OME's parser surely reads: up to 15 digits, maybe a fraction
# of up to 15, maybe one of OME's suffixes (far from a float's range).
plain_size_pattern := `^[0-9]{1,15}(?:\.[0-9]{1,15})?[TBM]?$`

size_consequence := {
	"model": "the model fits only a runtime whose modelSizeRange starts at 0, or that has none",
	"min": "the range takes every model below the size it means, down to 0",
	"max": "the runtime refuses every model that has a size above 0",
}

# The fix of a size one typo away from one OME reads (a space, a lower-case
# suffix, G for B): the size written so; else an example.
size_fix(v) := concat("", [`write "`, fix, `".`]) if {
	c := replace(v, " ", "")
	count(c) > 0
	last := upper(substring(c, count(c) - 1, 1))
	fix := concat("", [substring(c, 0, count(c) - 1), object.get({"G": "B"}, last, last)])
	regex.match(`^[0-9]{1,15}(?:\.[0-9]{1,15})?[TBM]$`, fix)
} else := `write one, such as "8B".`

# --- The whole input ---------------------------------------------------------

set_findings := array.concat(
	array.concat(duplicate_findings, case_findings),
	array.concat(unmatched_findings, array.concat(unreachable_findings, tie_findings)),
)

# Each object's identity: kind, namespace and name, and where it was read.
refs := [ref_of(i, o) | some i, o in input.objects]

ref_of(i, o) := {
	"index": i,
	"kind": o.kind,
	"namespace": o.namespace,
	"name": o.name,
	"key": concat("/", [o.kind, o.namespace, o.name]),
	"text": concat("", [o.kind, " ", ns_prefix(o.namespace), o.name]),
	"at": concat(":", [o.file, format_int(o.line, 10)]),
	"isModel": o.kind in {"BaseModel", "ClusterBaseModel"},
	"isRuntime": o.kind in {"ServingRuntime", "ClusterServingRuntime"},
	"spec": spec_of(o),
	"valid": o.valid,
	"readsFiles": object.get(o, "readsFiles", false),
}

ns_prefix("") := ""

ns_prefix(ns) := concat("", [ns, "/"]) if ns != ""

spec_of(o) := o.spec if is_object(o.spec)
else := {}

# duplicate-name: every object after the first of its kind, namespace and
# name. The identities are sorted once, so the objects of one key are
# neighbours, the first of each key heads its run, and a large input is
# compared neither pair by pair nor key by key.
sorted_keys := sort([[r.key, r.index] | some r in refs])

# The index of each key's first object: the head of its run.
first_of := {p[0]: p[1] |
	some j, p in sorted_keys
	not same_key_before(j)
}

same_key_before(j) if sorted_keys[j - 1][0] == sorted_keys[j][0]

duplicate_findings := [{
	"index": i, "rule": "duplicate-name", "severity": "warning", "field": "metadata.name",
	"message": concat("", [
		refs[i].text, " is also defined at ", refs[first_of[p[0]]].at,
		"; on apply, the later one replaces the earlier, so only one of them takes effect. Rename one of them, or remove the duplicate.",
	]),
} |
	some j, p in sorted_keys
	same_key_before(j)
	i := p[1]
]

# name-case: every format and framework name that is a non-empty string
# and not a well-known name as it is spelled (which is never told to
# change, nor counted), with where it is.
names := [n |
	some r in refs
	some s in name_parents(r)
	some w in [["format", "modelFormat"], ["framework", "modelFramework"]]
	block := s.parent[w[1]]
	is_object(block)
	is_string(block.name)
	block.name != ""
	not block.name in well_known
	n := {"index": r.index, "what": w[0], "field": concat("", [s.path, ".", w[1], ".name"]), "name": block.name}
]

name_parents(r) := [{"path": "spec", "parent": r.spec}] if r.isModel
else := [{"path": entry_path(j), "parent": e} |
	some j, e in r.spec.supportedModelFormats
	is_object(e)
] if {
	r.isRuntime
	is_array(r.spec.supportedModelFormats)
} else := []

well_known := {
	"safetensors", "transformers", "diffusers", "pytorch", "onnx", "tensorrt", "tensorrtllm", "tensorrt-llm",
	"tensorflow", "gguf", "ggml", "openvino", "mlx", "jax", "keras", "sklearn", "xgboost", "lightgbm", "paddle",
	"huggingface", "mlflow", "triton",
}

# The names the rule looks at: the ASCII ones. Those that spell a
# well-known name otherwise are told so; the others are grouped by what
# they name and their lower case (spellings), and counted by spelling
# (occurrences), in one pass each.
case_names := [n |
	some n in names
	regex.match(`^[\x00-\x7f]*$`, n.name)
]

spellings[[n.what, lower(n.name)]] contains n.name if {
	some n in case_names
	not lower(n.name) in well_known
}

occurrences[[n.what, n.name]] contains [n.index, n.field] if {
	some n in case_names
	not lower(n.name) in well_known
}

spelling_count(what, name) := count(occurrences[[what, name]])

case_findings := array.concat(
	[well_known_case_finding(n) | some n in case_names; lower(n.name) in well_known],
	[{
		"index": n.index, "rule": "name-case", "severity": "warning", "field": n.field,
		"message": concat("", [
			`"`, n.name, `" differs only in case from "`, best.name, `", which the input uses `, format_int(best.count, 10),
			" times (this spelling: ", format_int(spelling_count(n.what, n.name), 10), "): names are compared exactly, so the two never match. Write ", best.name, ".",
		]),
	} |
		some n in case_names
		group := [n.what, lower(n.name)]
		count(spellings[group]) > 1
		best := most_used[group]
		spelling_count(n.what, n.name) < best.count
	],
)

# The finding about a name n that spells a well-known name otherwise (the
# Gatekeeper template asks it of one object's names).
well_known_case_finding(n) := {
	"index": n.index, "rule": "name-case", "severity": "warning", "field": n.field,
	"message": concat("", [
		`"`, n.name, `" is not how the well-known `, n.what, ` name is spelled: names are compared exactly, so it matches only "`,
		n.name, `", never "`, lower(n.name), `". Write `, lower(n.name), ".",
	]),
}

# Each group's most used spelling, the first by name among equals: a name
# used less often than it is told to write it.
most_used[group] := {"name": name, "count": top} if {
	some group, names_of in spellings
	count(names_of) > 1
	counts := {s: spelling_count(group[0], s) | some s in names_of}
	top := max({c | some c in counts})
	name := min({s | some s, c in counts; c == top})
}

# The cross-check (crossCheck only): the models and runtimes to pair.
cross_models := [r | input.crossCheck == true; some r in refs; r.isModel; r.valid]

cross_runtimes := [r | input.crossCheck == true; some r in refs; r.isRuntime; r.valid]

# The pairs OME considers: a ServingRuntime meets the BaseModels of its own
# namespace and every ClusterBaseModel; a ClusterServingRuntime, every
# model.
in_scope(_, r) if r.kind != "ServingRuntime"

in_scope(m, _) if m.kind != "BaseModel"

in_scope(m, r) if m.namespace == r.namespace

scoped_runtimes(m) := [r | some r in cross_runtimes; in_scope(m, r)]

scoped_models(r) := [m | some m in cross_models; in_scope(m, r)]

# How a single entry misses a model: the number of differences and their
# text (its differences as OME's reason gives them since v0.1.5, joined
# with ", "). Every difference with ", " in it holds one ", runtime=", so
# the count is the pieces between ", " less those.
entry_miss(model_spec, entry) := {"count": 0, "text": ""} if {
	match.runtime_result(model_spec, {"supportedModelFormats": [entry]}).compatible
} else := {
	"count": (count(split(d, ", ")) - count(split(d, ", runtime="))) + 1,
	"text": d,
} if {
	d := match.entry_text(match.runtime_result(model_spec, {"supportedModelFormats": [entry]}).entries[0].differences)
}

unmatched_findings := [{
	"index": m.index, "rule": "unmatched-model", "severity": "warning", "field": "spec",
	"message": concat("", [
		"no runtime given accepts this model (", format_int(count(runtimes), 10), " checked)",
		closest_runtime(m, runtimes),
		". Run evaluate explain on the pair to see every check.",
	]),
} |
	some m in cross_models
	runtimes := scoped_runtimes(m)
	count(runtimes) > 0
	not served(m, runtimes)
]

served(m, runtimes) if {
	some r in runtimes
	match.runtime_result(m.spec, r.spec).compatible
}

runtime_misses(m, runtimes) := [miss |
	some r in runtimes
	some i, e in object.get(r.spec, "supportedModelFormats", [])
	x := entry_miss(m.spec, e)
	miss := runtime_miss(m, r, i, x)
]

runtime_miss(m, r, i, x) := {"count": 1, "text": concat("", [r.text, ": ", match.runtime_result(m.spec, r.spec).reason])} if {
	x.count == 0
} else := {"count": x.count, "text": concat("", [r.text, " entry ", format_int(i, 10), ": ", x.text])}

closest_runtime(m, runtimes) := ", and none of them has an entry" if {
	count(runtime_misses(m, runtimes)) == 0
} else := concat("", ["; the closest miss is ", best.text]) if {
	misses := runtime_misses(m, runtimes)
	least := min([x.count | some x in misses])
	best := [x | some x in misses; x.count == least][0]
}

unreachable_findings := [f |
	some r in cross_runtimes
	models := scoped_models(r)
	count(models) > 0
	some i, e in object.get(r.spec, "supportedModelFormats", [])
	not reaches_a_model(e, models)
	misses := [{"count": x.count, "text": concat("", [m.text, ": ", x.text])} |
		some m in models
		x := entry_miss(m.spec, e)
	]
	least := min([x.count | some x in misses])
	best := [x | some x in misses; x.count == least][0]
	f := {
		"index": r.index, "rule": "unreachable-entry", "severity": "info", "field": entry_path(i),
		"message": concat("", [
			"this entry accepts none of the models given (", format_int(count(models), 10),
			" checked); the closest miss is ", best.text, ". Run evaluate explain on the pair to see every check.",
		]),
	}
]

reaches_a_model(e, models) if {
	some m in models
	match.runtime_result(m.spec, {"supportedModelFormats": [e]}).compatible
}

# selection-tie: OME ranks the runtimes it may auto-select for a model
# (compatible, an entry with autoSelect: true, a score above 0) within each
# scope, the ServingRuntimes of the InferenceService's namespace and the
# ClusterServingRuntimes, and takes the first namespaced one, else the
# first cluster one (spec 9): by score, then, for a model with a size, by
# how far the size range's bounds lie from it, then by name. A scope whose
# best runtimes tie on score and distance is decided by a name. The scopes
# that decide for a model: its namespace's ServingRuntimes (a BaseModel's
# own namespace; a ClusterBaseModel's every namespace without a BaseModel
# of its name, which OME would take instead), and the ClusterServingRuntimes,
# unless a BaseModel has candidates in its namespace.
tie_findings := [f |
	some m in cross_models
	object.get(m.spec, ["modelFormat", "name"], "") != ""
	cands := tie_candidates(m)
	some g in sort({c.scope | some c in cands})
	tie_scope_decides(m, g, cands)
	scoped := [c | some c in cands; c.scope == g]
	top := max([c.score | some c in scoped])
	near := min([c.distance | some c in scoped; c.score == top])
	tied := [c | some [_, c] in sort([[c.r.name, c] | some c in scoped; c.score == top; c.distance == near])]
	count(tied) > 1
	tie_certain(m, tied)
	f := {
		"index": m.index, "rule": "selection-tie", "severity": "warning", "field": "spec",
		"message": concat("", [
			"OME picks the runtime for this model", tie_where(m, g), " by name alone: ",
			names_text([c.r.text | some c in tied]), " tie on score ", format_int(top, 10), tie_distance(m),
			", so OME takes the first by name, ", tied[0].r.name,
			". To choose on purpose, set priority: ", format_int(tie_priority(tied), 10),
			" on the entry of the one you mean that accepts this model, or autoSelect: false on the others' entries.",
		]),
	}
]

# A model without a size whose files OME reads (readsFiles) gets one from
# its weights (spec 8), by which OME ranks too: its tie is certain only
# when the runtimes have one size range.
tie_certain(m, _) if has(m.spec, "modelParameterSize")

tie_certain(m, _) if not m.readsFiles

tie_certain(_, tied) if count({size_range_key(c.r.spec) | some c in tied}) == 1

size_range_key(runtime_spec) := [bound_value(range, "min"), bound_value(range, "max"), true] if {
	range := runtime_spec.modelSizeRange
} else := [null, null, false]

bound_value(range, bound) := ome.size.parse(range[bound]) if has(range, bound)
else := null

# The runtimes OME may auto-select for the model m, with their score, scope
# ("" for the cluster) and distance.
tie_candidates(m) := [{"r": r, "score": score, "scope": runtime_scope(r), "distance": size_distance(m.spec, r.spec)} |
	some r in scoped_runtimes(m)
	may_accept(m.spec, r.spec)
	match.runtime_result(m.spec, r.spec).compatible
	match.auto_selectable(r.spec)
	score := match.runtime_score(m.spec, r.spec)
	score > 0
]

# A runtime with an entry that says autoSelect: true, and one of the
# model's format name and architecture (which an entry that matches has).
may_accept(model_spec, runtime_spec) if {
	match.auto_selectable(runtime_spec)
	some e in object.get(runtime_spec, "supportedModelFormats", [])
	is_object(e)
	object.get(e, ["modelFormat", "name"], null) == object.get(model_spec, ["modelFormat", "name"], "")
	object.get(e, "modelArchitecture", null) == object.get(model_spec, "modelArchitecture", null)
}

runtime_scope(r) := r.namespace if r.kind == "ServingRuntime"
else := ""

tie_scope_decides(m, g, _) if {
	g != ""
	m.kind != "ClusterBaseModel"
}

tie_scope_decides(m, g, _) if {
	g != ""
	m.kind == "ClusterBaseModel"
	not shadowed(m, g)
}

# A BaseModel of the ClusterBaseModel m's name in namespace g, which OME
# takes instead of m there.
shadowed(m, g) if {
	some b in refs
	b.kind == "BaseModel"
	b.namespace == g
	b.name == m.name
}

tie_scope_decides(m, "", _) if m.kind == "ClusterBaseModel"

tie_scope_decides(m, "", cands) if {
	m.kind != "ClusterBaseModel"
	not namespaced_candidate(cands)
}

namespaced_candidate(cands) if {
	some c in cands
	c.scope != ""
}

tie_where(m, g) := concat("", [" in namespace ", g]) if {
	g != ""
	m.kind == "ClusterBaseModel"
} else := ""

tie_distance(m) := " and on how far their size ranges lie from the model's size" if has(m.spec, "modelParameterSize")
else := ""

# How far a runtime's size range lies from the model's size: the distance
# to each bound, summed (0 without a size or a range).
size_distance(model_spec, runtime_spec) := 0 if not has(model_spec, "modelParameterSize")
else := 0 if not has(runtime_spec, "modelSizeRange")
else := bound_distance(model_spec, runtime_spec.modelSizeRange, "min") + bound_distance(model_spec, runtime_spec.modelSizeRange, "max")

bound_distance(model_spec, range, bound) := abs(ome.size.parse(range[bound]) - ome.size.parse(model_spec.modelParameterSize)) if has(range, bound)
else := 0

# A priority that makes any of the tied runtimes win: one more than every
# priority of their entries (1 when unset).
tie_priority(tied) := max(array.concat([1], [p |
	some c in tied
	some e in object.get(c.r.spec, "supportedModelFormats", [])
	p := entry_priority(e)
])) + 1

entry_priority(e) := object.get(e, "priority", 1) if is_object(e)
else := 1

# Texts joined as a sentence: "a and b", "a, b and c".
names_text(texts) := concat(" and ", texts) if count(texts) == 2
else := concat("", [concat(", ", array.slice(texts, 0, count(texts) - 1)), " and ", texts[count(texts) - 1]])
