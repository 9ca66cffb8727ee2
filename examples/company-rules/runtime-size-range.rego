# METADATA
# description: every runtime declares the model sizes it serves (spec.modelSizeRange)
package company.runtime_size_range

runtime_kinds := {"ServingRuntime", "ClusterServingRuntime"}

deny contains {"msg": msg, "field": "spec"} if {
	input.kind in runtime_kinds
	not input.spec.modelSizeRange
	msg := sprintf("%s %s declares no modelSizeRange: say which model sizes it serves", [input.kind, input.metadata.name])
}
