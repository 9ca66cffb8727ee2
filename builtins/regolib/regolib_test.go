package regolib_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/tester"
	"github.com/open-policy-agent/opa/v1/types"
	"github.com/stretchr/testify/require"

	"github.com/ome-policy/evaluator/builtins/regolib"
)

// evalRego evaluates query with the ome builtins and input (nil for none).
func evalRego(t testing.TB, query string, input any) (rego.ResultSet, error) {
	t.Helper()
	opts := []func(*rego.Rego){rego.Query(query)}
	if input != nil {
		opts = append(opts, rego.Input(input))
	}
	opts = append(opts, regolib.Options()...)
	return rego.New(opts...).Eval(context.Background())
}

// regoValue evaluates `x := <call>` and returns x as JSON, or "" when the
// result is undefined. It fails the test on an evaluation error.
func regoValue(t testing.TB, call string, input any) string {
	t.Helper()
	rs, err := evalRego(t, "x := "+call, input)
	require.NoError(t, err, call)
	if len(rs) == 0 {
		return ""
	}
	require.Len(t, rs, 1, call)
	b, err := json.Marshal(rs[0].Bindings["x"])
	require.NoError(t, err)
	return string(b)
}

func TestRegoValid(t *testing.T) {
	tests := []struct {
		call string
		want string // JSON
	}{
		{`ome.version.is_valid("4.45.0.dev0")`, `true`},
		{`ome.version.is_valid("v1")`, `true`},
		{`ome.version.is_valid("18446744073709551615")`, `true`},

		{`ome.version.parse("4.45.0.dev0")`, `{"original":"4.45.0.dev0","v":false,"parts":3,"major":4,"minor":45,"patch":0,"dev":["dev0"],"pre":[],"build":[]}`},
		{`ome.version.parse("v1.2.3.a-b.c+d.e")`, `{"original":"v1.2.3.a-b.c+d.e","v":true,"parts":3,"major":1,"minor":2,"patch":3,"dev":["a"],"pre":["b","c"],"build":["d","e"]}`},
		{`ome.version.parse("4.46")`, `{"original":"4.46","v":false,"parts":2,"major":4,"minor":46,"patch":0,"dev":[],"pre":[],"build":[]}`},
		{`ome.version.parse("1.2.3+a-b")`, `{"original":"1.2.3+a-b","v":false,"parts":3,"major":1,"minor":2,"patch":3,"dev":[],"pre":[],"build":["a-b"]}`},
		{`ome.version.parse("18446744073709551615.0.1")`, `{"original":"18446744073709551615.0.1","v":false,"parts":3,"major":18446744073709551615,"minor":0,"patch":1,"dev":[],"pre":[],"build":[]}`},
		{`ome.version.parse("1.2.3").major`, `1`},

		{`ome.go.is_float("0.5")`, `true`},
		{`ome.go.is_float("1e400")`, `false`},
		{`ome.go.is_float(1)`, `false`},
		{`ome.go.parse_url("http://x:abc")`, `{"error":"parse \"http://x:abc\": invalid port \":abc\" after host","scheme":"","host":""}`},
		{`ome.go.parse_url("HTTP://prom:9090/api")`, `{"error":"","scheme":"http","host":"prom:9090"}`},

		{`ome.version.has_suffix("4.45.0.dev0")`, `true`},
		{`ome.version.has_suffix("4.51.3-SAM-HQ-preview")`, `true`},
		{`ome.version.has_suffix("1.8.0+20240707")`, `true`},
		{`ome.version.has_suffix("4.45.0")`, `false`},

		{`ome.version.parts("1")`, `1`},
		{`ome.version.parts("v4.46")`, `2`},
		{`ome.version.parts("1.2.3.4")`, `3`},

		{`ome.version.has_v("v4.46.0")`, `true`},
		{`ome.version.has_v("4.46.0")`, `false`},

		{`ome.version.equal("1.0", "1.0.0")`, `true`},
		{`ome.version.equal("v1.0.0", "1.0.0")`, `true`},
		{`ome.version.equal("1", "v1.0.0")`, `true`},
		{`ome.version.equal("4.45.0.dev0", "4.45.0.dev0")`, `true`},
		{`ome.version.equal("4.45.0.dev0", "4.45.0-dev0")`, `false`},
		{`ome.version.equal("4.45.0.dev0", "4.45.0")`, `false`},
		{`ome.version.equal("1.2.3.4", "1.2.3")`, `false`},

		{`ome.version.compare("4.10.0", "4.9.0")`, `1`},
		{`ome.version.compare("4.9.0", "4.10.0")`, `-1`},
		{`ome.version.compare("1.0", "1.0.0")`, `0`},
		{`ome.version.compare("4.46.0", "4.44.2")`, `1`},
		{`ome.version.compare("1.0.0", "2.0.0")`, `-1`},
		{`ome.version.compare("4.45.0.dev0", "4.45.0")`, `0`},

		{`ome.size.compare("8B", "7B")`, `1`},
		{`ome.size.compare("7B", "8B")`, `-1`},
		{`ome.size.parse("3.21B")`, `3210000000`},
		{`ome.size.parse("500M")`, `500000000`},
		{`ome.size.parse("huge")`, `0`},
		{`ome.size.parse("NaN")`, `0`},
		{`ome.size.compare("7B", "7000M")`, `0`},
		{`ome.size.compare("500M", "0.5B")`, `0`},
		{`ome.size.compare("1.5T", "1500B")`, `0`},
		{`ome.size.compare("huge", "0")`, `0`},
		{`ome.size.compare("", "1M")`, `-1`},
		{`ome.size.compare("NaN", "7B")`, `0`},

		// Memoized builtins still see each argument.
		{`[ome.version.parts("1"), ome.version.parts("1.0"), ome.version.parts("1.0.0")]`, `[1,2,3]`},
	}
	for _, tc := range tests {
		t.Run(tc.call, func(t *testing.T) {
			require.JSONEq(t, tc.want, regoValue(t, tc.call, nil))
		})
	}

	// The largest number keeps every digit.
	rs, err := evalRego(t, `x := ome.version.parse("18446744073709551615").major`, nil)
	require.NoError(t, err)
	require.Equal(t, json.Number("18446744073709551615"), rs[0].Bindings["x"])
}

