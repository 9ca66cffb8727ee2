package corpus.decision_admitted

deny contains msg if {
	input.kind == "InferenceService"
	data.evaluate.decision.admitted == false
	msg := sprintf("%s would be refused by OME: %s", [input.metadata.name, data.evaluate.decision.message])
}

deny contains msg if {
	input.kind == "InferenceService"
	some r in [data.evaluate.decision.runtime]
	r.kind == "ClusterServingRuntime"
	msg := sprintf("%s would run on the cluster's runtime %s, not on one of its namespace", [input.metadata.name, r.name])
}
