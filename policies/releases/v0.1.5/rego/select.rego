# OME v0.1.5's admission webhook, where it differs from v1.2.2's
# (rego/select.rego).
package ome.select

# v0.1.5 has no runtime revision to pin (spec.runtime.revision).
runtime_pin_refusal := ""

# v0.1.5 reads no deployment mode: no runtime is excluded for one.
requested_modes := {}