// TestRegoUndefined checks that a value that is not a version string makes
// every builtin but is_valid undefined, without an error. The values come
// through input, where the type checker cannot see them.
func TestRegoUndefined(t *testing.T) {
	notVersions := []any{
		"", "bad", "01.0.0", "1.0-rc1", "1.0.0+", "18446744073709551616", "1.0.0 ",
		1, 1.5, true, nil, []any{"1.0.0"}, map[string]any{"v": "1.0.0"},
	}
	calls := []string{
		`ome.version.parse(input.bad)`,
		`ome.version.has_suffix(input.bad)`,
		`ome.version.parts(input.bad)`,
		`ome.version.has_v(input.bad)`,
		`ome.version.equal(input.bad, "1.0.0")`,
		`ome.version.equal("1.0.0", input.bad)`,
		`ome.version.equal(input.bad, input.bad)`,
		`ome.version.compare(input.bad, "1.0.0")`,
		`ome.version.compare("1.0.0", input.bad)`,
	}
	for _, bad := range notVersions {
		input := map[string]any{"bad": bad}
		name, _ := json.Marshal(bad)
		t.Run(string(name), func(t *testing.T) {
			for _, call := range calls {
				require.Equal(t, "", regoValue(t, call, input), "%s with %s", call, name)
			}
			require.Equal(t, "false", regoValue(t, `ome.version.is_valid(input.bad)`, input))

			// `not` reads undefined as false, so a policy can guard with it.
			rs, err := evalRego(t, `not ome.version.parse(input.bad)`, input)
			require.NoError(t, err)
			require.Len(t, rs, 1)
		})
	}

	// ome.size.compare is undefined for non-strings, and reads any string.
	for _, bad := range []any{1, nil, true, []any{"7B"}} {
		input := map[string]any{"bad": bad}
		require.Equal(t, "", regoValue(t, `ome.size.compare(input.bad, "7B")`, input))
		require.Equal(t, "", regoValue(t, `ome.size.compare("7B", input.bad)`, input))
	}
	require.Equal(t, "-1", regoValue(t, `ome.size.compare(input.bad, "7B")`, map[string]any{"bad": "junk"}))
}

