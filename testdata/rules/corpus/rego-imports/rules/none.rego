package corpus.import_none

deny contains msg if {
	input.kind in {"BaseModel", "ClusterBaseModel"}
	not input.spec.modelParameterSize
	msg := sprintf("%s %s states no modelParameterSize", [input.kind, input.metadata.name])
}
