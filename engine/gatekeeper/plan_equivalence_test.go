package gatekeeper

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

// lib/plan.rego's gather gives what the Go builtin ome.plan.gather gives:
// the same object, or undefined, on hand-made inputs and on generated
// tables and rows of every shape (rows that fit, and rows with a missing
// key, the wrong number of keys, or cells that are not lists).
func TestPlanStandInEqualsBuiltin(t *testing.T) {
	ctx := context.Background()
	prepare := func(query string, opts ...func(*rego.Rego)) rego.PreparedEvalQuery {
		q, err := rego.New(append(opts, rego.Query(query))...).PrepareForEval(ctx)
		require.NoError(t, err)
		return q
	}
	builtin := prepare("x := ome.plan.gather(input.tables, input.rows)", regolib.Options()...)
	var libs []func(*rego.Rego)
	for _, m := range Lib() {
		libs = append(libs, rego.Module(m.Path, m.Text))
	}
	standIn := prepare("x := data.lib.ome.plan.gather(input.tables, input.rows)", libs...)
	eval := func(q rego.PreparedEvalQuery, input any) string {
		rs, err := q.Eval(ctx, rego.EvalInput(input))
		require.NoError(t, err)
		if len(rs) == 0 {
			return "undefined"
		}
		b, err := json.Marshal(rs[0].Bindings["x"])
		require.NoError(t, err)
		return string(b)
	}

	inputs := []map[string]any{
		{"tables": []any{}, "rows": map[string]any{"r": []any{}}},
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
		inputs = append(inputs, map[string]any{"tables": tables, "rows": rows})
	}
	undefined := 0
	for i, in := range inputs {
		want := eval(builtin, in)
		require.Equal(t, want, eval(standIn, in), "input %d: %v", i, in)
		if want == "undefined" {
			undefined++
		}
	}
	require.Positive(t, undefined, "some inputs are undefined")
	require.Less(t, undefined, len(inputs)/2, "most inputs have a result")
}