func TestRegoIsValidNonStrings(t *testing.T) {
	// is_valid takes any value, so the type checker lets literals through.
	for _, call := range []string{
		`ome.version.is_valid(1)`,
		`ome.version.is_valid(1.0)`,
		`ome.version.is_valid(null)`,
		`ome.version.is_valid(true)`,
		`ome.version.is_valid(["1.0.0"])`,
		`ome.version.is_valid({"1.0.0"})`,
		`ome.version.is_valid({"v": "1.0.0"})`,
		`ome.version.is_valid("")`,
		`ome.version.is_valid("latest")`,
	} {
		require.Equal(t, "false", regoValue(t, call, nil), call)
	}
}

func TestRegoTypeChecked(t *testing.T) {
	// Literal arguments of the wrong type are caught before evaluation.
	for _, call := range []string{
		`ome.version.parse(1)`,
		`ome.version.compare("1.0.0", 2)`,
		`ome.version.equal(["1"], "1")`,
		`ome.size.compare(7, "7B")`,
		`ome.version.compare("1.0.0")`,
		`ome.version.parts("1", "2")`,
		`ome.version.nope("1")`,
	} {
		t.Run(call, func(t *testing.T) {
			_, err := evalRego(t, "x := "+call, nil)
			require.Error(t, err)
			require.Contains(t, err.Error(), "rego_type_error")
		})
	}
}

func TestRegoInPolicy(t *testing.T) {
	const module = `package t

# The spec 4.1 steps, enough of them to exercise every builtin.
match(op, a, b) if {
	ome.version.is_valid(a)
	ome.version.is_valid(b)
	forced(op, a, b)
	ome.version.equal(a, b)
}

match(op, a, b) if {
	not forced(op, a, b)
	ome.version.parts(a) == ome.version.parts(b)
	ome.version.has_v(a) == ome.version.has_v(b)
	ordered(op, ome.version.compare(a, b))
}

forced("Equal", _, _)
forced(_, a, _) if ome.version.has_suffix(a)
forced(_, _, b) if ome.version.has_suffix(b)

ordered("GreaterThan", c) if c > 0
ordered("GreaterThanOrEqual", c) if c >= 0
ordered(op, 0) if not op in {"Equal", "GreaterThan", "GreaterThanOrEqual"}

results := [r |
	some row in input
	m := count({1 | match(row.op, row.entry, row.model)}) > 0
	r := object.union(row, {"match": m})
]
`
	// Spec 4.4 (operator "(none)" is Equal, the schema's default).
	rows := []map[string]any{
		{"entry": "4.45.0.dev0", "op": "Equal", "model": "4.45.0.dev0", "want": true},
		{"entry": "4.46.0", "op": "GreaterThanOrEqual", "model": "4.44.2", "want": true},
		{"entry": "4.46.0", "op": "GreaterThanOrEqual", "model": "4.45.0.dev0", "want": false},
		{"entry": "4.45.0.dev0", "op": "GreaterThanOrEqual", "model": "4.44.0", "want": false},
		{"entry": "4.45.0.dev0", "op": "GreaterThan", "model": "4.45.0.dev0", "want": true},
		{"entry": "4.46.0", "op": "GreaterThanOrEqual", "model": "4.46", "want": false},
		{"entry": "4.46", "op": "GreaterThanOrEqual", "model": "4.45", "want": true},
		{"entry": "v4.46.0", "op": "GreaterThanOrEqual", "model": "4.45.0", "want": false},
		{"entry": "v4.46.0", "op": "GreaterThanOrEqual", "model": "v4.45.0", "want": true},
		{"entry": "4.10.0", "op": "GreaterThan", "model": "4.9.0", "want": true},
		{"entry": "1.0", "op": "Equal", "model": "1.0.0", "want": true},
		{"entry": "v1.0.0", "op": "Equal", "model": "1.0.0", "want": true},
		{"entry": "1.0", "op": "", "model": "1.0.0", "want": false},
		{"entry": "1.0.0", "op": "LessThan", "model": "1.0.0", "want": true},
		{"entry": "2.0.0", "op": "LessThan", "model": "1.0.0", "want": false},
		{"entry": "4.45.0.dev0", "op": "Equal", "model": "4.45.0-dev0", "want": false},
		{"entry": "1.2.3.4", "op": "GreaterThan", "model": "1.2.3", "want": false},
		{"entry": "", "op": "Equal", "model": "1.0.0", "want": false},
	}
	opts := append([]func(*rego.Rego){
		rego.Query("data.t.results"),
		rego.Module("t.rego", module),
		rego.Input(rows),
	}, regolib.Options()...)
	rs, err := rego.New(opts...).Eval(context.Background())
	require.NoError(t, err)
	require.Len(t, rs, 1)
	results := rs[0].Expressions[0].Value.([]any)
	require.Len(t, results, len(rows))
	for _, r := range results {
		row := r.(map[string]any)
		require.Equal(t, row["want"], row["match"], "%v", row)
	}
}

