# METADATA
# description: a model of namespace corp is served by two runtimes at least
package corpus.decision_inline

deny contains {"msg": msg, "field": "metadata.name"} if {
	input.kind == "BaseModel"
	input.metadata.namespace == "corp"
	count(data.evaluate.decision.runtimes) < 2
	msg := sprintf("%s is served by %d runtime(s): corp needs two", [input.metadata.name, count(data.evaluate.decision.runtimes)])
}
