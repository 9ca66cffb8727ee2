# OME's admission webhook on an InferenceService, in Rego (spec section 10),
# with runtime selection (section 9).
#
# input.inferenceService is the InferenceService; input.objects are the
# models and runtimes of the cluster (BaseModel, ClusterBaseModel,
# ServingRuntime, ClusterServingRuntime), at most one per kind, namespace
# and name. data.ome.select.result is:
#
#   admitted   bool
#   message    OME's rejection message ("" when admitted)
#   check      the name of the check that refused it ("" when admitted)
#   selection  true when the webhook ran runtime selection (step 5)
#   selected   the chosen runtime {kind, namespace, name} (only when admitted by selection)
#   model      the model the InferenceService refers to, when found
#   candidates runtimes that could be chosen, best first: {kind, namespace, name, score}
#   tiedWith   the candidates that tie with the selected one on all but the name: {kind, namespace, name}
#   tiePriority a priority that breaks that tie (0 without one)
#   excluded   runtimes that are not compatible, in the order OME checks them: {kind, namespace, name, reason}
#   unselectable runtimes that are compatible but never selected, in the order OME checks them: {kind, namespace, name, reason}
#   checked    {namespaced, cluster}: how many runtimes were looked at
#   warnings   what OME's controller would say of a runtime named in spec.runtime.name
package ome.select

import data.ome.match

isvc := input.inferenceService

spec := object.get(isvc, "spec", {})

namespace := ns if {
	ns := object.get(object.get(isvc, "metadata", {}), "namespace", "")
	ns != ""
} else := "default"

has(obj, key) if _ = obj[key]

object_namespace(o) := object.get(o, ["metadata", "namespace"], "")

model_name := object.get(object.get(spec, "model", {}), "name", "")

# The model: the BaseModel of the InferenceService's namespace first, else
# the ClusterBaseModel of that name (among the objects of that name, found
# in one pass).
model := model_of(named_as_model)

named_as_model := [o | some o in input.objects; o.metadata.name == model_name]

# The model among objects of the model's name: the first of them, when a
# test's inventory has two (a ClusterBaseModel that says a namespace is
# synced under it, and counts all the same).
model_of(objects) := ms[0] if {
	ms := array.concat(
		[m | some m in objects; m.kind == "BaseModel"; object_namespace(m) == namespace],
		[m | some m in objects; m.kind == "ClusterBaseModel"],
	)
}

model_spec := object.get(model, "spec", {}) if model
else := {}

metadata := object.get(isvc, "metadata", {})

annotations := object.get(metadata, "annotations", {})

# The accelerator classes the InferenceService asks for, from the
# annotation and the three spec fields: each that is there, even empty
# (OME takes "" as a class of that name, which no runtime lists).
accelerator_classes := sort({c |
	some path in [
		["metadata", "annotations", "ome.io/accelerator-class"],
		["spec", "acceleratorSelector", "acceleratorClass"],
		["spec", "engine", "acceleratorOverride", "acceleratorClass"],
		["spec", "decoder", "acceleratorOverride", "acceleratorClass"],
	]
	c := object.get(isvc, path, null)
	is_string(c)
})

# The runtimes looked at: the ServingRuntimes of the namespace and the
# ClusterServingRuntimes. OME refuses a model without a format name before
# it looks at any runtime, so then there are none.
namespaced_runtimes := [r |
	format_name != ""
	some r in input.objects
	r.kind == "ServingRuntime"
	object_namespace(r) == namespace
]

cluster_runtimes := [r | format_name != ""; some r in input.objects; r.kind == "ClusterServingRuntime"]

# Sorts newest first; an object without a timestamp (null) after every
# other.
age(timestamp) := 0 - time.parse_rfc3339_ns(timestamp) if timestamp != null
else := 9223372036854775807

ref(o) := {"kind": o.kind, "namespace": object_namespace(o), "name": o.metadata.name}

# Step 2: a runner image of its own means the engine is complete.
complete_runner if object.get(object.get(object.get(spec, "engine", {}), "runner", {}), "image", "") != ""

