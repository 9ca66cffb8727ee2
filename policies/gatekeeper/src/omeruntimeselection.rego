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

namespaced_objects := array.concat(
	models_at(["namespace", namespace, group_version, "BaseModel"]),
	runtimes_at(["namespace", namespace, group_version, "ServingRuntime"]),
)

# Cluster-scoped objects are synced under inventory.cluster; one that says
# a namespace (the API server drops it, but a test's inventory may keep it)
# ends up under that namespace, and counts all the same.
cluster_objects := array.concat(
	array.concat(
		models_at(["cluster", group_version, "ClusterBaseModel"]),
		runtimes_at(["cluster", group_version, "ClusterServingRuntime"]),
	),
	[o |
		some ns in object.keys(object.get(data.inventory, "namespace", {}))
		some o in array.concat(
			models_at(["namespace", ns, group_version, "ClusterBaseModel"]),
			runtimes_at(["namespace", ns, group_version, "ClusterServingRuntime"]),
		)
	],
)

# The models synced under path, whole.
models_at(path) := [o | some o in object.get(data.inventory, path, {})]

# The runtimes synced under path, as the selection policy reads them: the
# kind, name, namespace and creationTimestamp, and the fields of the spec
# that the rules read (select.runtime_spec_fields). Gatekeeper's store
# turns a synced object into a Rego value as the policy reads it, so the
# rest of a runtime (its containers, often most of it) is never converted.
# (The runtime is not handed to a function: that would convert it whole.)
runtimes_at(path) := [{
	"kind": o.kind,
	"metadata": {k: v | some k in ["name", "namespace", "creationTimestamp"]; v := o.metadata[k]},
	"spec": {k: v | some k in select.runtime_spec_fields; v := o.spec[k]},
} |
	some o in object.get(data.inventory, path, {})
]

# select.admission: the decision alone when the InferenceService is
# admitted by selection, the whole result (with the excluded runtimes and
# their reasons) otherwise.
decision := d if {
	d := select.admission with input as {
		"inferenceService": object.union(isvc, {"metadata": {"namespace": namespace}}),
		"objects": array.concat(namespaced_objects, cluster_objects),
	}
}

details := {
	"model": object.get(decision, "model", null),
	"checked": object.get(decision, "checked", {"namespaced": 0, "cluster": 0}),
	"excluded": [concat("", [e.kind, " ", e.name, ": ", e.reason]) | some e in object.get(decision, "excluded", [])],
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
