# METADATA
# description: a runtime's size range is written with upper-case units
package corpus.helpers

units := {"B", "M", "T"}

# A helper function: the unit of a size, its last character.
unit(size) := substring(size, count(size) - 1, 1)

# A helper rule: the bounds the runtime states.
bounds contains input.spec.modelSizeRange.min if input.spec.modelSizeRange.min

bounds contains input.spec.modelSizeRange.max if input.spec.modelSizeRange.max

deny contains msg if {
	input.kind in {"ServingRuntime", "ClusterServingRuntime"}
	some b in bounds
	not unit(b) in units
	msg := sprintf("%s: size %s ends in %s, not in B, M or T", [input.metadata.name, b, unit(b)])
}
