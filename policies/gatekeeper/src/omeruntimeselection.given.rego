# What OMERuntimeSelection gives the selection policy as its input: the
# two fields select.rego reads, from Gatekeeper's input and data.inventory
# (lib.ome.inventory).
#
# The template's copies of select.rego and select_plan.rego read
# given.inferenceService and given.objects where the sources read
# input.inferenceService and input.objects (`evaluate gatekeeper` rewrites
# every input.x for a rule x of this package), so that the decision is
# taken without replacing input in a with scope: in OPA, every function
# call made inside one costs a lookup of the function's name among the
# with's replacements, a fifth of the time of a refusal with 1,000
# runtimes.
#
# objects are the runtimes that can be compatible with the model: what
# selection needs when it admits, or to tell that it does not. Every other
# runtime is excluded, and the template reads those from data.inventory
# itself (lib.ome.refusal). all_objects are all the runtimes, with which
# the tests hold lib.ome.refusal's result to the rules'. named_objects are
# the runtimes of the name in spec.runtime.name, which the template gives
# the policy when the constraint checks that runtime.
package lib.ome.given

import data.lib.ome.inventory

# The object under review, with its namespace.
inferenceService := object.union(inventory.isvc, {"metadata": {"namespace": inventory.namespace}})

# The models of the name it refers to, then the runtimes that can be
# compatible with the model.
objects := array.concat(inventory.models, inventory.runtimes(inventory.maybe_compatible))

# The models, then every runtime the webhook looks at.
all_objects := array.concat(inventory.models, inventory.runtimes(inventory.all_listed))

# The models, then the runtimes of the name in spec.runtime.name.
named_objects := array.concat(inventory.models, inventory.runtimes(inventory.named))
