# OME v0.1.4's matching explained, where it differs from v0.1.5's
# (rego/explain.rego).
package ome.explain

# v0.1.4 does not compare diffusion pipelines.
pipeline_check(_, entry) := check("pipeline", true, "the entry asks for no diffusion pipeline", [], "") if {
	not has(entry, "diffusionPipeline")
} else := check("pipeline", true, "OME v0.1.4 does not compare diffusion pipelines", [], "")
