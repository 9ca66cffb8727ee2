# OME runtime matching, in Rego: the evaluation plan. The rules are in
# match.rego; this file only calls them, to evaluate one model against many
# runtimes in one query, and gives for each runtime what runtime_result
# gives for the pair.
#
# Input: input.model, a model's spec; input.runtimes, a list of runtime specs;
# input.acceleratorClasses, the classes an InferenceService asks for (absent
# or [] in `evaluate match`); input.batch, optional, data.ome.match.batch
# of the runtimes and classes, computed before by an engine that evaluates
# many models against them (results then needs no input.runtimes).
# data.ome.match.results is one verdict per runtime, in order.
# Selection's scores are in select.rego.
#
# What depends only on the model (its label) is computed once, what depends
# only on the runtimes once (batch), each check once per distinct value of
# the field it reads, and each distinct entry, list of entries and size range
# once.
package ome.match

model := object.get(input, "model", {})

classes := object.get(input, "acceleratorClasses", [])

model_label := label(model)

# model_fields are the fields of input.model that results reads: models
# that agree on them get the same verdicts. An engine may evaluate a model
# with these fields alone and give its verdicts to every model that agrees.
model_fields := ["diffusionPipeline", "modelArchitecture", "modelFormat", "modelFramework", "modelParameterSize", "quantization"]

# A query evaluates one model against a batch of runtimes. What depends
# only on the runtimes (and the accelerator classes) is batch, computed once
# per query:
#   - alone: for each field the entry checks read, its distinct values,
#     each as an entry with that field alone (only(field, value)); the
#     values are told apart by their JSON text, each text read back once
#     (json.unmarshal), so that every key of entries is found there;
#   - entries: the batch's distinct entries (the fields the checks read,
#     told apart by their JSON text and read back from it once), each as
#     the keys of its values, in checked_fields order;
#     unformatted, those without modelFormat, each as itself;
#   - lists: the distinct lists of entries of the runtimes; empty_lists,
#     the keys of those without entries;
#   - ranges: the distinct modelSizeRange values of the runtimes;
#   - runtimes: for each runtime of input.runtimes, the key of its list of
#     entries (list);
#   - gates: the reasons of the runtimes that fail before their entries are
#     looked at, each by a key of its own ("gate 3" for the fourth runtime);
#     reason_keys: for each runtime, its gate's key when it has one, else
#     its list's key; range_keys: for each runtime, its range's key.
# A field's value and a range are keyed by their JSON text ("null" for a
# field that is not set): an object as an object key is not always found
# again. A distinct entry is keyed by its position among them ("0", "1",
# ...) and a list by the JSON text of its entries' keys, so that the keys
# that every model's query looks up are short (OPA hashes a string key at
# each lookup). An engine that evaluates many models against the same
# runtimes may compute batch once (data.ome.match.batch) and give it back
# as input.batch.
checked_fields := ["diffusionPipeline", "modelArchitecture", "quantization", "modelFormat", "modelFramework"]

# runtime_fields are the fields of a runtime's spec that batch reads (its
# entries, its size range, and what runtime_gate reads): an engine may give
# input.runtimes with these fields alone, which makes the same batch.
runtime_fields := ["acceleratorRequirements", "disabled", "modelSizeRange", "supportedModelFormats"]

batch := input.batch if {
	input.batch
} else := runtimes_batch

