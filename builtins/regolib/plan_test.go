package regolib_test

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// ome.plan.gather joins lists in table order, row by row, and is undefined
// (not an error) when a row does not fit the tables.
func TestPlanGather(t *testing.T) {
	tables := []any{
		map[string]any{"a": []any{}, "b": []any{"x"}},
		map[string]any{"c": []any{"y", "z"}, "d": []any{}},
		map[string]any{"null": []any{"w"}},
	}
	tests := []struct {
		name string
		rows any
		want string // JSON; "" is undefined
	}{
		{"every list in table order", map[string]any{"r": []any{"b", "c", "null"}}, `{"r":["x","y","z","w"]}`},
		{"empty lists", map[string]any{"r": []any{"a", "d", "null"}}, `{"r":["w"]}`},
		{"many rows", map[string]any{"1": []any{"a", "d", "null"}, "2": []any{"b", "d", "null"}}, `{"1":["w"],"2":["x","w"]}`},
		{"no rows", map[string]any{}, `{}`},
		{"a key its table lacks", map[string]any{"ok": []any{"a", "d", "null"}, "r": []any{"a", "zz", "null"}}, ``},
		{"a key of another table", map[string]any{"r": []any{"c", "d", "null"}}, ``},
		{"too few keys", map[string]any{"r": []any{"a", "d"}}, ``},
		{"too many keys", map[string]any{"r": []any{"a", "d", "null", "a"}}, ``},
		{"keys not a list", map[string]any{"r": "a"}, ``},
		{"rows not an object", []any{[]any{"a", "d", "null"}}, ``},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			input := map[string]any{"tables": tables, "rows": tc.rows}
			require.Equal(t, tc.want, regoValue(t, `ome.plan.gather(input.tables, input.rows)`, input))
		})
	}

	// A cell that is not a list, and tables that are not objects.
	bad := map[string]any{"r": []any{"a"}}
	for _, tables := range []any{
		[]any{map[string]any{"a": "text"}},
		[]any{[]any{"a"}},
		map[string]any{"a": []any{}},
	} {
		require.Equal(t, "", regoValue(t, `ome.plan.gather(input.tables, input.rows)`, map[string]any{"tables": tables, "rows": bad}), "%v", tables)
	}
	// No tables: every row has no keys, and gets [].
	require.Equal(t, `{"r":[]}`, regoValue(t, `ome.plan.gather([], {"r": []})`, nil))
}

// ome.plan.pick reads a table in the keys' order, repeats included, and is
// undefined when a key is missing.
func TestPlanPick(t *testing.T) {
	table := map[string]any{"a": "", "b": "text", "c": false}
	tests := []struct {
		name  string
		table any
		keys  any
		want  string // JSON; "" is undefined
	}{
		{"in the keys' order", table, []any{"b", "a", "c"}, `["text","",false]`},
		{"a key twice", table, []any{"a", "a"}, `["",""]`},
		{"no keys", table, []any{}, `[]`},
		{"a missing key", table, []any{"a", "z"}, ``},
		{"keys not a list", table, map[string]any{"0": "a"}, ``},
		{"table not an object", []any{"a"}, []any{"a"}, ``},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			input := map[string]any{"table": tc.table, "keys": tc.keys}
			require.Equal(t, tc.want, regoValue(t, `ome.plan.pick(input.table, input.keys)`, input))
		})
	}
}

// ome.plan.join_each joins each list of strings as concat does, and is
// undefined when a value is not a list of strings.
func TestPlanJoinEach(t *testing.T) {
	tests := []struct {
		name  string
		table any
		sep   any
		want  string // JSON; "" is undefined
	}{
		{"each list joined", map[string]any{"a": []any{"x", "y", "z"}, "b": []any{"w"}}, ", ", `{"a":"x, y, z","b":"w"}`},
		{"an empty list is empty text", map[string]any{"a": []any{}}, ", ", `{"a":""}`},
		{"no keys", map[string]any{}, "; ", `{}`},
		{"an empty separator", map[string]any{"a": []any{"x", "y"}}, "", `{"a":"xy"}`},
		{"a value not a list", map[string]any{"a": []any{"x"}, "b": "y"}, ", ", ``},
		{"a list with a number", map[string]any{"a": []any{"x", 1}}, ", ", ``},
		{"table not an object", []any{[]any{"x"}}, ", ", ``},
		{"separator not a string", map[string]any{"a": []any{"x"}}, 1, ``},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			input := map[string]any{"table": tc.table, "sep": tc.sep}
			require.Equal(t, tc.want, regoValue(t, `ome.plan.join_each(input.table, input.sep)`, input))
		})
	}
}