complete_runner if {
	engine := object.get(spec, "engine", {})
	object.get(object.get(object.get(engine, "leader", {}), "runner", {}), "image", "") != ""
	object.get(object.get(object.get(engine, "worker", {}), "runner", {}), "image", "") != ""
}

admitted_without_selection if not has(spec, "engine")

admitted_without_selection if has(spec, "runtime")

admitted_without_selection if complete_runner

# Spec 10, step 1: a model named that exists neither as a BaseModel of the
# namespace nor as a ClusterBaseModel.
model_not_found if {
	model_name != ""
	not model
}

# Spec 10, step 5: selection's refusal, with what it found (detail).
selection_refusal(detail) := concat("", ["no supporting runtime found for model ", model_name, " and engine does not have complete runner configuration: ", detail])

# Spec 10: the first step that decides ends it. step names it: the check
# that refuses the InferenceService (the names -o json gives), "admitted"
# when it is admitted without selection, or "selected". decision gives its
# verdict and OME's message.
step := name if {
	[name, _] := isvc_refusal
} else := "model-not-found" if {
	model_not_found
} else := "admitted" if {
	admitted_without_selection
} else := "no-model-reference" if {
	not has(spec, "model")
} else := "model-not-resolved" if {
	not model
} else := "model-disabled" if {
	model_spec.disabled == true
} else := "no-format-name" if {
	format_name == ""
} else := "selected" if {
	count(ranked) > 0
} else := "no-runtime"

decision := {"admitted": false, "selection": false, "message": msg, "check": step} if {
	[_, msg] := isvc_refusal
} else := {"admitted": false, "selection": false, "message": msg, "check": step} if {
	step == "model-not-found"
	msg := sprintf("referenced model %q not found in namespace %q: ensure a BaseModel exists in this namespace or a ClusterBaseModel exists cluster-wide with this name", [model_name, namespace])
} else := {"admitted": true, "selection": false, "message": "", "check": ""} if {
	step == "admitted"
} else := {"admitted": false, "selection": false, "message": msg, "check": step} if {
	step == "no-model-reference"
	msg := "model reference is required when runtime is not specified and engine does not have complete runner configuration"
} else := {"admitted": false, "selection": false, "message": msg, "check": step} if {
	step == "model-not-resolved"
	msg := sprintf("failed to resolve model %s: No BaseModel or ClusterBaseModel with the name: %s", [model_name, model_name])
} else := {"admitted": false, "selection": false, "message": concat("", ["model ", model_name, " is disabled"]), "check": step} if {
	step == "model-disabled"
} else := {"admitted": false, "selection": true, "message": selection_refusal("invalid model specification: modelFormat.name: model format name is required"), "check": step} if {
	step == "no-format-name"
} else := {"admitted": true, "selection": true, "message": "", "check": "", "selected": ranked[0]} if {
	step == "selected"
} else := {"admitted": false, "selection": true, "message": no_runtime_message(checked, excluded), "check": step}

# Spec 10, the checks of the InferenceService alone, which OME's webhook
# makes before it looks for a model or a runtime, in OME's order: the
# name, the autoscaler's annotations and settings, the target utilization,
# a decoder without an engine. isvc_refusal is [check, OME's message] for
# the first that refuses; undefined when none does.
isvc_refusal := ["name", msg] if {
	name := object.get(metadata, "name", "")
	not regex.match(`^[a-z]([-a-z0-9]*[a-z0-9])?$`, name)
	msg := sprintf("invalid InferenceService name %q, must match %q", [name, "[a-z]([-a-z0-9]*[a-z0-9])?"])
} else := refusal if {
	refusal := autoscaler_refusal
} else := ["target-utilization", "the target utilization percentage should be a [1-100] integer"] if {
	# OME reads it with Go's strconv.Atoi: a sign, then digits, leading
	# zeros allowed.
	percentage := annotations["ome.io/targetUtilizationPercentage"]
	not regex.match(`^\+?0*([1-9][0-9]?|100)$`, percentage)
} else := ["decoder-without-engine", "decoder cannot be specified without engine"] if {
	has(spec, "decoder")
	not has(spec, "engine")
} else := ["runtime-revision", runtime_pin_refusal] if {
	runtime_pin_refusal != ""
}

