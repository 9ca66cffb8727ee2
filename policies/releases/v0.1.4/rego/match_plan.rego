# OME v0.1.4's runtime matching over many runtimes, where it differs from
# v0.1.5's (rego/match_plan.rego).
package ome.match

# v0.1.4's reason names no entry: a list without a match has the model's
# label alone, whatever its entries' differences.
list_failures := object.union(object.union(unmatched, matched), empty) if {
	reason := no_format_matched(model_label, "")
	unmatched := {lk: reason | some lk, _ in batch.lists}
	matched := {lk: "" | some lk in ome.plan.rows_with(batch.lists, entry_texts, "")}
	empty := {lk: reason | some lk in batch.empty_lists}
}
