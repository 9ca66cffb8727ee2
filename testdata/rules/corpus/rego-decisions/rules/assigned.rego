package corpus.decision_assigned

import data.evaluate

warn contains msg if {
	input.kind in {"ServingRuntime", "ClusterServingRuntime"}
	accepted := evaluate.decision.models
	count(accepted) == 0
	msg := sprintf("%s accepts none of the models", [input.metadata.name])
}
