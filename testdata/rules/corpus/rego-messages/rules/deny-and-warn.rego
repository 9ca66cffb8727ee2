package corpus.deny_and_warn

deny contains msg if {
	input.kind == "ClusterServingRuntime"
	some entry in input.spec.supportedModelFormats
	not entry.modelFormat.version
	msg := sprintf("%s: an entry without a format version", [input.metadata.name])
}

warn_autoselect contains msg if {
	input.kind == "ClusterServingRuntime"
	some entry in input.spec.supportedModelFormats
	not entry.autoSelect
	msg := sprintf("%s: an entry OME selects only by name", [input.metadata.name])
}
