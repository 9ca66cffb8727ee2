# Lint for OME v0.1.5, where it differs from v1.2.2 (rego/lint.rego).
package ome.lint

# v0.1.5 compares no deployment mode when it selects a runtime: any
# ome.io/deploymentMode is unknown to it, which an info says.
deployment_mode_findings := [{
	"rule": "unknown-deployment-mode", "severity": "info", "field": a.field,
	"message": concat("", [
		`OME before v1.2.2 compares no deployment mode when it selects a runtime: ome.io/deploymentMode "`,
		a.mode, `" `, unread_mode_consequence(a.component), later_mode(a.mode),
	]),
} |
	some a in mode_annotations
]

unread_mode_consequence(_) := "excludes this runtime for no InferenceService's mode" if is_runtime

unread_mode_consequence(c) := concat("", ["excludes no runtime for this InferenceService's ", c, " mode"]) if is_service

later_mode(mode) := ". OME v1.2.2 compares it." if mode in match.deployment_modes
else := concat("", [". Nor will OME v1.2.2, which knows ", concat(", ", match.deployment_modes), ": write one of them, or remove the annotation."])
