package regolib

import (
	"strings"

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

// textsType is a table of texts: any key to a string.
var textsType = types.NewObject(nil, types.NewDynamicProperty(types.A, types.S))

var planJoinEach = Builtin{
	Decl: &rego.Function{
		Name: "ome.plan.join_each",
		Description: "Joins each list of a memo table: for each key of table, its list of strings joined with sep, as concat does. " +
			"For example, ome.plan.join_each({\"a\": [\"x\", \"y\"], \"b\": []}, \", \") is {\"a\": \"x, y\", \"b\": \"\"}. " +
			"Undefined when a value is not a list of strings.",
		Decl: types.NewFunction(
			types.Args(
				types.Named("table", types.NewObject(nil, types.NewDynamicProperty(types.A, types.NewArray(nil, types.S)))).Description("the memo table: any key to a list of strings"),
				types.Named("sep", types.S).Description("the separator put between a list's strings"),
			),
			types.Named("result", textsType).Description("each key of table, to its strings joined"),
		),
	},
	Impl2: func(_ rego.BuiltinContext, a, b *ast.Term) (*ast.Term, error) {
		table, ok1 := a.Value.(ast.Object)
		sep, ok2 := b.Value.(ast.String)
		if !ok1 || !ok2 {
			return nil, nil
		}
		out, ok := joinEach(table, "", string(sep), func(t *ast.Term) *ast.Term { return t })
		if !ok {
			return nil, nil
		}
		return ast.NewTerm(out), nil
	},
}

var planJoinRows = Builtin{
	Decl: &rego.Function{
		Name: "ome.plan.join_rows",
		Description: "Puts together a text per row from a memo table of texts: for each row of rows, a key and a list of keys, " +
			"prefix followed by table[keys[0]], table[keys[1]], ... joined with sep. " +
			"For example, ome.plan.join_rows(\"no: \", \"; \", {\"a\": \"x\", \"b\": \"y\"}, {\"r\": [\"b\", \"a\"], \"s\": []}) is {\"r\": \"no: y; x\", \"s\": \"no: \"}. " +
			"Undefined when a row names a key that the table does not have, or a value is not a string.",
		Decl: types.NewFunction(
			types.Args(
				types.Named("prefix", types.S).Description("the text each row's text starts with"),
				types.Named("sep", types.S).Description("the separator put between a row's texts"),
				types.Named("table", textsType).Description("the memo table: any key to a string"),
				types.Named("rows", cellsType).Description("each row's key, to the keys of its texts in the table, in order"),
			),
			types.Named("result", textsType).Description("each row's key, to its text"),
		),
	},
	Impl4: func(_ rego.BuiltinContext, a, b, c, d *ast.Term) (*ast.Term, error) {
		prefix, ok1 := a.Value.(ast.String)
		sep, ok2 := b.Value.(ast.String)
		table, ok3 := c.Value.(ast.Object)
		rows, ok4 := d.Value.(ast.Object)
		if !ok1 || !ok2 || !ok3 || !ok4 {
			return nil, nil
		}
		out, ok := joinEach(rows, string(prefix), string(sep), table.Get)
		if !ok {
			return nil, nil
		}
		return ast.NewTerm(out), nil
	},
}

var planRowsWith = Builtin{
	Decl: &rego.Function{
		Name: "ome.plan.rows_with",
		Description: "Finds the rows that list a key of some value: the set of the keys of rows (each row a key and a list of keys) " +
			"whose list holds a key k with table[k] equal to value. " +
			"For example, ome.plan.rows_with({\"r\": [\"a\", \"b\"], \"s\": [\"a\"], \"t\": []}, {\"a\": \"x\", \"b\": \"\"}, \"\") is {\"r\"}. " +
			"Undefined when a row's keys are not a list or name a key that the table does not have.",
		Decl: types.NewFunction(
			types.Args(
				types.Named("rows", cellsType).Description("each row's key, to its list of keys"),
				types.Named("table", types.NewObject(nil, types.NewDynamicProperty(types.A, types.A))).Description("the memo table: any key to a value"),
				types.Named("value", types.A).Description("the value looked for"),
			),
			types.Named("result", types.NewSet(types.A)).Description("the keys of the rows that list a key of that value"),
		),
	},
	Impl3: func(_ rego.BuiltinContext, a, b, c *ast.Term) (*ast.Term, error) {
		rows, ok1 := a.Value.(ast.Object)
		table, ok2 := b.Value.(ast.Object)
		if !ok1 || !ok2 {
			return nil, nil
		}
		out := ast.NewSet()
		err := rows.Iter(func(row, list *ast.Term) error {
			l, ok := list.Value.(*ast.Array)
			if !ok {
				return errUndefined
			}
			found := false
			for i := range l.Len() {
				v := table.Get(l.Elem(i))
				if v == nil {
					return errUndefined
				}
				if !found && v.Value.Compare(c.Value) == 0 {
					found = true
				}
			}
			if found {
				out.Add(row)
			}
			return nil
		})
		if err != nil {
			return nil, nil
		}
		return ast.NewTerm(out), nil
	},
}

var planFillBlanks = Builtin{
	Decl: &rego.Function{
		Name: "ome.plan.fill_blanks",
		Description: "Fills in a list's blanks from another list: list, with each element equal to blank replaced by the element of fill at the same index. " +
			"For example, ome.plan.fill_blanks([\"a\", \"\", \"\"], \"\", [\"x\", \"y\", \"z\"]) is [\"a\", \"y\", \"z\"]. " +
			"Undefined when the two lists are not of the same length.",
		Decl: types.NewFunction(
			types.Args(
				types.Named("list", types.NewArray(nil, types.A)).Description("the list to fill in"),
				types.Named("blank", types.A).Description("the value that marks a blank"),
				types.Named("fill", types.NewArray(nil, types.A)).Description("what each blank is replaced by, index by index"),
			),
			types.Named("result", types.NewArray(nil, types.A)).Description("list with its blanks filled in"),
		),
	},
	Impl3: func(_ rego.BuiltinContext, a, b, c *ast.Term) (*ast.Term, error) {
		list, ok1 := a.Value.(*ast.Array)
		fill, ok2 := c.Value.(*ast.Array)
		if !ok1 || !ok2 || list.Len() != fill.Len() {
			return nil, nil
		}
		out := make([]*ast.Term, list.Len())
		for i := range out {
			if out[i] = list.Elem(i); out[i].Value.Compare(b.Value) == 0 {
				out[i] = fill.Elem(i)
			}
		}
		return ast.ArrayTerm(out...), nil
	},
}

// joinEach is, for each key of lists (each value a list), prefix followed
// by the strings text(item) of its items joined with sep; ok is false when
// a value is not a list, or text gives nil or a value that is not a string.
func joinEach(lists ast.Object, prefix, sep string, text func(*ast.Term) *ast.Term) (out ast.Object, ok bool) {
	out = ast.NewObjectWithCapacity(lists.Len())
	var sb strings.Builder
	err := lists.Iter(func(k, v *ast.Term) error {
		list, ok := v.Value.(*ast.Array)
		if !ok {
			return errUndefined
		}
		sb.Reset()
		sb.WriteString(prefix)
		for i := range list.Len() {
			t := text(list.Elem(i))
			if t == nil {
				return errUndefined
			}
			s, ok := t.Value.(ast.String)
			if !ok {
				return errUndefined
			}
			if i > 0 {
				sb.WriteString(sep)
			}
			sb.WriteString(string(s))
		}
		out.Insert(k, ast.StringTerm(sb.String()))
		return nil
	})
	return out, err == nil
}
