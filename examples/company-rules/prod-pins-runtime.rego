# METADATA
# description: an InferenceService in namespace prod names its runtime, so that a new runtime never takes it over
package company.prod_pins_runtime

deny contains {"msg": msg, "field": "spec.runtime.name"} if {
	input.kind == "InferenceService"
	input.metadata.namespace == "prod"
	not input.spec.runtime.name
	msg := sprintf("InferenceService prod/%s names no runtime (spec.runtime.name): in prod, a runtime is chosen, not found", [input.metadata.name])
}
