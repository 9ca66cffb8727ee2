# OMERuntimeSelection: OME's admission webhook on an InferenceService, with
# OME's own rejection message (spec section 10, with runtime selection of
# section 9).
#
# The decision is the project's selection policy, policies/rego/select.rego
# and match.rego, carried in the template's libs as lib.ome.select and
# lib.ome.match, which read their input from lib.ome.given
# (omeruntimeselection.given.rego): the object under review, and from
# data.inventory (lib.ome.inventory; see policies/gatekeeper/sync.yaml) the
# BaseModels and ServingRuntimes of the object's namespace and the
# ClusterBaseModels and ClusterServingRuntimes of the cluster. This module
# decides in which order the runtimes are asked, and gives the violations.
#
# Parameters:
#   validateNamedRuntime (default false): also check a runtime named in
#   spec.runtime.name as OME's controller will (it exists, is not disabled,
#   supports the model). OME's webhook does not, so the default reproduces
#   OME; with true, the controller's complaint is a violation too.
package omeruntimeselection

import data.lib.ome.given
import data.lib.ome.inventory
import data.lib.ome.select

# The model's key: its architecture (null when it has none) and its
# format's name ("" when it has none), the model found as select.rego finds
# it, among the models alone.
model_key := k if {
	k := [select.model_architecture, select.format_name] with given.objects as inventory.models
}

# Selection admits the InferenceService with the runtimes listed for the
# model's key exactly when it does with them all, and chooses the same
# runtime: the compatible runtimes are among them. select.selection_admission
# is the decision when selection admits it (undefined otherwise, and no
# reason built). Else the decision is taken again with every runtime
# (given.objects): select.admission, the whole result (with the excluded
# runtimes and their reasons) when it does not admit, for the webhook's
# message.
decision := d if {
	d := select.selection_admission with given.objects as array.concat(inventory.models, inventory.runtimes(inventory.listed(model_key)))
} else := select.admission

details := {
	"model": object.get(decision, "model", null),
	"checked": object.get(decision, "checked", {"namespaced": 0, "cluster": 0}),
	"excluded": [concat("", [kind, " ", name, ": ", reason]) |
		some {"kind": kind, "namespace": _, "name": name, "reason": reason} in object.get(decision, "excluded", [])
	],
}

# The webhook rejects it: one violation, OME's message.
violation contains {"msg": decision.message, "details": details} if {
	inventory.isvc.kind == "InferenceService"
	not decision.admitted
}

# The webhook admits it, but OME's controller will refuse the named runtime.
violation contains {"msg": decision.warnings[0], "details": details} if {
	inventory.isvc.kind == "InferenceService"
	object.get(input, ["parameters", "validateNamedRuntime"], false) == true
	decision.admitted
	count(decision.warnings) > 0
}
