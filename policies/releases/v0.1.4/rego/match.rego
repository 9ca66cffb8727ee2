# OME v0.1.4's runtime matching, where it differs from v0.1.5's
# (rego/match.rego).
package ome.match

# v0.1.4 reads versions of exactly three numbers, without a v: a runtime
# entry or a model at "4.51" or "v1.0.0" never matches.
version_parses(v) if {
	ome.version.is_valid(v)
	ome.version.parts(v) == 3
	not ome.version.has_v(v)
}

version_accepted(op, entry_version, model_version) if {
	version_parses(entry_version)
	version_parses(model_version)
	operator_accepts(op, entry_version, model_version)
}

# v0.1.4 does not compare diffusion pipelines.
pipeline_difference(_, _) := ""

# v0.1.4's reason names the model's label alone, not the entries'
# differences.
no_format_matched(lbl, _) := concat("", ["model format '", lbl, "' not in supported formats"])

version_problem(v) := "OME before v0.1.5 reads exactly three numbers, without a v" if {
	ome.version.is_valid(v)
} else := ome.version.problem(v)
