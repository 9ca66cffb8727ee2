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
import data.lib.ome.refusal
import data.lib.ome.select

# The decision. The steps before selection look at no runtime, so their
# decision is taken with the models alone (inventory.models), and no
# runtime is read. When the constraint checks the runtime named in
# spec.runtime.name, their whole result (select.admission) has its
# warnings, which read the runtimes of that name alone
# (given.named_objects).
#
# Selection admits the InferenceService with the runtimes that can be
# compatible with the model (given.objects) exactly when it does with them
# all, and chooses the same runtime: the compatible runtimes are among
# them. select.selection_admission is the decision when selection admits
# it (undefined otherwise, and no reason built). When selection refuses
# (no runtime), the whole result with every runtime is lib.ome.refusal's.
# A model without a format name is refused before any runtime is looked
# at, so its result is the same with any of them.
decision := d if {
	before_selection
	not validates_named_runtime
	d := object.union(select.decision, {"model": select.model_out}) with given.objects as inventory.models
} else := d if {
	before_selection
	d := select.admission with given.objects as given.named_objects
} else := d if {
	d := select.selection_admission
} else := refusal.result if {
	select.step == "no-runtime"
} else := select.admission

before_selection if not select.decision.selection with given.objects as inventory.models

validates_named_runtime if object.get(input, ["parameters", "validateNamedRuntime"], false) == true

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
	validates_named_runtime
	decision.admitted
	count(decision.warnings) > 0
}
