# The ome.plan.* Go builtins, in plain Rego, for Gatekeeper.
#
# ome.plan.gather, pick, join_each, join_rows, rows_with and fill_blanks
# (builtins/regolib/plan.go) read and put together the memo tables of the
# Rego evaluation plan in one call each. Here they are the comprehensions
# they stand for. As with the builtins, a result is undefined when a key is
# not in its table, or a value is not of the kind the builtin takes.
# engine/gatekeeper's plan_equivalence_test.go checks that both give the
# same.
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

# Each key of table, to its list of strings joined with sep.
join_each(table, sep) := {k: concat(sep, list) | some k, list in table} if {
	is_object(table)
	is_string(sep)
	every list in table {
		is_array(list)
		every s in list {
			is_string(s)
		}
	}
}

# Each row's key, to prefix followed by its keys' texts joined with sep.
join_rows(prefix, sep, table, rows) := {row: concat("", [prefix, concat(sep, [table[k] | some k in keys])]) |
	some row, keys in rows
} if {
	is_string(prefix)
	is_string(sep)
	is_object(table)
	is_object(rows)
	every keys in rows {
		is_array(keys)
		every k in keys {
			is_string(table[k])
		}
	}
}

# The keys of the rows that list a key whose value in table is value.
rows_with(rows, table, value) := {row |
	some row, keys in rows
	some k in keys
	table[k] == value
} if {
	is_object(rows)
	is_object(table)
	every keys in rows {
		is_array(keys)
		every k in keys {
			k in object.keys(table)
		}
	}
}

# list, with each element equal to blank replaced by fill's at its index.
fill_blanks(list, blank, fill) := [filled(x, blank, fill[i]) | some i, x in list] if {
	is_array(list)
	is_array(fill)
	count(list) == count(fill)
}

filled(x, blank, y) := y if x == blank
else := x
