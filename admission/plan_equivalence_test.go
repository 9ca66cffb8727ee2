package admission

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/stretchr/testify/require"

	"github.com/ome-policy/evaluator/builtins/regolib"
)

// lib/plan.rego's gather and pick give what the Go builtins ome.plan.gather
// and ome.plan.pick give: the same value, or undefined, on hand-made inputs
// and on generated tables and rows of every shape (rows that fit, and rows
// with a missing key, the wrong number of keys, or cells that are not
// lists).
func TestPlanStandInEqualsBuiltin(t *testing.T) {
	// Each call alone: undefined in one is not hidden by the other.
	builtin, standIn := planQueries(t, `x := {"gather": [r | r := %[1]sgather(input.tables, input.rows)], "pick": [r | r := %[1]spick(input.tables[0], input.keys)]}`)

	// Each half of the query undefined, and both defined.
	inputs := []map[string]any{
		{"tables": []any{}, "rows": map[string]any{"r": []any{}}, "keys": []any{}},
		{"tables": []any{map[string]any{"a": []any{1}}}, "rows": map[string]any{}, "keys": []any{"a", "a"}},
		{"tables": []any{map[string]any{"a": false}}, "rows": map[string]any{}, "keys": []any{"a"}},
		{"tables": []any{map[string]any{"a": []any{1}}}, "rows": map[string]any{}, "keys": []any{"a", "b"}},
		{"tables": []any{map[string]any{"a": []any{1}}}, "rows": map[string]any{}, "keys": map[string]any{"x": "a"}},
		{"tables": []any{[]any{"a"}}, "rows": map[string]any{}, "keys": []any{}},
		{"tables": []any{map[string]any{"a": []any{1}}}, "rows": []any{[]any{"a"}}, "keys": []any{}},
		{"tables": map[string]any{"0": map[string]any{"a": []any{1}}}, "rows": map[string]any{"r": []any{"a"}}, "keys": []any{}},
		{"tables": []any{map[string]any{"a": []any{1, 2}}}, "rows": map[string]any{"r": []any{"a"}, "s": []any{"a"}}},
		{"tables": []any{map[string]any{"a": "text"}}, "rows": map[string]any{"r": []any{"a"}}},
		{"tables": []any{map[string]any{"a": []any{}}}, "rows": map[string]any{"r": "a"}},
		{"tables": []any{map[string]any{"a": []any{}}}, "rows": map[string]any{}},
	}
	r := rand.New(rand.NewPCG(13, 1))
	for range 400 {
		n := r.IntN(6)
		tables := make([]any, n)
		for i := range tables {
			table := map[string]any{}
			for k := range 1 + r.IntN(4) {
				var cell any = []any{}
				for range r.IntN(3) {
					cell = append(cell.([]any), fmt.Sprintf("t%d/%d", i, k))
				}
				if r.IntN(40) == 0 {
					cell = "not a list"
				}
				table[fmt.Sprint(k)] = cell
			}
			tables[i] = table
		}
		rows := map[string]any{}
		for j := range r.IntN(5) {
			keys := make([]any, n)
			for i := range keys {
				k := r.IntN(len(tables[i].(map[string]any)))
				if r.IntN(15) == 0 {
					k = 4 // a key no table has
				}
				keys[i] = fmt.Sprint(k)
			}
			switch r.IntN(30) {
			case 0:
				keys = append(keys, "0")
			case 1:
				if n > 0 {
					keys = keys[:n-1]
				}
			}
			rows[fmt.Sprint("row", j)] = keys
		}
		var keys []any
		if n > 0 {
			keys = []any{}
			for range r.IntN(4) {
				k := r.IntN(len(tables[0].(map[string]any)))
				if r.IntN(15) == 0 {
					k = 4
				}
				keys = append(keys, fmt.Sprint(k))
			}
		}
		inputs = append(inputs, map[string]any{"tables": tables, "rows": rows, "keys": keys})
	}
	defined := requireSameResults(t, builtin, standIn, inputs)
	for _, k := range []string{"gather", "pick"} {
		require.Greater(t, defined[k], len(inputs)/2, "%s has a result for most inputs", k)
		require.Less(t, defined[k], len(inputs), "%s is undefined for some inputs", k)
	}
}

