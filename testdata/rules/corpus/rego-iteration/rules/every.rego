package corpus.every_entry

deny contains msg if {
	input.kind in {"ServingRuntime", "ClusterServingRuntime"}
	not every_entry_versioned
	msg := sprintf("%s: every entry states its format's version", [input.metadata.name])
}

every_entry_versioned if {
	every entry in input.spec.supportedModelFormats {
		entry.modelFormat.version
	}
}