# A pinned runtime revision (spec.runtime.revision, when not empty) needs
# spec.runtime.autoSync: false, and a name of the form OME gives the
# revisions of the runtime named: cr-<runtime>-<8 lowercase hex digits>
# for a ClusterServingRuntime (spec.runtime.kind's default), and
# r-<namespace>-<runtime>-<8 lowercase hex digits> for a ServingRuntime.
runtime_pin_refusal := "spec.runtime.revision requires spec.runtime.autoSync=false; AutoSync=true would silently ignore the pin" if {
	object.get(spec, ["runtime", "revision"], "") != ""
	object.get(spec, ["runtime", "autoSync"], true) != false
} else := msg if {
	revision := object.get(spec, ["runtime", "revision"], "")
	revision != ""
	runtime := object.get(spec, ["runtime", "name"], "")
	[kind, prefix] := pin_prefix(runtime)
	not pin_matches(revision, prefix)
	msg := sprintf("spec.runtime.revision %q does not match the expected naming convention for runtime %q (%s); expected the form %s<8 lowercase hex chars>", [revision, runtime, kind, prefix])
} else := ""

pin_prefix(runtime) := ["ServingRuntime", concat("", ["r-", namespace, "-", runtime, "-"])] if {
	spec.runtime.kind == "ServingRuntime"
} else := ["ClusterServingRuntime", concat("", ["cr-", runtime, "-"])]

pin_matches(revision, prefix) if {
	startswith(revision, prefix)
	regex.match(`^[0-9a-f]{8}$`, substring(revision, count(prefix), -1))
}

# The annotation ome.io/autoscalerClass, when there is one, must name a
# class OME knows; hpa's metric (ome.io/metrics), when given, must be one
# it knows; keda's settings must be valid.
autoscaler_refusal := ["autoscaler-class", sprintf("[%s] is not a supported autoscaler class type", [class])] if {
	class := annotations["ome.io/autoscalerClass"]
	not class in {"hpa", "keda", "external"}
} else := ["hpa-metric", sprintf("[%s] is not a supported metric", [metric])] if {
	annotations["ome.io/autoscalerClass"] == "hpa"
	metric := annotations["ome.io/metrics"]
	not metric in {"cpu", "memory"}
} else := refusal if {
	annotations["ome.io/autoscalerClass"] == "keda"
	refusal := keda_refusal
}

keda_config := object.get(spec, "kedaConfig", {})

# KEDA's settings, each from spec.kedaConfig (when not empty), then from
# its annotation (when there is one), in OME's order: the first value that
# is not valid refuses.
keda_refusal := ["keda-scaling-operator", sprintf("invalid KEDA scaling operator %q, must be one of: %s", [op, concat(", ", keda_operators)])] if {
	op := first_invalid(keda_values("scalingOperator", "autoscaling.keda.sh/operator"), keda_operators)
} else := ["keda-scaling-threshold", sprintf("invalid KEDA scaling threshold %q: must be a valid number", [threshold])] if {
	bad := [t | some t in keda_values("scalingThreshold", "autoscaling.keda.sh/threshold"); not ome.go.is_float(t)]
	threshold := bad[0]
} else := ["keda-prometheus-server-address", sprintf("invalid KEDA Prometheus server address %q: %s", [address, problem])] if {
	problems := [[a, p] |
		some a in keda_values("promServerAddress", "autoscaling.keda.sh/prometheus.serverAddress")
		p := address_problem(a)
		p != ""
	]
	[address, problem] := problems[0]
} else := ["keda-auth-mode", sprintf("invalid KEDA auth mode %q, must be one of: %s", [mode, concat(", ", keda_auth_modes)])] if {
	modes := [m |
		some part in split(object.get(keda_config, "authModes", ""), ",")
		m := trim_space(part)
		m != ""
	]
	mode := first_invalid(modes, keda_auth_modes)
}

