# The ome.plan.* Go builtins, in plain Rego, for Gatekeeper.
#
# ome.plan.gather and ome.plan.pick (builtins/regolib/plan.go) read the
# memo tables of the Rego evaluation plan in one call each. Here they are
# the comprehensions they stand for. As with the builtins, a result is
# undefined when a key is not in its table (and, for gather, when a row
# does not have one key per table). engine/gatekeeper's
# plan_equivalence_test.go checks that both give the same.
package lib.ome.plan

# Each row's key, to its tables' lists concatenated in table order.
gather(tables, rows) := {row: [item |
	some i, key in keys
	some item in tables[i][key]
] |
	some row, keys in rows
} if {
	is_array(tables)
	every table in tables {
		is_object(table)
	}
	is_object(rows)
	every keys in rows {
		is_array(keys)
		count(keys) == count(tables)
		every i, key in keys {
			is_array(tables[i][key])
		}
	}
}

# The table's value of each key, in order.
pick(table, keys) := [table[k] | some k in keys] if {
	is_object(table)
	is_array(keys)
	every k in keys {
		k in object.keys(table)
	}
}
