package celrewrite

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/google/cel-go/common/ast"
)

// Call is a call of a tree as written, as the rewriter shows it to
// Rules.Call: a function (Target nil) or a method, with its arguments.
type Call struct {
	Tree     *Tree
	Expr     ast.Expr
	Function string
	Target   ast.Expr
	Args     []ast.Expr
}

// StandIn replaces a call: Template is a CEL expression in which the
// identifiers __arg0, __arg1, ... stand for Args, expressions of the tree
// that are rewritten before they are put there. An argument that a
// template uses twice is there twice.
type StandIn struct {
	Template string
	Args     []ast.Expr
}

// Arg is the identifier that stands for the i-th argument of a template.
func Arg(i int) string { return "__arg" + strconv.Itoa(i) }

// Rules say how to rewrite a tree.
type Rules struct {
	// Renames replace an identifier, or a path of fields selected from
	// one ("variables.score"), by an expression (CEL text). The longest
	// path wins; an identifier bound by a macro (x in l.all(x, p)) is not
	// renamed within it.
	Renames map[string]string
	// Call is asked about every call of the tree, the outer ones first:
	// a stand-in replaces it, nil keeps it (its target and arguments are
	// then rewritten), and an error stops the rewrite.
	Call func(Call) (*StandIn, error)
}

// Rewrite rewrites t by r and prints the result; a tree left as it is
// keeps its text.
func (t *Tree) Rewrite(r Rules) (string, error) {
	e, changed, err := t.RewriteTree(r)
	if err != nil || !changed {
		return t.Text, err
	}
	return String(e)
}

// RewriteTree rewrites t by r, and says whether anything changed.
func (t *Tree) RewriteTree(r Rules) (ast.Expr, bool, error) {
	w := &rewriter{tree: t, rules: r, renames: map[string]ast.Expr{}}
	for k, v := range r.Renames {
		e, err := template(v)
		if err != nil {
			return nil, false, fmt.Errorf("rename %s: %w", k, err)
		}
		w.renames[k] = e
	}
	out, err := w.expr(t.Expr, nil)
	return out, w.changed, err
}

// Rewrite parses text and rewrites it by r.
func Rewrite(text string, r Rules) (string, error) {
	t, err := Parse(text)
	if err != nil {
		return "", err
	}
	return t.Rewrite(r)
}

type rewriter struct {
	tree    *Tree
	rules   Rules
	renames map[string]ast.Expr
	changed bool
}

func (w *rewriter) expr(e ast.Expr, bound map[string]bool) (ast.Expr, error) {
	if p := Path(e); p != "" && len(w.renames) > 0 {
		root, _, _ := strings.Cut(p, ".")
		if r, ok := w.renames[p]; ok && !bound[root] {
			w.changed = true
			return fac.CopyExpr(r), nil
		}
	}
	if e.Kind() != ast.CallKind {
		return w.children(e, bound)
	}
	c := e.AsCall()
	if w.rules.Call != nil {
		call := Call{Tree: w.tree, Expr: e, Function: c.FunctionName(), Args: c.Args()}
		if c.IsMemberFunction() {
			call.Target = c.Target()
		}
		s, err := w.rules.Call(call)
		if err != nil {
			return nil, err
		}
		if s != nil {
			w.changed = true
			scopes := w.scopes(e, bound)
			args := make([]ast.Expr, len(s.Args))
			for i, a := range s.Args {
				scope, ok := scopes[a.ID()]
				switch {
				case ok && scope.binder:
					args[i] = a
				case ok:
					args[i], err = w.expr(a, scope.bound)
				default:
					args[i], err = w.expr(a, bound)
				}
				if err != nil {
					return nil, err
				}
			}
			tmpl, err := template(s.Template)
			if err != nil {
				return nil, fmt.Errorf("the stand-in of %s: %w", c.FunctionName(), err)
			}
			return substitute(tmpl, args), nil
		}
	}
	if binders(w.tree, e) > 0 {
		return w.macro(e, bound)
	}
	return w.children(e, bound)
}

func (w *rewriter) children(e ast.Expr, bound map[string]bool) (ast.Expr, error) {
	var err error
	out := rebuild(e, func(x ast.Expr) ast.Expr {
		if err != nil {
			return x
		}
		var y ast.Expr
		y, err = w.expr(x, bound)
		return y
	})
	return out, err
}

