package celrewrite

import (
	"github.com/google/cel-go/common/ast"
)

// Homogenize wraps every element of a list literal and every value of a
// map literal in dyn(...): Kubernetes' CEL wants the elements of a
// literal to have one type, and the project's policies mix strings,
// lists and maps in them. A list with optional elements ([a, ?b]) is
// written as lists joined, each optional element a list of its value or
// of nothing: the homogeneity check of cel-go fails on an optional
// element whose type is dyn, as a field of an object under admission is.
func Homogenize(text string) (string, error) {
	t, err := Parse(text)
	if err != nil {
		return "", err
	}
	e, changed := homogenize(t.Expr)
	if !changed {
		return text, nil
	}
	return String(e)
}

func dyn(e ast.Expr) ast.Expr { return fac.NewCall(0, "dyn", e) }

func homogenize(e ast.Expr) (ast.Expr, bool) {
	changed := false
	rec := func(x ast.Expr) ast.Expr {
		y, c := homogenize(x)
		changed = changed || c
		return y
	}
	switch e.Kind() {
	case ast.ListKind:
		l := e.AsList()
		if len(l.Elements()) == 0 {
			return e, false
		}
		optional := map[int]bool{}
		for _, i := range l.OptionalIndices() {
			optional[int(i)] = true
		}
		if len(optional) == 0 {
			elems := make([]ast.Expr, len(l.Elements()))
			for i, x := range l.Elements() {
				elems[i] = dyn(rec(x))
			}
			return fac.NewList(e.ID(), elems, nil), true
		}
		var parts, plain []ast.Expr
		flush := func() {
			if len(plain) > 0 {
				parts = append(parts, fac.NewList(0, plain, nil))
				plain = nil
			}
		}
		for i, x := range l.Elements() {
			if optional[i] {
				flush()
				tmpl, err := template("[__arg0].map(__o, __o.hasValue() ? [dyn(__o.value())] : [])[0]")
				if err != nil {
					panic(err)
				}
				parts = append(parts, substitute(tmpl, []ast.Expr{rec(x)}))
				continue
			}
			plain = append(plain, dyn(rec(x)))
		}
		flush()
		out := parts[0]
		for _, p := range parts[1:] {
			out = fac.NewCall(0, "_+_", out, p)
		}
		return out, true
	case ast.MapKind:
		m := e.AsMap()
		if len(m.Entries()) == 0 {
			return e, false
		}
		entries := make([]ast.EntryExpr, len(m.Entries()))
		for i, x := range m.Entries() {
			en := x.AsMapEntry()
			entries[i] = fac.NewMapEntry(x.ID(), rec(en.Key()), dyn(rec(en.Value())), en.IsOptional())
		}
		return fac.NewMap(e.ID(), entries), true
	}
	out := rebuild(e, rec)
	return out, changed
}