// ome.plan.join_rows gives each row the prefix and its keys' texts joined,
// in the row's order, and is undefined when a row does not fit the table.
func TestPlanJoinRows(t *testing.T) {
	table := map[string]any{"a": "x", "b": "y", "e": "", "n": 1}
	tests := []struct {
		name string
		rows any
		want string // JSON; "" is undefined
	}{
		{"in the row's order", map[string]any{"r": []any{"b", "a"}}, `{"r":"no: y; x"}`},
		{"a key twice, and an empty text", map[string]any{"r": []any{"a", "e", "a"}}, `{"r":"no: x; ; x"}`},
		{"a row without keys is the prefix", map[string]any{"r": []any{}, "s": []any{"a"}}, `{"r":"no: ","s":"no: x"}`},
		{"no rows", map[string]any{}, `{}`},
		{"a key the table lacks", map[string]any{"r": []any{"a"}, "s": []any{"z"}}, ``},
		{"a text that is not a string", map[string]any{"r": []any{"n"}}, ``},
		{"keys not a list", map[string]any{"r": "a"}, ``},
		{"rows not an object", []any{[]any{"a"}}, ``},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			input := map[string]any{"table": table, "rows": tc.rows}
			require.Equal(t, tc.want, regoValue(t, `ome.plan.join_rows("no: ", "; ", input.table, input.rows)`, input))
		})
	}
	require.Equal(t, "", regoValue(t, `ome.plan.join_rows(input.p, "; ", {"a": "x"}, {"r": ["a"]})`, map[string]any{"p": 1}))
	require.Equal(t, "", regoValue(t, `ome.plan.join_rows("", input.s, {"a": "x"}, {"r": ["a"]})`, map[string]any{"s": []any{}}))
	require.Equal(t, "", regoValue(t, `ome.plan.join_rows("", "; ", input.t, {"r": ["a"]})`, map[string]any{"t": []any{"x"}}))
}

// ome.plan.rows_with finds the rows that list a key of the value, and is
// undefined when a row does not fit the table.
func TestPlanRowsWith(t *testing.T) {
	table := map[string]any{"a": "x", "b": "", "c": "", "n": nil}
	tests := []struct {
		name  string
		rows  any
		value any
		want  string // JSON; "" is undefined
	}{
		{"rows with one such key or more", map[string]any{"r": []any{"a", "b"}, "s": []any{"a"}, "t": []any{"c", "b"}, "u": []any{}}, "", `["r","t"]`},
		{"another value", map[string]any{"r": []any{"a", "b"}, "s": []any{"b"}}, "x", `["r"]`},
		{"null is a value", map[string]any{"r": []any{"n"}, "s": []any{"a"}}, nil, `["r"]`},
		{"none", map[string]any{"r": []any{"a"}}, "", `[]`},
		{"no rows", map[string]any{}, "", `[]`},
		{"a key the table lacks, after a match", map[string]any{"r": []any{"b", "z"}}, "", ``},
		{"keys not a list", map[string]any{"r": "b"}, "", ``},
		{"rows not an object", []any{[]any{"b"}}, "", ``},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			input := map[string]any{"table": table, "rows": tc.rows, "value": tc.value}
			require.Equal(t, tc.want, regoValue(t, `ome.plan.rows_with(input.rows, input.table, input.value)`, input))
		})
	}
	require.Equal(t, "", regoValue(t, `ome.plan.rows_with({"r": ["a"]}, input.t, "x")`, map[string]any{"t": []any{"a"}}))
}

// ome.plan.fill_blanks replaces each blank by the fill at its index, and
// is undefined when the lists differ in length.
func TestPlanFillBlanks(t *testing.T) {
	tests := []struct {
		name       string
		list, fill any
		blank      any
		want       string // JSON; "" is undefined
	}{
		{"the blanks filled in", []any{"a", "", "c", ""}, []any{"w", "x", "y", "z"}, "", `["a","x","c","z"]`},
		{"no blanks", []any{"a", "b"}, []any{"x", "y"}, "", `["a","b"]`},
		{"a blank filled with a blank", []any{""}, []any{""}, "", `[""]`},
		{"another blank", []any{nil, "b", false}, []any{1, 2, 3}, nil, `[1,"b",false]`},
		{"empty lists", []any{}, []any{}, "", `[]`},
		{"fill too short", []any{"", ""}, []any{"x"}, "", ``},
		{"fill too long", []any{""}, []any{"x", "y"}, "", ``},
		{"list not a list", "", []any{"x"}, "", ``},
		{"fill not a list", []any{""}, map[string]any{"0": "x"}, "", ``},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			input := map[string]any{"list": tc.list, "blank": tc.blank, "fill": tc.fill}
			require.Equal(t, tc.want, regoValue(t, `ome.plan.fill_blanks(input.list, input.blank, input.fill)`, input))
		})
	}
}
