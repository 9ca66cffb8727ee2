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
