# METADATA
# description: a runtime entry that names transformers states its version
package corpus.import_v1

import rego.v1

deny contains msg if {
	input.kind in {"ServingRuntime", "ClusterServingRuntime"}
	some entry in input.spec.supportedModelFormats
	entry.modelFramework.name == "transformers"
	not entry.modelFramework.version
	msg := sprintf("%s: a transformers entry without a version", [input.metadata.name])
}
