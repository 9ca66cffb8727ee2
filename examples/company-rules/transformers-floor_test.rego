package company.transformers_floor_test

import data.company.transformers_floor

runtime(version) := {
	"kind": "ClusterServingRuntime",
	"metadata": {"name": "srt"},
	"spec": {"supportedModelFormats": [{"modelFramework": {"name": "transformers", "version": version}}]},
}

test_older_than_the_floor_is_denied if {
	transformers_floor.deny == {{
		"msg": "srt accepts transformers 4.36.0, older than the company's floor 4.40",
		"field": "spec.supportedModelFormats[0].modelFramework.version",
	}} with input as runtime("4.36.0")
}

# OME orders versions by their numbers only: 4.40.0.dev0 is not older
# than 4.40.
test_a_dev_release_of_the_floor_passes if {
	count(transformers_floor.deny) == 0 with input as runtime("4.40.0.dev0")
}

test_newer_passes if {
	count(transformers_floor.deny) == 0 with input as runtime("4.46.0")
}