keda_operators := ["GreaterThan", "GreaterThanOrEqual", "LessThan", "LessThanOrEqual"]

keda_auth_modes := ["basic", "tls", "bearer", "custom"]

keda_values(field, annotation) := array.concat(
	[v | v := keda_config[field]; v != ""],
	[v | v := annotations[annotation]],
)

# The first of values that is not in valid; undefined when all are.
first_invalid(values, valid) := bad[0] if {
	bad := [v | some v in values; not v in valid]
}

# What OME finds wrong with a Prometheus server address ("" when
# nothing): net/url.Parse's error, else a scheme other than http and
# https, else no host.
address_problem(a) := u.error if {
	u := ome.go.parse_url(a)
	u.error != ""
} else := "scheme must be http or https" if {
	not ome.go.parse_url(a).scheme in {"http", "https"}
} else := "host is required" if {
	ome.go.parse_url(a).host == ""
} else := ""

format_name := format_name_of(model_spec)

# The format name of a model's spec ("" when it has none).
format_name_of(s) := object.get(object.get(s, "modelFormat", {}), "name", "")

# A candidate is compatible, has an entry with autoSelect: true and a score
# above 0. Candidates rank by score, then (for a model with a size) by how
# closely the runtime's size range fits it, then by name.
# (Names are unique within each list, so the check order does not enter.)
# Whether a runtime is compatible is compatible(r), in select_plan.rego.
candidates(runtimes) := [c |
	some k in candidate_keys(runtimes)
	c := object.union(ref(runtimes[k[3]]), {"score": 0 - k[0]})
]

# Each candidate of runtimes as its sort key: [-score, distance, name,
# place in runtimes], best first.
candidate_keys(runtimes) := sort([[0 - score, size_distance(r), r.metadata.name, i] |
	some i, r in runtimes
	compatible(r)
	match.auto_selectable(object.get(r, "spec", {}))
	score := match.runtime_score(model_spec, object.get(r, "spec", {}))
	score > 0
])

# The candidates that tie with the selected runtime on all but the name:
# of its scope, with its score and its distance. OME takes the first by
# name, the selected one, so the choice rests on a name (when certain:
# size_certain).
tied_with := [ref(rs[k[3]]) | some k in array.slice(keys, 1, count(keys))] if {
	[rs, all_keys] := selected_scope
	keys := [k | some k in all_keys; k[0] == all_keys[0][0]; k[1] == all_keys[0][1]]
	size_certain([rs[k[3]] | some k in keys])
} else := []

# A model without a size whose files OME reads (no
# ome.oracle.com/skip-config-parsing: "true") gets one from its weights
# (spec 8), by which OME ranks too: a tie of runtimes is certain only
# when they all have one size range.
size_certain(_) if has(model_spec, "modelParameterSize")

size_certain(_) if object.get(model, ["metadata", "annotations", "ome.oracle.com/skip-config-parsing"], "") == "true"

size_certain(rs) if count({size_range_key(r) | some r in rs}) == 1

size_range_key(r) := [bound_value(range, "min"), bound_value(range, "max"), true] if {
	range := r.spec.modelSizeRange
} else := [null, null, false]

bound_value(range, bound) := ome.size.parse(range[bound]) if has(range, bound)
else := null

# The scope of the selected runtime, with its candidates' keys.
selected_scope := [namespaced_runtimes, keys] if {
	keys := candidate_keys(namespaced_runtimes)
	count(keys) > 0
} else := [cluster_runtimes, keys] if {
	keys := candidate_keys(cluster_runtimes)
	count(keys) > 0
}

# A priority that would make any of the tied runtimes win: one more than
# every priority of their entries (1 when unset); 0 without a tie.
tie_priority := 0 if count(tied_with) == 0
else := max(array.concat([1], [object.get(e, "priority", 1) |
	[rs, keys] := selected_scope
	some k in array.slice(keys, 0, count(tied_with) + 1)
	some e in object.get(rs[k[3]], ["spec", "supportedModelFormats"], [])
])) + 1

