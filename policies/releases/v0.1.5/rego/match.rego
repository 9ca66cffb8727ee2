# OME v0.1.5's runtime matching and scores, where they differ from v1.2.2's
# (rego/match.rego).
package ome.match

# v0.1.5 scores an entry without a modelFormat 0 (v1.2.2 gives it its
# framework's part).
format_agrees(model, entry) if {
	model_format := object.get(model, "modelFormat", {})
	object.get(entry.modelFormat, "name", "") == object.get(model_format, "name", "")
	set_versions_agree(entry.modelFormat, model_format)
}
