# OMERuntimeSelection: OME's admission webhook on an InferenceService, with
# OME's own rejection message (spec section 10, with runtime selection of
# section 9).
#
# The decision is the project's selection policy, policies/rego/select.rego
# and match.rego, carried in the template's libs as lib.ome.select and
# lib.ome.match. This module only gives it Gatekeeper's input: the object
# under review, and from data.inventory (see policies/gatekeeper/sync.yaml)
# the BaseModels and ServingRuntimes of the object's namespace and the
# ClusterBaseModels and ClusterServingRuntimes of the cluster.
#
# Parameters:
#   validateNamedRuntime (default false): also check a runtime named in
#   spec.runtime.name as OME's controller will (it exists, is not disabled,
#   supports the model). OME's webhook does not, so the default reproduces
#   OME; with true, the controller's complaint is a violation too.
package omeruntimeselection

import data.lib.ome.select

group_version := "ome.io/v1beta1"

isvc := input.review.object

# The object's namespace; the request's when the object does not say (OME
# itself uses "default" when neither does).
namespace := ns if {
	ns := object.get(isvc, ["metadata", "namespace"], "")
	is_string(ns)
	ns != ""
} else := ns if {
	ns := object.get(input.review, "namespace", "")
	is_string(ns)
	ns != ""
} else := "default"

# Where the objects are synced: the BaseModels and ServingRuntimes of the
# namespace, and the cluster's ClusterBaseModels and ClusterServingRuntimes
# under inventory.cluster. A cluster-scoped object that says a namespace
# (the API server drops it, but a test's inventory may keep it) ends up
# under that namespace, and counts all the same.
paths(namespaced_kind, cluster_kind) := array.concat(
	[["namespace", namespace, group_version, namespaced_kind], ["cluster", group_version, cluster_kind]],
	[["namespace", ns, group_version, cluster_kind] | some ns in object.keys(object.get(data.inventory, "namespace", {}))],
)

# The models of the name the InferenceService refers to, whole: select.rego
# reads no other model. The inventory keeps each object under its name, so
# they are looked up, not searched for.
models := [o |
	some path in paths("BaseModel", "ClusterBaseModel")
	o := object.get(data.inventory, array.concat(path, [model_name]), null)
	o.metadata.name == model_name
]

model_name := n if {
	n := select.model_name with input as {"inferenceService": isvc}
}

# The runtimes as the selection policy reads them: the kind, name,
# namespace and creationTimestamp (select.rego reads a namespace "" and a
# creationTimestamp null as none), and the fields of the spec that the
# rules read (select.runtime_spec_fields). Gatekeeper's store turns a
# synced object into a Rego value as the policy reads it, so the rest of a
# runtime (its containers, often most of it) is never converted. (A runtime
# is not handed to a function: that would convert it whole.)
#
# runtimes(keys) are those of keys, a set of [path index, name] (the index
# in runtime_paths), in its order, which is the inventory's (paths, then
# names): all_listed for all of them, listed(model_key) for those that can
# be compatible with the model.
runtimes(keys) := [{
	"kind": o.kind,
	"metadata": {
		"name": o.metadata.name,
		"namespace": object.get(o, ["metadata", "namespace"], ""),
		"creationTimestamp": object.get(o, ["metadata", "creationTimestamp"], null),
	},
	"spec": {k: v | some k in select.runtime_spec_fields; v := o.spec[k]},
} |
	some [i, name] in keys
	o := object.get(data.inventory, runtime_paths[i], {})[name]
]

all_listed := {[i, name] |
	some i, path in runtime_paths
	some name, _ in object.get(data.inventory, path, {})
}

# The runtimes that can be compatible with a model of key [architecture,
# format name] (model_key): those with an entry of that modelArchitecture
# (null: an entry without one) and of that modelFormat name. An entry
# matches a model only if their architectures are equal (both unset
# counts) and it has a modelFormat of the model's format name (match.rego's
# architecture_difference and format_difference), so a runtime left out is
# not compatible. It is a set, so that a runtime with two such entries is
# listed once. (The entries are a list, already a Rego value when read.
# The usual model has an architecture, which a plain comparison finds.)
listed([architecture, format]) := {[i, name] |
	some i, path in runtime_paths
	some name, o in object.get(data.inventory, path, {})
	some e in o.spec.supportedModelFormats
	e.modelArchitecture == architecture
	format_listed(e.modelFormat, format)
} if architecture != null

listed([null, format]) := {[i, name] |
	some i, path in runtime_paths
	some name, o in object.get(data.inventory, path, {})
	some e in o.spec.supportedModelFormats
	object.get(e, "modelArchitecture", null) == null
	format_listed(e.modelFormat, format)
}

# An entry's modelFormat of that name. One that is not an object (the API
# server refuses it, but a test's inventory may have it) is listed: what
# the rules make of it is theirs to say.
format_listed(format, name) if object.get(format, "name", "") == name

format_listed(format, _) if not is_object(format)

runtime_paths := paths("ServingRuntime", "ClusterServingRuntime")

review_isvc := object.union(isvc, {"metadata": {"namespace": namespace}})

# The model's key: its architecture (null when it has none) and its
# format's name ("" when it has none), the model found as select.rego finds
# it.
model_key := k if {
	k := [select.model_architecture, select.format_name] with input as {"inferenceService": review_isvc, "objects": models}
}

# Selection admits the InferenceService with the runtimes listed for the
# model's key exactly when it does with them all, and chooses the same
# runtime: the compatible runtimes are among them. select.selection_admission
# is the decision when selection admits it (undefined otherwise, and no
# reason built). Else the decision is taken again with every runtime:
# select.admission, the whole result (with the excluded runtimes and their
# reasons) when it does not admit, for the webhook's message.
decision := d if {
	d := select.selection_admission with input as {
		"inferenceService": review_isvc,
		"objects": array.concat(models, runtimes(listed(model_key))),
	}
} else := d if {
	d := select.admission with input as {"inferenceService": review_isvc, "objects": array.concat(models, runtimes(all_listed))}
}

details := {
	"model": object.get(decision, "model", null),
	"checked": object.get(decision, "checked", {"namespaced": 0, "cluster": 0}),
	"excluded": [concat("", [kind, " ", name, ": ", reason]) |
		some {"kind": kind, "namespace": _, "name": name, "reason": reason} in object.get(decision, "excluded", [])
	],
}

# The webhook rejects it: one violation, OME's message.
violation contains {"msg": decision.message, "details": details} if {
	isvc.kind == "InferenceService"
	not decision.admitted
}

# The webhook admits it, but OME's controller will refuse the named runtime.
violation contains {"msg": decision.warnings[0], "details": details} if {
	isvc.kind == "InferenceService"
	object.get(input, ["parameters", "validateNamedRuntime"], false) == true
	decision.admitted
	count(decision.warnings) > 0
}
