# OMERuntimeSelection's plan for a refusal by selection (select.step
# "no-runtime"): the whole result that select.rego gives with every runtime
# (select.admission with given.all_objects), for OME's message and the
# violation's details, without handing every runtime to the rules.
#
# Selection refuses when no runtime can be chosen, and OME's message then
# lists every runtime it looked at that is not compatible, with its
# reason. Most of them cannot be compatible: they have no entry of the
# model's architecture and format name (not inventory.maybe_compatible).
# For those whose own checks cannot fail either (select.gate_may_fail:
# they are not disabled, and the InferenceService asks for no accelerator
# class), the reason is select.entries_or_size_reason of their entries
# and modelSizeRange, as select.exclusion_reason gives it, so they are
# read from data.inventory as they are, field by field, with no copy of
# each made for the rules. The others are read as the rules read every
# runtime (inventory.runtime), asked whether they are compatible
# (select.compatible) and given select.exclusion_reason.
#
# The runtimes are then put in the order of select.excluded_of: the
# ServingRuntimes of the namespace, then the ClusterServingRuntimes, each
# newest first (select.age), then by name and by place in the inventory
# (path, then key), which is the order in which given.all_objects lists
# them. TestRefusalPlanIsTheWholeResult holds this result to
# select.admission with every runtime.
package lib.ome.refusal

import data.lib.ome.inventory
import data.lib.ome.select

result := {
	"admitted": false,
	"selection": true,
	"message": select.no_runtime_message(checked, excluded),
	"check": "no-runtime",
	"model": select.model_out,
	"checked": checked,
	"excluded": excluded,
}

# Every runtime looked at, as [place, age, name, path index, key,
# namespace, reason], place 0 for a ServingRuntime of the namespace and 1
# for a ClusterServingRuntime, the reason null for a compatible runtime.
rows := array.concat(plain_rows, read_rows)

# The runtimes that read_keys leaves out: those of no maybe-compatible key
# for which select.gate_may_fail does not hold.
plain_rows := [[place, select.age(object.get(o, ["metadata", "creationTimestamp"], null)), o.metadata.name, i, key, ns, reason] |
	not select.classes_asked
	some i, path in inventory.runtime_paths
	some key, o in object.get(data.inventory, path, {})
	not read_keys[[i, key]]
	ns := object.get(o, ["metadata", "namespace"], "")
	place := place_of(o.kind, ns)
	reason := select.entries_or_size_reason(
		object.get(o, ["spec", "supportedModelFormats"], []),
		object.get(o, ["spec", "modelSizeRange"], null),
	)
]

read_rows := [[place, select.age(r.metadata.creationTimestamp), r.metadata.name, i, key, r.metadata.namespace, reason] |
	some [i, key] in read_keys
	r := inventory.runtime([i, key])
	place := place_of(r.kind, r.metadata.namespace)
	reason := reason_unless_compatible(r)
]

# The runtimes read as the rules read them: every runtime when the
# InferenceService asks for accelerator classes, else the maybe-compatible
# ones and the disabled ones (select.gate_may_fail, its two checks written
# out: called with each inventory object, it cost a refusal at 1,000
# runtimes 9.5 MB and a fifth more time).
read_keys := inventory.all_listed if select.classes_asked
else := inventory.maybe_compatible | {[i, key] |
	some i, path in inventory.runtime_paths
	some key, o in object.get(data.inventory, path, {})
	object.get(o, ["spec", "disabled"], null) == true
}

place_of("ServingRuntime", ns) := 0 if ns == select.namespace

place_of("ClusterServingRuntime", _) := 1

reason_unless_compatible(r) := null if select.compatible(r)
else := select.exclusion_reason(r)

kinds := ["ServingRuntime", "ClusterServingRuntime"]

excluded := [{"kind": kinds[place], "namespace": ns, "name": name, "reason": reason} |
	some [place, _, name, _, _, ns, reason] in sort(rows)
	reason != null
]

cluster := count([1 | some [1, _, _, _, _, _, _] in rows])

checked := {"namespaced": count(rows) - cluster, "cluster": cluster}
