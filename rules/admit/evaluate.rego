# OME's decisions about the object under review, in a team's Gatekeeper
# template: what evaluate gives a team's rule as data.evaluate (see
# docs/rules.md), which the template's copy of the rule reads here
# (data.lib.evaluate). They are taken from the object under review and
# data.inventory (the models and runtimes that sync.yaml syncs), with the
# rules of OMERuntimeSelection, whose libraries the template carries: its
# decision on an InferenceService is the one OMERuntimeSelection enforces.
#
# objects are the synced models and runtimes, with the object under review
# in place of the stored one of its kind, namespace and name (or added):
# unlike evaluate, which gives every object of its input, they hold no
# InferenceService (Gatekeeper syncs none). The runtimes of a model's
# decision and the models of a runtime's are in the order of their kind,
# namespace and name, as evaluate gives them.
package lib.evaluate

import data.lib.ome.given
import data.lib.ome.inventory
import data.lib.ome.match
import data.lib.ome.runtimeselection
import data.lib.ome.select

group_version := "ome.io/v1beta1"

kinds := ["BaseModel", "ClusterBaseModel", "ServingRuntime", "ClusterServingRuntime"]

# The object under review, with its namespace when its kind has one (the
# request's, else "default", as inventory.namespace says).
reviewed := object.union(inventory.isvc, {"metadata": {"namespace": inventory.namespace}}) if {
	inventory.isvc.kind in {"BaseModel", "ServingRuntime", "InferenceService"}
} else := inventory.isvc

ref(o) := {"kind": o.kind, "namespace": object.get(o, ["metadata", "namespace"], ""), "name": o.metadata.name}

# The synced objects of a kind: under their namespace, or the cluster's.
synced(kind) := array.concat(
	[o | some ns; o := data.inventory.namespace[ns][group_version][kind][_]],
	[o | o := data.inventory.cluster[group_version][kind][_]],
)

objects := array.concat(
	[o | some kind in kinds; some o in synced(kind); ref(o) != ref(reviewed)],
	[reviewed],
)

is_model(o) if o.kind in {"BaseModel", "ClusterBaseModel"}

is_runtime(o) if o.kind in {"ServingRuntime", "ClusterServingRuntime"}

# OME pairs a BaseModel with the ServingRuntimes of its namespace alone.
in_scope(model, runtime) if runtime.kind != "ServingRuntime"

in_scope(model, runtime) if model.kind != "BaseModel"

in_scope(model, runtime) if model.metadata.namespace == runtime.metadata.namespace

compatible(model, runtime) if {
	match.runtime_result(object.get(model, "spec", {}), object.get(runtime, "spec", {})).compatible
}

# The references of os, in the order of kind, namespace and name.
refs(os) := [by_key[k] | some k in sort(object.keys(by_key))] if {
	by_key := {concat("/", [r.kind, r.namespace, r.name]): r | some o in os; r := ref(o)}
}

# Of a model, the runtimes that accept it among those OME pairs it with.
decision := {"runtimes": refs([r | some r in objects; is_runtime(r); in_scope(reviewed, r); compatible(reviewed, r)])} if {
	is_model(reviewed)
}

# Of a runtime, the models it accepts among those OME pairs it with.
decision := {"models": refs([m | some m in objects; is_model(m); in_scope(m, reviewed); compatible(m, reviewed)])} if {
	is_runtime(reviewed)
}

# Of an InferenceService, the webhook's verdict, the runtime it selects
# (null when it selects none) and the model it refers to (null when there
# is none).
decision := {
	"admitted": d.admitted,
	"message": d.message,
	"check": d.check,
	"runtime": selected(d),
	"model": model,
} if {
	reviewed.kind == "InferenceService"
	d := runtimeselection.decision
	model := select.model_out with given.objects as inventory.models
}

selected(d) := {"kind": s.kind, "namespace": s.namespace, "name": s.name} if {
	s := d.selected
} else := null
