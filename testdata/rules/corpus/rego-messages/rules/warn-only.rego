package corpus.warn_only

warn contains msg if {
	input.kind == "ClusterServingRuntime"
	not input.spec.disabled
	count(input.spec.supportedModelFormats) == 1
	msg := sprintf("%s accepts one entry", [input.metadata.name])
}
