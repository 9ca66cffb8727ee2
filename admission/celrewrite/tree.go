// Package celrewrite translates CEL expressions on their syntax trees:
// it parses an expression with cel-go's parser, gives back every macro
// (has, all, map, cel.bind, ...) as the call it is written as, rewrites
// the tree (renamed inputs and variables, calls replaced by stand-ins
// written as CEL templates, list and map literals made homogeneous), and
// prints the result with cel-go's unparser. An expression whose tree is
// left as it is keeps its text.
//
// It imports cel-go only: what a call is replaced with is its callers'
// (package admission's stand-ins for the ome library).
package celrewrite

import (
	"fmt"

	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/ext"
	"github.com/google/cel-go/parser"
)

// Tree is an expression as written: its syntax tree, each macro as the
// call it is written as (x.all(e, p), has(x.f), cel.bind(v, e, b)), with
// the node ids of the parse, so that a check of the same parse (Check)
// gives each node's type.
type Tree struct {
	Text string
	Expr ast.Expr
	// macros are the ids of the calls that are macros.
	macros map[int64]bool
	// checked is the expression type-checked, when Check made the tree.
	checked *ast.AST
}

// parseEnv parses the expressions of every CEL environment the project
// writes for: the macros of the standard library, cel.bind, the
// two-variable comprehensions, optional types and lists' sortBy.
var parseEnv = func() *cel.Env {
	env, err := cel.NewEnv(cel.EnableMacroCallTracking(), cel.OptionalTypes(), ext.Bindings(),
		ext.TwoVarComprehensions(), ext.Lists(ext.ListsVersion(3)))
	if err != nil {
		panic(err)
	}
	return env
}()

// Parse reads text as a syntax tree.
func Parse(text string) (*Tree, error) {
	a, iss := parseEnv.Parse(text)
	if iss.Err() != nil {
		return nil, fmt.Errorf("CEL does not parse: %s", oneLine(iss.Err().Error()))
	}
	return fromAST(text, a.NativeRep(), nil), nil
}

// Check reads text as a syntax tree and type-checks it in env, which
// must track macro calls (cel.EnableMacroCallTracking): the tree's Type
// and Overloads then say what each node is.
func Check(env *cel.Env, text string) (*Tree, error) {
	a, iss := env.Compile(text)
	if iss.Err() != nil {
		return nil, fmt.Errorf("CEL does not compile: %s", oneLine(iss.Err().Error()))
	}
	native := a.NativeRep()
	if len(native.SourceInfo().MacroCalls()) == 0 {
		// Without tracking, a macro cannot be given back as written.
		if p, iss := parseEnv.Parse(text); iss.Err() == nil && len(p.NativeRep().SourceInfo().MacroCalls()) > 0 {
			return nil, fmt.Errorf("celrewrite.Check: the environment does not track macro calls")
		}
	}
	return fromAST(text, native, native), nil
}

func fromAST(text string, a *ast.AST, checked *ast.AST) *Tree {
	t := &Tree{Text: text, macros: map[int64]bool{}, checked: checked}
	calls := a.SourceInfo().MacroCalls()
	t.Expr = t.restore(a.Expr(), calls)
	return t
}

// restore gives back each expanded macro of e as the call it was written
// as; the other nodes keep their ids.
func (t *Tree) restore(e ast.Expr, calls map[int64]ast.Expr) ast.Expr {
	if call, ok := calls[e.ID()]; ok {
		c := call.AsCall()
		args := make([]ast.Expr, len(c.Args()))
		for i, a := range c.Args() {
			args[i] = t.restore(a, calls)
		}
		t.macros[e.ID()] = true
		if c.IsMemberFunction() {
			return fac.NewMemberCall(e.ID(), c.FunctionName(), t.restore(c.Target(), calls), args...)
		}
		return fac.NewCall(e.ID(), c.FunctionName(), args...)
	}
	return rebuild(e, func(x ast.Expr) ast.Expr { return t.restore(x, calls) })
}

