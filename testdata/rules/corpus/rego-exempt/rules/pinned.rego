package corpus.pinned

deny contains msg if {
	input.kind in {"ServingRuntime", "ClusterServingRuntime"}
	some entry in input.spec.supportedModelFormats
	entry.autoSelect
	not entry.modelFramework.version
	msg := sprintf("%s: an autoSelect entry pins no framework version", [input.metadata.name])
}