size_distance(r) := 0 if not has(model_spec, "modelParameterSize")
else := 0 if not has(object.get(r, "spec", {}), "modelSizeRange")
else := bound_distance(r.spec.modelSizeRange, "min") + bound_distance(r.spec.modelSizeRange, "max")

bound_distance(range, bound) := abs(ome.size.parse(range[bound]) - ome.size.parse(model_spec.modelParameterSize)) if has(range, bound)
else := 0

# Namespaced candidates come before cluster ones: the best namespaced
# runtime wins over any cluster runtime.
ranked := array.concat(candidates(namespaced_runtimes), candidates(cluster_runtimes))

# Spec 9: the deployment mode that each component of the InferenceService
# asks for: the annotation ome.io/deploymentMode of spec.engine and of
# spec.decoder, when it names a mode OME knows.
requested_modes := {c: mode |
	some c in ["engine", "decoder"]
	mode := object.get(spec, [c, "annotations", "ome.io/deploymentMode"], "")
	mode in match.deployment_modes
}

# Spec 9: after the runtime's own checks (match.runtime_gate) and before
# its entries, the deployment mode: a runtime whose engineConfig (then
# decoderConfig) declares a mode OME knows, other than the one the engine
# (the decoder) asks for, is excluded. runtime_own_reason is the reason of
# the first that fails, "" when none does.
runtime_own_reason(runtime_spec) := gate if {
	gate := match.runtime_gate(runtime_spec, accelerator_classes)
	gate != ""
} else := reasons[0] if {
	reasons := [sprintf("runtime %s deployment mode %s does not match requested %s deployment mode %s", [c, mode, c, requested_modes[c]]) |
		some c in ["engine", "decoder"]
		requested_modes[c]
		mode := object.get(runtime_spec, [concat("", [c, "Config"]), "annotations", "ome.io/deploymentMode"], "")
		mode in match.deployment_modes
		mode != requested_modes[c]
	]
	count(reasons) > 0
} else := ""

# The runtimes that are not compatible, in the order OME checks them (the
# ServingRuntimes of the namespace, then the ClusterServingRuntimes; each
# newest creationTimestamp first, none counting as oldest, then by name),
# each with its reason (exclusion_reason, in select_plan.rego).
excluded := array.concat(excluded_of(namespaced_runtimes, "ServingRuntime"), excluded_of(cluster_runtimes, "ClusterServingRuntime"))

# Each runtime's sort key is its age, name and place in the list, followed
# by the runtime and its namespace (object_namespace), which the key never
# reaches: no two runtimes have the same place. rs are runtimes of the kind
# kind.
excluded_of(rs, kind) := [{"kind": kind, "namespace": ns, "name": name, "reason": exclusion_reason(r)} |
	some [_, name, _, r, ns] in sort([[
		age(object.get(r, ["metadata", "creationTimestamp"], null)), r.metadata.name, i,
		r, object.get(r, ["metadata", "namespace"], ""),
	] |
		some i, r in rs
		not compatible(r)
	])
]

checked := {"namespaced": count(namespaced_runtimes), "cluster": count(cluster_runtimes)}

# The runtimes that are compatible but never candidates, in the order OME
# checks them (as excluded), each with why (unselectable_reason).
unselectable := array.concat(unselectable_of(namespaced_runtimes, "ServingRuntime"), unselectable_of(cluster_runtimes, "ClusterServingRuntime"))

unselectable_of(rs, kind) := [{"kind": kind, "namespace": ns, "name": name, "reason": unselectable_reason(object.get(r, "spec", {}))} |
	some [_, name, _, r, ns] in sort([[
		age(object.get(r, ["metadata", "creationTimestamp"], null)), r.metadata.name, i,
		r, object.get(r, ["metadata", "namespace"], ""),
	] |
		some i, r in rs
		compatible(r)
		unselectable_reason(object.get(r, "spec", {})) != ""
	])
]

# Why a compatible runtime is not a candidate ("" when it is one).
unselectable_reason(runtime_spec) := "no entry has autoSelect: true, so OME selects it only by spec.runtime.name" if {
	not match.auto_selectable(runtime_spec)
} else := "score 0: no entry that allows autoSelect agrees with the model's format and framework" if {
	match.runtime_score(model_spec, runtime_spec) <= 0
} else := ""