runtimes_batch := {
	"alone": {f: {k: only(f, json.unmarshal(k)) | some k in {ks[j] | some ks in field_keys}} | some j, f in checked_fields},
	"entries": entries,
	"unformatted": {format_int(i, 10): e | some i, e in distinct; object.get(e, "modelFormat", null) == null},
	"lists": {list_keys[i]: l | some i, l in lists},
	"empty_lists": {list_keys[i] | some i, l in lists; count(l) == 0},
	"ranges": {range_keys[i]: object.get(r, "modelSizeRange", null) | some i, r in input.runtimes},
	"runtimes": [{"list": k} | some k in list_keys],
	"gates": {gate_keys[i]: g | some i, g in gates},
	"reason_keys": [object.get(gate_keys, i, k) | some i, k in list_keys],
	"range_keys": range_keys,
} if {
	gates := {i: g | some i, r in input.runtimes; g := runtime_gate(r, classes); g != ""}
	gate_keys := {i: sprintf("gate %d", [i]) | some i, _ in gates}
	texts := [[json.marshal(object.filter(e, checked_fields)) | some e in object.get(r, "supportedModelFormats", [])] |
		some r in input.runtimes
	]
	distinct_texts := [t | some t in {t | some l in texts; some t in l}]
	distinct := [json.unmarshal(t) | some t in distinct_texts]
	entry_keys := {t: format_int(i, 10) | some i, t in distinct_texts}
	lists := [[entry_keys[t] | some t in l] | some l in texts]
	list_keys := [json.marshal(l) | some l in lists]
	range_keys := [json.marshal(object.get(r, "modelSizeRange", null)) | some r in input.runtimes]
	field_keys := [[json.marshal(object.get(e, f, null)) | some f in checked_fields] | some e in distinct]
	entries := {format_int(i, 10): ks | some i, ks in field_keys}
}

only(_, null) := {}

only(field, v) := {field: v} if v != null

# Each check of an entry reads one field of the model and one field of the
# entry, so it runs once per distinct value of its entry field (on an entry
# with that field alone, batch.alone); a table holds what it finds, [] or
# [text] (object.get({"": []}, t, [t]) is [] when t is ""), and each
# distinct entry is put together from those.
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
	some k, e in batch.alone.diffusionPipeline
	t := pipeline_difference(model, e)
}

# architecture_difference(model, e) is pair_text of the model's and the
# entry's modelArchitecture, with "architecture" (match.rego): the table
# asks pair_text itself, with the model's read once, a function call less
# per value (a quarter of the table's time where most values differ).
architecture_found := input.tables.architecture_found if {
	input.tables.architecture_found
} else := {k: object.get({"": []}, t, [t]) |
	m := object.get(model, "modelArchitecture", null)
	some k, e in batch.alone.modelArchitecture
	t := pair_text(m, object.get(e, "modelArchitecture", null), "architecture")
}

quantization_found := input.tables.quantization_found if {
	input.tables.quantization_found
} else := {k: object.get({"": []}, t, [t]) |
	some k, e in batch.alone.quantization
	t := quantization_difference(model, e)
}

format_found := input.tables.format_found if {
	input.tables.format_found
} else := {k: object.get({"": []}, t, [t]) |
	some k, e in batch.alone.modelFormat
	t := format_difference(model, e)
}

# framework_difference(model, e) is version_difference("framework", ...)
# of the two frameworks when the entry's has the model's framework name
# (its first branch), as most have: for those, the table asks
# version_difference itself, a function call less per value (a fifth of
# the table's time on the many-valued cluster of bench/run.sh); the others
# (another name, no framework) go through framework_difference. A model
# without a framework has no name, and every value takes the last branch.
framework_found := input.tables.framework_found if {
	input.tables.framework_found
} else := object.union(same_name, others) if {
	name := object.get(model.modelFramework, "name", "")
	same_name := {k: object.get({"": []}, t, [t]) |
		some k, e in batch.alone.modelFramework
		object.get(e.modelFramework, "name", "") == name
		t := version_difference("framework", e.modelFramework, model.modelFramework)
	}
	others := {k: object.get({"": []}, t, [t]) |
		some k, e in object.remove(batch.alone.modelFramework, object.keys(same_name))
		t := framework_difference(model, e)
	}
} else := {k: object.get({"": []}, t, [t]) |
	some k, e in batch.alone.modelFramework
	t := framework_difference(model, e)
}

