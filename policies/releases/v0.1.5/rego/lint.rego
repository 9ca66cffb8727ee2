# Lint for OME v0.1.5, where it differs from v1.2.2 (rego/lint.rego).
package ome.lint

# v0.1.5 reads no deployment mode.
deployment_mode_findings := []
