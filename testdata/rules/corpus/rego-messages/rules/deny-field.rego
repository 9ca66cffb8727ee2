package corpus.deny_field

deny contains {"msg": msg, "field": "spec.modelSizeRange"} if {
	input.kind == "ClusterServingRuntime"
	not input.spec.modelSizeRange
	msg := sprintf("%s states no modelSizeRange", [input.metadata.name])
}
