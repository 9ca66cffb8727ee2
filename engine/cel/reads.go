package cel

import (
	"slices"
	"strings"

	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
)

// inputReads is what an expression reads of one input: some of its
// top-level fields, or the whole value.
type inputReads struct {
	whole  bool
	fields []string // sorted; unused when whole
}

// readSet maps the inputs an expression reads (directly or through the
// policy's variables) to what it reads of each. An input that is absent is
// not read at all.
type readSet map[string]*inputReads

func (r readSet) add(input, field string) {
	in := r[input]
	if in == nil {
		in = &inputReads{}
		r[input] = in
	}
	if in.whole || field == "" {
		in.whole, in.fields = true, nil
		return
	}
	if i, found := slices.BinarySearch(in.fields, field); !found {
		in.fields = slices.Insert(in.fields, i, field)
	}
}

func (r readSet) union(other readSet) {
	for input, in := range other {
		if in.whole {
			r.add(input, "")
			continue
		}
		for _, f := range in.fields {
			r.add(input, f)
		}
	}
}

// only reports whether the expression reads no input outside allowed.
func (r readSet) only(allowed ...string) bool {
	for input := range r {
		if !slices.Contains(allowed, input) {
			return false
		}
	}
	return true
}

// readsOf finds what a checked expression reads of the policy's inputs. A
// field is read when the expression selects it by name (`entry.f`,
// `has(entry.f)`, `entry.?f`); any other use of an input (`entry[k]`,
// `k in entry`, passing it whole) reads the whole value. Variables count
// with what they read. An expression that declares a comprehension
// variable named like an input reads every input whole, to stay safe.
func (p *policy) readsOf(checked *ast.AST) readSet {
	reads := readSet{}
	refs := checked.ReferenceMap()
	shadowed := false
	var walk func(e ast.Expr)
	// field returns the input and field name when e selects a field of an
	// input by name.
	field := func(e ast.Expr) (string, string, bool) {
		switch e.Kind() {
		case ast.SelectKind:
			s := e.AsSelect()
			if in, ok := p.inputIdent(s.Operand(), refs); ok {
				return in, s.FieldName(), true
			}
		case ast.CallKind:
			c := e.AsCall()
			if c.FunctionName() == operators.OptSelect && len(c.Args()) == 2 && c.Args()[1].Kind() == ast.LiteralKind {
				name, isString := c.Args()[1].AsLiteral().Value().(string)
				if in, ok := p.inputIdent(c.Args()[0], refs); ok && isString {
					return in, name, true
				}
			}
		}
		return "", "", false
	}
	walk = func(e ast.Expr) {
		if in, f, ok := field(e); ok {
			reads.add(in, f)
			return
		}
		switch e.Kind() {
		case ast.IdentKind:
			name := e.AsIdent()
			if r, ok := refs[e.ID()]; ok {
				name = r.Name
			}
			if v, ok := strings.CutPrefix(name, "variables."); ok {
				if i, known := p.varIndex[v]; known {
					reads.union(p.varReads[i])
				}
				return
			}
			if slices.Contains(p.inputs, name) {
				reads.add(name, "")
			}
		case ast.SelectKind:
			walk(e.AsSelect().Operand())
		case ast.CallKind:
			c := e.AsCall()
			if c.IsMemberFunction() {
				walk(c.Target())
			}
			for _, a := range c.Args() {
				walk(a)
			}
		case ast.ListKind:
			for _, x := range e.AsList().Elements() {
				walk(x)
			}
		case ast.MapKind:
			for _, x := range e.AsMap().Entries() {
				walk(x.AsMapEntry().Key())
				walk(x.AsMapEntry().Value())
			}
		case ast.StructKind:
			for _, x := range e.AsStruct().Fields() {
				walk(x.AsStructField().Value())
			}
		case ast.ComprehensionKind:
			c := e.AsComprehension()
			for _, v := range []string{c.IterVar(), c.IterVar2(), c.AccuVar()} {
				if slices.Contains(p.inputs, v) {
					shadowed = true
				}
			}
			for _, x := range []ast.Expr{c.IterRange(), c.AccuInit(), c.LoopCondition(), c.LoopStep(), c.Result()} {
				walk(x)
			}
		}
	}
	walk(checked.Expr())
	if shadowed {
		for _, in := range p.inputs {
			reads.add(in, "")
		}
	}
	return reads
}

// inputIdent reports whether e is an identifier naming one of the policy's
// inputs, and which.
func (p *policy) inputIdent(e ast.Expr, refs map[int64]*ast.ReferenceInfo) (string, bool) {
	if e.Kind() != ast.IdentKind {
		return "", false
	}
	name := e.AsIdent()
	if r, ok := refs[e.ID()]; ok {
		name = r.Name
	}
	return name, slices.Contains(p.inputs, name)
}
