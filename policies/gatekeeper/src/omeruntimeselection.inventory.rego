# OMERuntimeSelection's reading of Gatekeeper's input and data.inventory:
# the object under review, and the models and runtimes it may be decided
# with, as the selection policy reads them (lib.ome.given gives them to
# it).
package lib.ome.inventory

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

# select.model_name reads inferenceService alone.
model_name := select.model_name

# The runtimes as the selection policy reads them: the kind, name,
# namespace and creationTimestamp (select.rego reads a namespace "" and a
# creationTimestamp null as none), and the fields of the spec that the
# rules read (select.runtime_spec_fields, and of
# select.runtime_spec_annotations the annotations alone). Gatekeeper's store turns a
# synced object into a Rego value as the policy reads it, so the rest of a
# runtime (its containers, often most of it) is never converted. (A runtime
# is not handed to a function: that would convert it whole.)
#
# runtimes(keys) are those of keys, a set of [path index, name] (the index
# in runtime_paths), in its order, which is the inventory's (paths, then
# names): all_listed for all of them, maybe_compatible for those that can
# be compatible with the model.
runtimes(keys) := [r | some key in keys; r := runtime(key)]

# The runtime of key [path index, name], as runtimes gives it (undefined
# when it has no kind or name, which the rules would not read).
runtime([i, name]) := {
	"kind": o.kind,
	"metadata": {
		"name": o.metadata.name,
		"namespace": object.get(o, ["metadata", "namespace"], ""),
		"creationTimestamp": object.get(o, ["metadata", "creationTimestamp"], null),
	},
	"spec": object.union(
		{k: v | some k in select.runtime_spec_fields; v := o.spec[k]},
		{k: {"annotations": a} | some k in select.runtime_spec_annotations; a := o.spec[k].annotations},
	),
} if {
	o := object.get(data.inventory, runtime_paths[i], {})[name]
}

all_listed := {[i, name] |
	some i, path in runtime_paths
	some name, _ in object.get(data.inventory, path, {})
}

# The runtimes of the name that spec.runtime.name gives
# (select.runtime_name): all that the rules read of the runtimes when the
# InferenceService names one, for the warnings about it.
named := {[i, name] |
	name := select.runtime_name
	some i, path in runtime_paths
	_ = object.get(data.inventory, path, {})[name]
}

# The runtimes that can be compatible with the InferenceService's model:
# those listed for its key, found among the models alone.
maybe_compatible := listed(select.model_key_of(models))

# The runtimes that can be compatible with a model of key [architecture,
# format name] (select.model_key_of): those with an entry of that modelArchitecture
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