// rebuild is a copy of e (same id) whose children are f of e's.
func rebuild(e ast.Expr, f func(ast.Expr) ast.Expr) ast.Expr {
	switch e.Kind() {
	case ast.CallKind:
		c := e.AsCall()
		args := make([]ast.Expr, len(c.Args()))
		for i, a := range c.Args() {
			args[i] = f(a)
		}
		if c.IsMemberFunction() {
			return fac.NewMemberCall(e.ID(), c.FunctionName(), f(c.Target()), args...)
		}
		return fac.NewCall(e.ID(), c.FunctionName(), args...)
	case ast.ListKind:
		l := e.AsList()
		elems := make([]ast.Expr, len(l.Elements()))
		for i, x := range l.Elements() {
			elems[i] = f(x)
		}
		return fac.NewList(e.ID(), elems, l.OptionalIndices())
	case ast.MapKind:
		m := e.AsMap()
		entries := make([]ast.EntryExpr, len(m.Entries()))
		for i, x := range m.Entries() {
			en := x.AsMapEntry()
			entries[i] = fac.NewMapEntry(x.ID(), f(en.Key()), f(en.Value()), en.IsOptional())
		}
		return fac.NewMap(e.ID(), entries)
	case ast.StructKind:
		s := e.AsStruct()
		fields := make([]ast.EntryExpr, len(s.Fields()))
		for i, x := range s.Fields() {
			fl := x.AsStructField()
			fields[i] = fac.NewStructField(x.ID(), fl.Name(), f(fl.Value()), fl.IsOptional())
		}
		return fac.NewStruct(e.ID(), s.TypeName(), fields)
	case ast.SelectKind:
		s := e.AsSelect()
		if s.IsTestOnly() {
			return fac.NewPresenceTest(e.ID(), f(s.Operand()), s.FieldName())
		}
		return fac.NewSelect(e.ID(), f(s.Operand()), s.FieldName())
	case ast.ComprehensionKind:
		c := e.AsComprehension()
		if c.HasIterVar2() {
			return fac.NewComprehensionTwoVar(e.ID(), f(c.IterRange()), c.IterVar(), c.IterVar2(), c.AccuVar(),
				f(c.AccuInit()), f(c.LoopCondition()), f(c.LoopStep()), f(c.Result()))
		}
		return fac.NewComprehension(e.ID(), f(c.IterRange()), c.IterVar(), c.AccuVar(),
			f(c.AccuInit()), f(c.LoopCondition()), f(c.LoopStep()), f(c.Result()))
	}
	return e
}

var fac = ast.NewExprFactory()

// Type is the type the check gave the node id, or nil (an unchecked tree,
// or a node the check did not see).
func (t *Tree) Type(id int64) *types.Type {
	if t.checked == nil {
		return nil
	}
	return t.checked.GetType(id)
}

// Overloads are the overloads the check resolved the call id to.
func (t *Tree) Overloads(id int64) []string {
	if t.checked == nil {
		return nil
	}
	return t.checked.GetOverloadIDs(id)
}

// IsMacro reports whether the call id is a macro.
func (t *Tree) IsMacro(id int64) bool { return t.macros[id] }

// String prints e with cel-go's unparser, on one line.
func String(e ast.Expr) (string, error) {
	return parser.Unparse(e, ast.NewSourceInfo(nil))
}

// Walk calls f on e and every node under it, parents first, until f
// returns false for a node (whose children are then not visited).
func Walk(e ast.Expr, f func(ast.Expr) bool) {
	if e == nil || !f(e) {
		return
	}
	switch e.Kind() {
	case ast.CallKind:
		c := e.AsCall()
		if c.IsMemberFunction() {
			Walk(c.Target(), f)
		}
		for _, a := range c.Args() {
			Walk(a, f)
		}
	case ast.ListKind:
		for _, x := range e.AsList().Elements() {
			Walk(x, f)
		}
	case ast.MapKind:
		for _, x := range e.AsMap().Entries() {
			Walk(x.AsMapEntry().Key(), f)
			Walk(x.AsMapEntry().Value(), f)
		}
	case ast.StructKind:
		for _, x := range e.AsStruct().Fields() {
			Walk(x.AsStructField().Value(), f)
		}
	case ast.SelectKind:
		Walk(e.AsSelect().Operand(), f)
	case ast.ComprehensionKind:
		c := e.AsComprehension()
		for _, x := range []ast.Expr{c.IterRange(), c.AccuInit(), c.LoopCondition(), c.LoopStep(), c.Result()} {
			Walk(x, f)
		}
	}
}

// Path is the dotted name of an identifier or of a selection of fields
// from one (variables.score), or "".
func Path(e ast.Expr) string {
	switch e.Kind() {
	case ast.IdentKind:
		return e.AsIdent()
	case ast.SelectKind:
		s := e.AsSelect()
		if s.IsTestOnly() {
			return ""
		}
		if p := Path(s.Operand()); p != "" {
			return p + "." + s.FieldName()
		}
	}
	return ""
}

// Variables are the names of the variables (variables.NAME, or
// variables.?NAME) that text refers to, in the order of their first
// reference.
func Variables(text string) ([]string, error) {
	t, err := Parse(text)
	if err != nil {
		return nil, err
	}
	var out []string
	seen := map[string]bool{}
	Walk(t.Expr, func(e ast.Expr) bool {
		name := ""
		switch {
		case e.Kind() == ast.SelectKind && !e.AsSelect().IsTestOnly() && Path(e.AsSelect().Operand()) == "variables":
			name = e.AsSelect().FieldName()
		case e.Kind() == ast.CallKind && e.AsCall().FunctionName() == "_?._" && Path(e.AsCall().Args()[0]) == "variables":
			if s, ok := e.AsCall().Args()[1].AsLiteral().(types.String); ok {
				name = string(s)
			}
		}
		if name != "" && !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
		return true
	})
	return out, nil
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
