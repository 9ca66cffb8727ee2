# Lint for OME v0.1.4, where it differs from v0.1.5 (rego/lint.rego).
package ome.lint

# v0.1.4 reads versions of exactly three numbers, without a v: a plain
# version has three numbers.
_plain_number_version := concat("", [_plain_number, `\.`, _plain_number, `\.`, _plain_number])

_plain_version := concat("", [
	_plain_number, `\.`, _plain_number, `\.`, _plain_number,
	`(?:\.[0-9A-Za-z]+)*(?:-[0-9A-Za-z]+(?:\.[0-9A-Za-z]+)*)?(?:\+[0-9A-Za-z]+(?:\.[0-9A-Za-z]+)*)?`,
])

version_form := `Write exactly three numbers without a v, and any suffix after the third number only, such as "1.0.0", "4.46.0" or "4.45.0.dev0".`

# v0.1.4 does not read diffusionPipeline, and its CRDs drop it on apply.
unread_field_findings := [{
	"rule": "unread-field", "severity": "warning", "field": concat(".", [s.path, "diffusionPipeline"]),
	"message": concat("", [
		"OME v0.1.4 does not read diffusionPipeline, and its CRD drops the field on apply", s.consequence,
		". Remove it, or upgrade OME to v0.1.5 or later, which compares pipelines.",
	]),
} |
	some s in array.concat(
		[{"path": "spec", "value": spec, "consequence": ""} | is_model],
		[{"path": entry_path(i), "value": e, "consequence": ": the entry accepts models whatever their pipeline"} |
			some i, e in formats_list
			is_object(e)
		],
	)
	has(s.value, "diffusionPipeline")
]