# OME's message when selection finds no runtime, given how many runtimes
# were checked and the excluded ones, in order.
no_runtime_message(checked_runtimes, excluded_runtimes) := selection_refusal(concat("", [
	sprintf("no runtime found to support model %s with format %s in namespace %s", [format_name, format_name, namespace]),
	checked_detail(checked_runtimes),
	excluded_detail(excluded_runtimes),
]))

checked_detail(c) := "" if c.namespaced + c.cluster == 0
else := sprintf(". Checked %d runtimes (%d namespace-scoped, %d cluster-scoped)", [c.namespaced + c.cluster, c.namespaced, c.cluster])

excluded_detail(rs) := "" if count(rs) == 0
else := concat("", [". Excluded runtimes: ", concat("; ", [concat("", [name, " (", reason, ")"]) | some [name, reason] in named_once(rs)])])

# The excluded runtimes as OME's message names them, [name, reason]. OME
# keeps them in a map keyed by the runtime's name alone, written in the
# order it checks them, so a ServingRuntime and a ClusterServingRuntime of
# one name are named once, with the reason of the one checked last (the
# ClusterServingRuntime). Go's map has no order; here each name keeps the
# place of its first runtime, as an ordered map would.
named_once(rs) := [[name, rs[last[name]].reason] | some [_, name] in firsts] if {
	by_name := sort([[r.name, i] | some i, r in rs])
	last := {name: i | some k, [name, i] in by_name; ends_run(by_name, k)}
	firsts := sort([[i, name] | some j, [name, i] in by_name; starts_run(by_name, j)])
}

# Whether the pair at index j of a sorted list of [name, place] pairs is
# the first (starts_run) or the last (ends_run) of its name.
starts_run(_, 0)

starts_run(pairs, j) if pairs[j - 1][0] != pairs[j][0]

ends_run(pairs, k) if k == count(pairs) - 1

ends_run(pairs, k) if pairs[k + 1][0] != pairs[k][0]

# What OME's controller says of a runtime named in spec.runtime.name: the
# ServingRuntime of the namespace first, then the ClusterServingRuntime
# (the first of them, as for the model). The webhook does not check it, so
# these are warnings.
runtime_name := object.get(object.get(spec, "runtime", {}), "name", "")

named_runtime := rs[0] if {
	rs := array.concat(
		[r | some r in input.objects; r.kind == "ServingRuntime"; r.metadata.name == runtime_name; object_namespace(r) == namespace],
		[r | some r in input.objects; r.kind == "ClusterServingRuntime"; r.metadata.name == runtime_name],
	)
}

warnings := [] if runtime_name == ""
else := [sprintf("runtime %s not found in namespace %s or at cluster scope", [runtime_name, namespace])] if not named_runtime
else := [concat("", [scope(named_runtime), " runtime ", runtime_name, " is disabled"])] if named_runtime.spec.disabled == true
else := [] if not model
else := [sprintf("runtime %s does not support model %s: %s", [runtime_name, format_name, v.reason])] if {
	v := named_runtime_verdict
	not v.compatible
} else := []

scope(r) := "cluster-scoped" if r.kind == "ClusterServingRuntime"
else := "namespace-scoped"

result := object.union(decision, {
	"candidates": candidates_out,
	"tiedWith": tied_with_out,
	"tiePriority": tie_priority_out,
	"excluded": excluded_out,
	"checked": checked_out,
	"unselectable": unselectable_out,
	"warnings": warnings,
	"model": model_out,
})

# Only selection looks at runtimes; the lists are empty otherwise.
candidates_out := ranked if decision.selection
else := []

excluded_out := excluded if decision.selection
else := []

tied_with_out := tied_with if step == "selected"
else := []

tie_priority_out := tie_priority if step == "selected"
else := 0

unselectable_out := unselectable if decision.selection
else := []

checked_out := checked if decision.selection
else := {"namespaced": 0, "cluster": 0}

model_out := ref(model) if model
else := null
