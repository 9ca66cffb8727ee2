package corpus.multifile

deny contains msg if {
	input.kind in {"ServingRuntime", "ClusterServingRuntime"}
	some entry in input.spec.supportedModelFormats
	old(entry)
	msg := sprintf("%s accepts %s", [input.metadata.name, describe(entry)])
}
