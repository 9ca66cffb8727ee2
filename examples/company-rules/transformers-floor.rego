# METADATA
# description: no runtime accepts models of transformers older than 4.40
package company.transformers_floor

floor := "4.40"

deny contains {"msg": msg, "field": field} if {
	input.kind in {"ServingRuntime", "ClusterServingRuntime"}
	some i, entry in input.spec.supportedModelFormats
	entry.modelFramework.name == "transformers"
	version := entry.modelFramework.version
	ome.version.compare(version, floor) < 0
	field := sprintf("spec.supportedModelFormats[%d].modelFramework.version", [i])
	msg := sprintf("%s accepts transformers %s, older than the company's floor %s", [input.metadata.name, version, floor])
}
