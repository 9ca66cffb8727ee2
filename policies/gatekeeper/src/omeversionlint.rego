# OMEVersionLint: the single-object rules of `evaluate lint` at admission,
# with the same rule ids and messages, on BaseModel, ClusterBaseModel,
# ServingRuntime and ClusterServingRuntime.
#
# The rules are the project's lint policy, policies/rego/lint.rego, carried
# in the template's libs as lib.ome.lint; this module picks the rules that
# make sense for one object at admission:
#
#   errors:   invalid-version, empty-version, unknown-operator,
#             missing-format, missing-framework (runtime entries),
#             incomplete-size-range, unparsed-size
#   warnings: ordering-operator-with-suffix, operator-without-version,
#             ignored-field, zero-weight, implicit-autoselect, name-case
#             (well-known names only), unknown-deployment-mode (the
#             releases it applies to)
#
# Left out: non-string-version and wrong-type (the API server refuses such
# objects first), duplicate-name and the cross-check (they need the whole
# input; selection-tie among them), a model's missing framework (a warning about matching, not an
# error of the object), and a model's missing format when OME will fill it
# in from the model's files (no ome.oracle.com/skip-config-parsing: "true"),
# and unread-field (the API server prunes a field its CRD lacks before
# admission).
#
# Parameters:
#   severities (default ["error"]): the severities to enforce; one
#   constraint per enforcement action, such as deny for errors and warn
#   for warnings.
#
# The template also carries the same rules as CEL (omeversionlint.cel.yaml,
# built from policies/cel/lint.yaml), which Gatekeeper runs instead of this
# Rego when its CEL engine is on (the default), and from which it can
# generate a ValidatingAdmissionPolicy. Both give the same violations: the
# suite passes under gator with and without the CEL engine.
#
# Each finding is a violation: "[rule] field: message", up to
# max_violations; past that, the last one says how many more there are, as
# the template's CEL code does (a ValidatingAdmissionPolicy has a fixed
# list of validations).
package omeversionlint

import data.lib.ome.lint

obj := input.review.object

severities := object.get(input, ["parameters", "severities"], ["error"])

rules := {
	"invalid-version", "empty-version", "unknown-operator", "missing-format", "missing-framework",
	"incomplete-size-range", "unparsed-size", "ordering-operator-with-suffix", "operator-without-version", "ignored-field",
	"zero-weight", "implicit-autoselect", "unknown-deployment-mode",
}

is_model if obj.kind in {"BaseModel", "ClusterBaseModel"}

skip_config_parsing if obj.metadata.annotations["ome.oracle.com/skip-config-parsing"] == "true"

left_out(f) if {
	is_model
	f.rule == "missing-framework"
}

left_out(f) if {
	is_model
	f.rule == "missing-format"
	not skip_config_parsing
}

# What lib.ome.lint finds in the object (lib.ome.given gives it the
# object under review): the findings of the template's rules of a
# severity the constraint enforces, and the modelFormat and modelFramework
# blocks that are objects (of the entries that are not plain only: a plain
# entry has nothing to find, and its names are lowercase).
lint_result := {"findings": array.concat(error_rule_findings, warning_rule_findings), "blocks": lint.map_blocks}

# The findings of the rules whose findings are errors (a model's missing
# framework, a warning, is left out below), and of those whose findings
# are warnings, each only when the constraint enforces that severity.
error_rule_findings := array.concat(
	array.concat(lint.version_findings, lint.unknown_operator_findings),
	array.concat(lint.presence_findings, array.concat(lint.size_range_findings, lint.size_findings)),
) if "error" in severities
else := []

warning_rule_findings := array.concat(
	array.concat(lint.operator_without_version_findings, lint.ordering_with_suffix_findings),
	array.concat(
		array.concat(lint.ignored_findings, lint.deployment_mode_findings),
		array.concat(lint.weight_findings, lint.autoselect_findings),
	),
) if "warning" in severities
else := []

object_findings := [f |
	some f in lint_result.findings
	f.rule in rules
	not left_out(f)
]

# name-case, for names that are a well-known name in another case only (a
# warning).
name_case_findings := [f |
	"warning" in severities
	some b in lint_result.blocks
	name := b.value.name
	is_string(name)
	name != ""
	not name in lint.well_known
	lower(name) in lint.well_known
	f := lint.well_known_case_finding({"index": 0, "what": b.what, "field": concat(".", [b.path, "name"]), "name": name})
]

max_violations := 32

enforced := [f |
	obj.kind in {"BaseModel", "ClusterBaseModel", "ServingRuntime", "ClusterServingRuntime"}
	some f in array.concat(object_findings, name_case_findings)
	f.severity in severities
]

message(f) := sprintf("[%s] %s: %s", [f.rule, f.field, f.message])

# Each finding's message with its details, in the order of the messages.
messages := sort([[message(f), {"rule": f.rule, "severity": f.severity, "field": f.field}] | some f in enforced])

violation contains {"msg": m[0], "details": m[1]} if {
	count(messages) <= max_violations
	some m in messages
}

violation contains {"msg": messages[i][0], "details": messages[i][1]} if {
	count(messages) > max_violations
	some i in numbers.range(0, max_violations - 2)
}

violation contains {"msg": msg} if {
	count(messages) > max_violations
	msg := sprintf(
		"[more-findings] object: %d more lint findings; run evaluate lint on the object to see them all (first %d shown)",
		[count(messages) - (max_violations - 1), max_violations - 1],
	)
}
