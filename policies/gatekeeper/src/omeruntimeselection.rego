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

# The models, whole.
models := [o |
	some path in paths("BaseModel", "ClusterBaseModel")
	some o in object.get(data.inventory, path, {})
]

# The runtimes as the selection policy reads them: the kind, name,
# namespace and creationTimestamp (select.rego reads a namespace "" and a
# creationTimestamp null as none), and the fields of the spec that the
# rules read (select.runtime_spec_fields). Gatekeeper's store turns a
# synced object into a Rego value as the policy reads it, so the rest of a
# runtime (its containers, often most of it) is never converted. (A runtime
# is not handed to a function: that would convert it whole.)
#
# runtimes("all") are all of them; runtimes(a), those with an entry of
# modelArchitecture a (null: an entry without one). An entry matches a
# model only if their architectures are equal (both unset counts), so a
# runtime left out by runtimes(the model's architecture) is not compatible.
runtimes(architecture) := [{
	"kind": o.kind,
	"metadata": {
		"name": o.metadata.name,
		"namespace": object.get(o, ["metadata", "namespace"], ""),
		"creationTimestamp": object.get(o, ["metadata", "creationTimestamp"], null),
	},
	"spec": {k: v | some k in select.runtime_spec_fields; v := o.spec[k]},
} |
	some path in paths("ServingRuntime", "ClusterServingRuntime")
	some o in object.get(data.inventory, path, {})
	kept(architecture, object.get(o, ["spec", "supportedModelFormats"], []))
]

# (The entries are a list, already a Rego value when read.)
kept("all", _)

kept(architecture, entries) if entries[_].modelArchitecture == architecture

kept(null, entries) if {
	some e in entries
	not e.modelArchitecture
}

review_isvc := object.union(isvc, {"metadata": {"namespace": namespace}})

# The model's architecture (null when it has none), the model found as
# select.rego finds it.
model_architecture := a if {
	a := select.model_architecture with input as {"inferenceService": review_isvc, "objects": models}
}

# Selection admits the InferenceService with the runtimes of the model's
# architecture exactly when it does with them all, and chooses the same
# runtime: the compatible runtimes are among them. select.selection_admission
# is the decision when selection admits it (undefined otherwise, and no
# reason built). Else the decision is taken again with every runtime:
# select.admission, the whole result (with the excluded runtimes and their
# reasons) when it does not admit, for the webhook's message.
decision := d if {
	d := select.selection_admission with input as {
		"inferenceService": review_isvc,
		"objects": array.concat(models, runtimes(model_architecture)),
	}
} else := d if {
	d := select.admission with input as {"inferenceService": review_isvc, "objects": array.concat(models, runtimes("all"))}
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
