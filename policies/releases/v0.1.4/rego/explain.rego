# OME v0.1.4's matching explained, where it differs from v0.1.5's
# (rego/explain.rego).
package ome.explain

# v0.1.4 does not compare diffusion pipelines.
pipeline_check(_, entry) := check("pipeline", true, "the entry asks for no diffusion pipeline", [], "") if {
	not has(entry, "diffusionPipeline")
} else := object.union(
	check("pipeline", true, "OME v0.1.4 does not compare diffusion pipelines", [], ""),
	{"rule": "does not compare diffusion pipelines"},
)

# v0.1.4 reads versions of exactly three numbers, without a v: equal
# versions have equal numbers.
equal_hint := ""

# v0.1.4's reason names the model's label alone: it quotes no entry.
quotes_entries(_, _) := false

reason_rule := "gives the model's label alone as its reason, without the entries' differences"