// lib/plan.rego's join_each, join_rows, rows_with and fill_blanks give what
// the Go builtins give: the same value, or undefined, on generated tables,
// rows and lists, most of which fit and some of which do not (a key the
// table lacks, a value of another kind, lists of different lengths).
func TestPlanJoinStandInsEqualBuiltins(t *testing.T) {
	// Each call alone, as a list of its results ([] when undefined).
	builtin, standIn := planQueries(t, `x := {`+
		`"join_each": [r | r := %[1]sjoin_each(input.lists, input.sep)], `+
		`"join_rows": [r | r := %[1]sjoin_rows(input.prefix, input.sep, input.texts, input.rows)], `+
		`"rows_with": [r | r := %[1]srows_with(input.rows, input.texts, input.value)], `+
		`"fill_blanks": [r | r := %[1]sfill_blanks(input.list, input.value, input.fill)]}`)

	r := rand.New(rand.NewPCG(13, 2))
	// text is mostly a short string, "" often, and now and then another
	// kind of value.
	text := func() any {
		switch r.IntN(20) {
		case 0:
			return 1
		case 1:
			return nil
		case 2, 3, 4, 5:
			return ""
		}
		return fmt.Sprintf("t%d", r.IntN(5))
	}
	var inputs []map[string]any
	for range 500 {
		n := 1 + r.IntN(5)
		lists := map[string]any{}
		texts := map[string]any{}
		for k := range n {
			var list any = []any{}
			for range r.IntN(4) {
				list = append(list.([]any), text())
			}
			if r.IntN(30) == 0 {
				list = "not a list"
			}
			lists[fmt.Sprint(k)] = list
			texts[fmt.Sprint(k)] = text()
		}
		rows := map[string]any{}
		for j := range r.IntN(5) {
			var keys any = []any{}
			for range r.IntN(4) {
				k := r.IntN(n)
				if r.IntN(25) == 0 {
					k = 9 // a key no table has
				}
				keys = append(keys.([]any), fmt.Sprint(k))
			}
			if r.IntN(40) == 0 {
				keys = "0"
			}
			rows[fmt.Sprint("row", j)] = keys
		}
		list := make([]any, r.IntN(5))
		for i := range list {
			list[i] = text()
		}
		fill := make([]any, len(list))
		for i := range fill {
			fill[i] = text()
		}
		if r.IntN(15) == 0 {
			fill = append(fill, "one more")
		}
		var value any = ""
		if r.IntN(4) == 0 {
			value = text()
		}
		var sep any = []any{", ", "; ", ""}[r.IntN(3)]
		if r.IntN(40) == 0 {
			sep = 1
		}
		inputs = append(inputs, map[string]any{
			"lists": lists, "texts": texts, "rows": rows, "list": list, "fill": fill,
			"value": value, "sep": sep, "prefix": []any{"no: ", ""}[r.IntN(2)],
		})
	}
	defined := requireSameResults(t, builtin, standIn, inputs)
	for _, k := range []string{"join_each", "join_rows", "rows_with", "fill_blanks"} {
		require.Greater(t, defined[k], len(inputs)/4, "%s has a result for many inputs", k)
		require.Less(t, defined[k], len(inputs), "%s is undefined for some inputs", k)
	}
}

// planQueries prepares query (a format with %[1]s where a plan function's
// package goes) twice: with the Go builtins (ome.plan.) and with the
// stand-in library (data.lib.ome.plan.).
func planQueries(t *testing.T, query string) (builtin, standIn rego.PreparedEvalQuery) {
	t.Helper()
	prepare := func(query string, opts ...func(*rego.Rego)) rego.PreparedEvalQuery {
		q, err := rego.New(append(opts, rego.Query(query))...).PrepareForEval(context.Background())
		require.NoError(t, err)
		return q
	}
	var libs []func(*rego.Rego)
	for _, m := range Lib() {
		libs = append(libs, rego.Module(m.Path, m.Text))
	}
	return prepare(fmt.Sprintf(query, "ome.plan."), regolib.Options()...), prepare(fmt.Sprintf(query, "data.lib.ome.plan."), libs...)
}

// evalPlan gives each call's result in x as JSON ("[]" when the call is
// undefined).
func evalPlan(t *testing.T, q rego.PreparedEvalQuery, input any) map[string]string {
	t.Helper()
	rs, err := q.Eval(context.Background(), rego.EvalInput(input))
	require.NoError(t, err)
	require.Len(t, rs, 1)
	out := map[string]string{}
	for k, v := range rs[0].Bindings["x"].(map[string]any) {
		b, err := json.Marshal(v)
		require.NoError(t, err)
		out[k] = string(b)
	}
	return out
}

// requireSameResults requires both queries to give the same on every input,
// and counts, per call, the inputs on which the builtin's is defined.
func requireSameResults(t *testing.T, builtin, standIn rego.PreparedEvalQuery, inputs []map[string]any) map[string]int {
	t.Helper()
	defined := map[string]int{}
	for i, in := range inputs {
		want := evalPlan(t, builtin, in)
		require.Equal(t, want, evalPlan(t, standIn, in), "input %d: %v", i, in)
		for k, v := range want {
			if v != "[]" {
				defined[k]++
			}
		}
	}
	return defined
}
