# OME v0.1.5's admission webhook and scores, where they differ from
# v1.2.2's (rego/select.rego).
package ome.select

# v0.1.5 has no runtime revision to pin (spec.runtime.revision).
runtime_pin_refusal := ""

# v0.1.5 reads no deployment mode: no runtime is excluded for one.
requested_modes := {}

# v0.1.5 scores an entry without a modelFormat 0 (v1.2.2 gives it its
# framework's part).
format_agrees(model, entry) if {
	model_format := object.get(model, "modelFormat", {})
	object.get(entry.modelFormat, "name", "") == object.get(model_format, "name", "")
	set_versions_agree(entry.modelFormat, model_format)
}
