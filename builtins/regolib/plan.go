package regolib

import (
	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/types"
)

// The evaluation plan's builtins. They know nothing of OME: they put
// together what the policies computed, in the order the policies give, so
// that a plan (policies/rego/match_plan.rego) reads its memo tables in one
// call instead of several expressions per row. Their answers are the
// comprehensions they replace (policies/gatekeeper/lib/plan.rego, the
// stand-in, is those comprehensions), so they decide nothing.

// cellsType is a memo table: any key to a list.
var cellsType = types.NewObject(nil, types.NewDynamicProperty(types.A, types.NewArray(nil, types.A)))

var planGather = Builtin{
	Decl: &rego.Function{
		Name: "ome.plan.gather",
		Description: "Joins memo tables: for each row of rows, a key and a list of keys, one per table, " +
			"the lists tables[0][keys[0]], tables[1][keys[1]], ... concatenated in table order. " +
			"For example, ome.plan.gather([{\"a\": [1]}, {\"b\": [], \"c\": [2, 3]}], {\"r\": [\"a\", \"c\"]}) is {\"r\": [1, 2, 3]}. " +
			"Undefined when a row does not have one key per table or names a key that its table does not have.",
		Decl: types.NewFunction(
			types.Args(
				types.Named("tables", types.NewArray(nil, cellsType)).Description("the memo tables, in the order their lists are joined"),
				types.Named("rows", cellsType).Description("each row's key, to its keys in the tables (one per table, in table order)"),
			),
			types.Named("result", cellsType).Description("each row's key, to the concatenation of its tables' lists"),
		),
	},
	Impl2: func(_ rego.BuiltinContext, a, b *ast.Term) (*ast.Term, error) {
		out, ok := gather(a.Value, b.Value)
		if !ok {
			return nil, nil
		}
		return ast.NewTerm(out), nil
	},
}

var planPick = Builtin{
	Decl: &rego.Function{
		Name: "ome.plan.pick",
		Description: "Reads a memo table in order: the list table[keys[0]], table[keys[1]], ... " +
			"For example, ome.plan.pick({\"a\": 1, \"b\": 2}, [\"b\", \"a\", \"b\"]) is [2, 1, 2]. " +
			"Undefined when a key is not in the table.",
		Decl: types.NewFunction(
			types.Args(
				types.Named("table", types.NewObject(nil, types.NewDynamicProperty(types.A, types.A))).Description("the memo table"),
				types.Named("keys", types.NewArray(nil, types.A)).Description("the keys to read, in the order of the result"),
			),
			types.Named("result", types.NewArray(nil, types.A)).Description("the table's value of each key, in order"),
		),
	},
	Impl2: func(_ rego.BuiltinContext, a, b *ast.Term) (*ast.Term, error) {
		table, ok := a.Value.(ast.Object)
		if !ok {
			return nil, nil
		}
		keys, ok := b.Value.(*ast.Array)
		if !ok {
			return nil, nil
		}
		out := make([]*ast.Term, keys.Len())
		for i := range out {
			if out[i] = table.Get(keys.Elem(i)); out[i] == nil {
				return nil, nil
			}
		}
		return ast.ArrayTerm(out...), nil
	},
}

// gather is ome.plan.gather; ok is false where the result is undefined.
func gather(tablesValue, rowsValue ast.Value) (ast.Object, bool) {
	list, ok := tablesValue.(*ast.Array)
	if !ok {
		return nil, false
	}
	rows, ok := rowsValue.(ast.Object)
	if !ok {
		return nil, false
	}
	tables := make([]ast.Object, list.Len())
	for i := range tables {
		if tables[i], ok = list.Elem(i).Value.(ast.Object); !ok {
			return nil, false
		}
	}
	out := ast.NewObjectWithCapacity(rows.Len())
	var joined []*ast.Term
	err := rows.Iter(func(row, keysTerm *ast.Term) error {
		keys, ok := keysTerm.Value.(*ast.Array)
		if !ok || keys.Len() != len(tables) {
			return errUndefined
		}
		joined = joined[:0]
		for i, table := range tables {
			cell := table.Get(keys.Elem(i))
			if cell == nil {
				return errUndefined
			}
			items, ok := cell.Value.(*ast.Array)
			if !ok {
				return errUndefined
			}
			for j := range items.Len() {
				joined = append(joined, items.Elem(j))
			}
		}
		out.Insert(row, ast.ArrayTerm(append([]*ast.Term(nil), joined...)...))
		return nil
	})
	return out, err == nil
}

// errUndefined stops an iteration whose result is undefined.
var errUndefined = undefinedError{}

type undefinedError struct{}

func (undefinedError) Error() string { return "undefined" }
