package corpus.violation_details

# Gatekeeper's own form: violation with details.
violation contains {"msg": msg, "details": {"runtime": input.metadata.name}} if {
	input.kind == "ClusterServingRuntime"
	input.spec.disabled == true
	msg := sprintf("%s is disabled: remove it", [input.metadata.name])
}
