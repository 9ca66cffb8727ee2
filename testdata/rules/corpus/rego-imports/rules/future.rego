package corpus.import_future

import future.keywords.contains
import future.keywords.if
import future.keywords.in

warn contains msg if {
	input.kind == "ClusterServingRuntime"
	count(input.spec.supportedModelFormats) > 2
	msg := sprintf("%s accepts %d entries: split it", [input.metadata.name, count(input.spec.supportedModelFormats)])
}
