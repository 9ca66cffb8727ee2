# METADATA
# description: every model in namespace prod is served by at least two runtimes, so that one can fail
package company.prod_redundancy

# OME's decisions, as evaluate gives them beside the object under review:
# of a model, the runtimes that accept it among those OME pairs it with.
deny contains {"msg": msg, "field": "metadata.namespace"} if {
	input.kind == "BaseModel"
	input.metadata.namespace == "prod"
	runtimes := data.evaluate.decision.runtimes
	count(runtimes) < 2
	msg := sprintf("BaseModel prod/%s is served by %d runtime(s): prod needs two, so that one can fail", [input.metadata.name, count(runtimes)])
}
