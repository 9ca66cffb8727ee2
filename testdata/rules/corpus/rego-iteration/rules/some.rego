package corpus.some_in

deny contains {"msg": msg, "field": sprintf("spec.supportedModelFormats[%d].modelFramework.version", [i])} if {
	some i, entry in input.spec.supportedModelFormats
	some v in ["4.36.0", "4.37.0"]
	entry.modelFramework.version == v
	msg := sprintf("%s accepts transformers %s, which is withdrawn", [input.metadata.name, v])
}