# Each distinct entry's differences, as entry_differences_of gives them: the
# tables in its order (pipeline, architecture, quantization, format,
# framework), then with_unknown for an entry without modelFormat
# (batch.unformatted).
# ome.plan.gather joins the tables in one call: for each entry k, with x
# its keys in checked_fields order, it is
#   array.concat(array.concat(array.concat(array.concat(
#       pipeline_found[x[0]], architecture_found[x[1]]),
#       quantization_found[x[2]]), format_found[x[3]]), framework_found[x[4]])
entry_differences := object.union(found, unknown) if {
	found := ome.plan.gather(
		[pipeline_found, architecture_found, quantization_found, format_found, framework_found],
		batch.entries,
	)
	unknown := {k: with_unknown(found[k], e) | some k, e in batch.unformatted}
}

# Each distinct list of entries' failure, as entries_failure gives it: ""
# when one of its entries matched (it has no differences), else the
# reason: no_format_matched's text (failure_prefix) followed by its
# entries' texts joined with "; " (entries_text), and for a list without
# entries, entries_text([]). ome.plan.join_rows puts each list's reason
# together in one call: it is
#   {lk: concat("", [prefix, concat("; ", [entry_texts[k] | some k in keys])]) |
#       some lk, keys in batch.lists}
# and ome.plan.rows_with(batch.lists, entry_texts, "") is the lists with an
# entry whose text is "", that is which matched (no difference is ""):
#   {lk | some lk, keys in batch.lists; some k in keys; entry_texts[k] == ""}
list_failures := object.union(object.union(unmatched, matched), empty) if {
	unmatched := ome.plan.join_rows(failure_prefix, "; ", entry_texts, batch.lists)
	matched := {lk: "" | some lk in ome.plan.rows_with(batch.lists, entry_texts, "")}
	empty := {lk: no_format_matched(model_label, entries_text([])) | some lk in batch.empty_lists}
}

failure_prefix := no_format_matched(model_label, "")

# Each distinct entry's differences joined as entry_text joins them (with
# ", "), once for all the lists that have the entry; "" when it has
# none: ome.plan.join_each is
# {k: concat(", ", d) | some k, d in entry_differences}.
entry_texts := ome.plan.join_each(entry_differences, ", ")

# Each runtime's reason, in order, as runtime_reason gives it: its gate
# when it has one, else its list's failure when it is not "", else its
# range's size failure. "" is compatible. gate_or_list is each runtime's
# gate or list failure, read by reason_keys (ome.plan.pick(t, keys) is
# [t[k] | some k in keys]); a model without a size passes every range
# (spec 9), so those are its reasons. Otherwise a runtime whose gate_or_list
# is "" gets its range's size failure (ome.plan.fill_blanks(a, "", b) is
# [object.get({"": b[i]}, x, x) | some i, x in a]: a's element, or b's at
# the same index where a's is "").
reasons := gate_or_list if {
	not model.modelParameterSize
} else := ome.plan.fill_blanks(gate_or_list, "", sizes) if {
	sizes := ome.plan.pick(size_failures, batch.range_keys)
}

gate_or_list := ome.plan.pick(object.union(list_failures, batch.gates), batch.reason_keys)

# The model size check of each distinct range.
size_failures := {k: size_failure(model, only("modelSizeRange", x)) | some k, x in batch.ranges}

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

# runtime_accepts is runtime_verdict(model, runtime, classes).compatible
# without the reason: for a yes or no, the order of the checks does not
# matter and the first that fails settles it, so the runtime's own checks
# come first, then each entry's checks, the cheap equalities before the
# versions. An admission request that ends in a runtime needs no reason.
runtime_accepts(model, runtime, classes) if {
	runtime_gate(runtime, classes) == ""
	size_failure(model, runtime) == ""
	some e in object.get(runtime, "supportedModelFormats", [])
	entry_matches(model, e)
}

# entry_matches: the entry has no differences (entry_differences_of gives
# []): it has a format, and every check gives "".
entry_matches(model, entry) if {
	entry.modelFormat
	architecture_difference(model, entry) == ""
	quantization_difference(model, entry) == ""
	pipeline_difference(model, entry) == ""
	format_difference(model, entry) == ""
	framework_difference(model, entry) == ""
}
