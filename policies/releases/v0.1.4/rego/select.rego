# OME v0.1.4's admission webhook, where it differs from v0.1.5's
# (rego/select.rego).
package ome.select

# v0.1.4 does not check first that a model named exists: an InferenceService
# without an engine is admitted, and selection fails to resolve the model
# (model-not-resolved).
model_not_found := false

# v0.1.4 knows the autoscaler class keda, but handles it as no class.
keda_refusal := ["autoscaler-class", "unknown autoscaler class [keda]"]

# v0.1.4's refusal by selection does not say what selection found.
selection_refusal(_) := concat("", ["no supporting runtime found for model ", model_name, " and engine does not have complete runner configuration"])