func TestRegoDecls(t *testing.T) {
	all := regolib.Builtins()
	require.Len(t, all, 18)
	seen := map[string]bool{}
	for _, b := range all {
		d := b.Decl
		t.Run(d.Name, func(t *testing.T) {
			require.True(t, strings.HasPrefix(d.Name, "ome."), "name %q", d.Name)
			require.False(t, seen[d.Name], "duplicate %q", d.Name)
			seen[d.Name] = true
			require.NotEmpty(t, strings.TrimSpace(d.Description))
			require.True(t, strings.HasSuffix(d.Description, "."), "description ends with a full stop")

			fn := d.Decl
			require.NotNil(t, fn)
			args := fn.NamedFuncArgs()
			require.Nil(t, args.Variadic)
			require.NotEmpty(t, args.Args)
			for i, a := range args.Args {
				named, ok := a.(*types.NamedType)
				require.True(t, ok, "argument %d is named", i)
				require.NotEmpty(t, named.Name, "argument %d has a name", i)
				require.NotEmpty(t, named.Descr, "argument %s has a description", named.Name)
				require.NotNil(t, named.Type)
			}
			res, ok := fn.NamedResult().(*types.NamedType)
			require.True(t, ok, "the result is named")
			require.NotEmpty(t, res.Name)
			require.NotEmpty(t, res.Descr)

			// The implementation matches the arity.
			switch fn.Arity() {
			case 1, 2, 3, 4:
				impls := []bool{b.Impl1 != nil, b.Impl2 != nil, b.Impl3 != nil, b.Impl4 != nil}
				want := make([]bool, 4)
				want[fn.Arity()-1] = true
				require.Equal(t, want, impls, "only Impl%d is set", fn.Arity())
			default:
				t.Fatalf("arity %d", fn.Arity())
			}

			a := b.AST()
			require.Equal(t, d.Name, a.Name)
			require.Equal(t, d.Description, a.Description)
			require.Same(t, d.Decl, a.Decl)
			require.Equal(t, []string{"ome"}, a.Categories)
		})
	}
	require.Len(t, regolib.Options(), len(all))
	require.Len(t, regolib.TesterBuiltins(), len(all))
}

// TestRegoTesterBuiltins runs a Rego unit test through OPA's test runner
// with TesterBuiltins, as `evaluate test` does.
func TestRegoTesterBuiltins(t *testing.T) {
	mod, err := ast.ParseModuleWithOpts("t_test.rego", `package t_test

test_compare if ome.version.compare("4.10.0", "4.9.0") == 1
test_equal if ome.version.equal("1.0", "v1.0.0")
test_invalid if not ome.version.parse("1.0-rc1")
test_size if ome.size.compare("500M", "0.5B") == 0
test_fails if ome.version.compare("1", "2") == 1
`, ast.ParserOptions{})
	require.NoError(t, err)
	ch, err := tester.NewRunner().
		AddCustomBuiltins(regolib.TesterBuiltins()).
		SetModules(map[string]*ast.Module{"t_test.rego": mod}).
		RunTests(context.Background(), nil)
	require.NoError(t, err)
	got := map[string]bool{}
	for r := range ch {
		require.NoError(t, r.Error, r.Name)
		got[r.Name] = r.Pass()
	}
	require.Equal(t, map[string]bool{
		"test_compare": true, "test_equal": true, "test_invalid": true, "test_size": true,
		"test_fails": false,
	}, got)
}

func TestRegoProblem(t *testing.T) {
	for in, want := range map[string]string{
		"4.45.0.dev0": `""`,
		"":            `"the version is empty"`,
		"1.0-rc1":     `"a suffix may only follow the third number"`,
		"01.0.0":      `"number 1: \"01\" has a leading zero"`,
	} {
		require.JSONEq(t, want, regoValue(t, `ome.version.problem(input.v)`, map[string]any{"v": in}), in)
	}
	require.Equal(t, "", regoValue(t, `ome.version.problem(input.v)`, map[string]any{"v": 1}), "undefined for a number")
}
