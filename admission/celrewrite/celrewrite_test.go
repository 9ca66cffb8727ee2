package celrewrite

import (
	"testing"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/ext"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bindStandIn writes cel.bind(x, e, body) as [e].map(x, body)[0], and
// double(x) as the template's use of its argument twice.
func bindStandIn(c Call) (*StandIn, error) {
	switch {
	case c.Function == "bind" && c.Target != nil && Path(c.Target) == "cel":
		return &StandIn{Template: "[__arg1].map(__arg0, __arg2)[0]", Args: c.Args}, nil
	case c.Function == "twice" && c.Target == nil:
		return &StandIn{Template: "__arg0 + __arg0", Args: c.Args}, nil
	}
	return nil, nil
}

func TestRewrite(t *testing.T) {
	renames := map[string]string{"model": "variables.model", "variables.score": "__e_score", "runtime": "object"}
	for _, tc := range []struct{ name, in, want string }{
		{"a tree left as it is keeps its text", "object.spec.x.all(f,   has(f.y))  // as written", "object.spec.x.all(f,   has(f.y))  // as written"},
		{"an input", "model.spec.x == runtime.spec.x", "variables.model.spec.x == object.spec.x"},
		{"a variable", "variables.score + variables.scores", "__e_score + variables.scores"},
		{"the longest path wins", "variables.score.x", "__e_score.x"},
		{"a field of that name is no input", "object.model + a.?model.orValue(1)", "object.model + a.?model.orValue(1)"},
		{"an identifier a macro binds is not renamed in it", "l.map(model, model.x).filter(x, x == model)", "l.map(model, model.x).filter(x, x == variables.model)"},
		{"nor in a two-variable comprehension", "m.all(k, model, model > 0) && model.x", "m.all(k, model, model > 0) && variables.model.x"},
		{"cel.bind binds in its body, not in its value", "cel.bind(model, model.a, model.b)", "[variables.model.a].map(model, model.b)[0]"},
		{"macros inside a stand-in's arguments", "cel.bind(x, l.filter(e, has(e.f)), x.size())", "[l.filter(e, has(e.f))].map(x, x.size())[0]"},
		{"an argument used twice", "twice(runtime.a)", "object.a + object.a"},
		{"precedence is the tree's", "twice(a ? b : c) * 2", "((a ? b : c) + (a ? b : c)) * 2"},
		{"optional syntax", "runtime.?spec.?x.orValue([?a.?b])", "object.?spec.?x.orValue([?a.?b])"},
		{"strings", `twice("\u00e9\x01\"" + 'x')`, `"é\x01\"" + "x" + ("é\x01\"" + "x")`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Rewrite(tc.in, Rules{Renames: renames, Call: bindStandIn})
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

// A rewrite and its printing keep the meaning: each expression gives the
// same value before and after a rewrite that renames nothing and an
// identity stand-in.
func TestPrintingKeepsTheMeaning(t *testing.T) {
	env, err := cel.NewEnv(cel.OptionalTypes(), ext.Bindings(), ext.Strings(), ext.TwoVarComprehensions(), ext.Lists(ext.ListsVersion(3)),
		cel.Variable("x", cel.DynType))
	require.NoError(t, err)
	x := map[string]any{"a": []any{int64(1), int64(2), int64(3)}, "s": "v1.2", "m": map[string]any{"k": int64(1)}}
	identity := func(c Call) (*StandIn, error) {
		if c.Function == "size" {
			return &StandIn{Template: "__arg0.size()", Args: []ast.Expr{c.Target}}, nil
		}
		return nil, nil
	}
	for _, expr := range []string{
		`x.a.map(e, e * 2).filter(e, e > 2).size() == 2 && x.a.all(e, e > 0) || false`,
		`(1 + 2) * 3 - -4 % 3 == 10 ? "a" : "b" + "c"`,
		`x.a.exists_one(e, e == 2) && !(x.a.exists(e, e > 3)) && has(x.m.k)`,
		`cel.bind(y, x.a, y.size() + y[0]) == 4`,
		`[?x.?missing, ?x.?s].size() + {"k": 1, ?"j": x.?none}.size() == 2`,
		`x.m.all(k, v, v == 1) && x.a.transformList(i, v, v + i) == [1, 3, 5]`,
		`x.s.startsWith("v") && x.s.substring(1).split(".").size() == 2 && x.a == x.a`,
		`1u + 2u == 3u && 1.5e3 == 1500.0 && b"\x01" == bytes("\x01")`,
	} {
		tr, err := Parse(expr)
		require.NoError(t, err, expr)
		e, changed, err := tr.RewriteTree(Rules{Call: identity})
		require.NoError(t, err)
		printed, err := String(e)
		require.NoError(t, err)
		before, after := eval(t, env, expr, x), eval(t, env, printed, x)
		assert.Equal(t, before, after, "%s\nprinted %s (changed: %v)", expr, printed, changed)
	}
}

func eval(t *testing.T, env *cel.Env, expr string, x any) string {
	t.Helper()
	a, iss := env.Compile(expr)
	require.NoError(t, iss.Err(), expr)
	p, err := env.Program(a)
	require.NoError(t, err)
	v, _, err := p.Eval(map[string]any{"x": x})
	if err != nil {
		return "error"
	}
	if v.Type() == types.ErrType {
		return "error"
	}
	return types.Format(v)
}

func TestHomogenize(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`["a", 1]`, `[dyn("a"), dyn(1)]`},
		{`{"a": [1], "b": "x"}`, `{"a": dyn([dyn(1)]), "b": dyn("x")}`},
		{`a[0] + m["k"] + [] + {}`, `a[0] + m["k"] + [] + {}`},
		{`[a, ?b, c]`, `[dyn(a)] + [b].map(__o, __o.hasValue() ? [dyn(__o.value())] : [])[0] + [dyn(c)]`},
		{`[?b]`, `[b].map(__o, __o.hasValue() ? [dyn(__o.value())] : [])[0]`},
		{`x in ["a"]`, `x in [dyn("a")]`},
	} {
		got, err := Homogenize(tc.in)
		require.NoError(t, err)
		assert.Equal(t, tc.want, got, tc.in)
	}
}

func TestVariables(t *testing.T) {
	got, err := Variables(`variables.b + variables.a.x + variables.?c.orValue(0) + variables.b + object.variables.d + l.map(variables, 1)[0]`)
	require.NoError(t, err)
	assert.Equal(t, []string{"b", "a", "c"}, got)
}

func TestFill(t *testing.T) {
	got, err := Fill("[__arg0].map(__m, __m != \"\" ? __m : __arg1)[0]", `a ? "x" : "y"`, `"fallback"`)
	require.NoError(t, err)
	assert.Equal(t, `[a ? "x" : "y"].map(__m, (__m != "") ? __m : "fallback")[0]`, got)
}

func TestCheckGivesTypes(t *testing.T) {
	env, err := cel.NewEnv(cel.EnableMacroCallTracking(), cel.Variable("l", cel.ListType(cel.StringType)))
	require.NoError(t, err)
	tr, err := Check(env, `l.all(s, s.size() > 1)`)
	require.NoError(t, err)
	require.True(t, tr.IsMacro(tr.Expr.ID()))
	assert.Equal(t, cel.BoolType, tr.Type(tr.Expr.ID()))
	body := tr.Expr.AsCall().Args()[1]
	assert.Equal(t, cel.StringType, tr.Type(body.AsCall().Args()[0].AsCall().Target().ID()), "the bound s is a string")
	plain, err := cel.NewEnv(cel.Variable("l", cel.ListType(cel.StringType)))
	require.NoError(t, err)
	_, err = Check(plain, `l.all(s, s.size() > 1)`)
	assert.ErrorContains(t, err, "does not track macro calls")
}

func TestParseErrorsAreNamed(t *testing.T) {
	_, err := Rewrite(`a &&`, Rules{})
	assert.ErrorContains(t, err, "CEL does not parse")
}