// scope is what an argument of a macro sees: whether it is an
// identifier the macro binds (left as it is), else the identifiers bound
// in it.
type scope struct {
	binder bool
	bound  map[string]bool
}

// scopes are the scopes of a macro's arguments by their ids: its first
// ones are the identifiers it binds, which are bound in the arguments
// after them (for cel.bind, in its body only).
func (w *rewriter) scopes(e ast.Expr, bound map[string]bool) map[int64]scope {
	n := binders(w.tree, e)
	if n == 0 {
		return nil
	}
	c := e.AsCall()
	inner := map[string]bool{}
	for k := range bound {
		inner[k] = true
	}
	out := map[int64]scope{}
	for _, a := range c.Args()[:n] {
		inner[a.AsIdent()] = true
		out[a.ID()] = scope{binder: true}
	}
	for i := n; i < len(c.Args()); i++ {
		out[c.Args()[i].ID()] = scope{bound: inner}
		if isBind(e) && i == 1 {
			out[c.Args()[i].ID()] = scope{bound: bound} // cel.bind(v, init, body): init is outside v's scope
		}
	}
	return out
}

// macro rewrites a macro, each argument in its scope.
func (w *rewriter) macro(e ast.Expr, bound map[string]bool) (ast.Expr, error) {
	c := e.AsCall()
	scopes := w.scopes(e, bound)
	args := make([]ast.Expr, len(c.Args()))
	for i, a := range c.Args() {
		s := scopes[a.ID()]
		if s.binder {
			args[i] = a
			continue
		}
		var err error
		if args[i], err = w.expr(a, s.bound); err != nil {
			return nil, err
		}
	}
	if !c.IsMemberFunction() {
		return fac.NewCall(e.ID(), c.FunctionName(), args...), nil
	}
	target, err := w.expr(c.Target(), bound)
	if err != nil {
		return nil, err
	}
	return fac.NewMemberCall(e.ID(), c.FunctionName(), target, args...), nil
}

func isBind(e ast.Expr) bool {
	c := e.AsCall()
	return c.FunctionName() == "bind" && c.IsMemberFunction() && Path(c.Target()) == "cel"
}

// binders is how many of the macro e's first arguments are identifiers
// it binds (0 when e is no macro).
func binders(t *Tree, e ast.Expr) int {
	if !t.IsMacro(e.ID()) {
		return 0
	}
	c := e.AsCall()
	n := 0
	switch c.FunctionName() {
	case "bind", "map", "optMap", "optFlatMap", "sortBy":
		n = 1
	case "all", "exists", "exists_one", "existsOne", "filter":
		n = len(c.Args()) - 1
	case "transformList", "transformMap", "transformMapEntry":
		n = 2
	}
	for i := 0; i < n; i++ {
		if i >= len(c.Args()) || c.Args()[i].Kind() != ast.IdentKind {
			return 0
		}
	}
	return n
}

// templates are the parsed stand-in templates and renames, by text.
var templates sync.Map

func template(text string) (ast.Expr, error) {
	if e, ok := templates.Load(text); ok {
		return e.(ast.Expr), nil
	}
	t, err := Parse(text)
	if err != nil {
		return nil, err
	}
	templates.Store(text, t.Expr)
	return t.Expr, nil
}

// substitute is a copy of tmpl with each identifier __argN replaced by
// args[N].
func substitute(tmpl ast.Expr, args []ast.Expr) ast.Expr {
	var sub func(e ast.Expr) ast.Expr
	sub = func(e ast.Expr) ast.Expr {
		if e.Kind() == ast.IdentKind && strings.HasPrefix(e.AsIdent(), "__arg") {
			if i, err := strconv.Atoi(strings.TrimPrefix(e.AsIdent(), "__arg")); err == nil && i < len(args) {
				return fac.CopyExpr(args[i])
			}
		}
		return rebuild(e, sub)
	}
	return sub(tmpl)
}

// Fill is the template text (as StandIn's) with its arguments, CEL
// expressions, in their places, printed.
func Fill(text string, args ...string) (string, error) {
	tmpl, err := template(text)
	if err != nil {
		return "", err
	}
	exprs := make([]ast.Expr, len(args))
	for i, a := range args {
		t, err := Parse(a)
		if err != nil {
			return "", err
		}
		exprs[i] = t.Expr
	}
	return String(substitute(tmpl, exprs))
}
