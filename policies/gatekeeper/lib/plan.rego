# The ome.plan.* Go builtin, in plain Rego, for Gatekeeper.
#
# ome.plan.gather (builtins/regolib/plan.go) joins the memo tables of the
# Rego evaluation plan in one call. Here it is the comprehension it stands
# for: each row's key, to its tables' lists concatenated in table order.
# As with the builtin, the result is undefined when a row does not have one
# key per table or names a key that its table does not have.
# policies/gatekeeper's equivalence test checks that both give the same.
package lib.ome.plan

gather(tables, rows) := {row: [item |
	some i, key in keys
	some item in tables[i][key]
] |
	some row, keys in rows
} if {
	every keys in rows {
		is_array(keys)
		count(keys) == count(tables)
		every i, key in keys {
			is_array(tables[i][key])
		}
	}
}
