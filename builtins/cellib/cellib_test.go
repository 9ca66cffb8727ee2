package cellib_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/ext"
	"github.com/stretchr/testify/require"

	"github.com/ome-policy/evaluator/builtins"
	"github.com/ome-policy/evaluator/builtins/cellib"
)

func newCELEnv(t testing.TB) *cel.Env {
	t.Helper()
	env, err := cel.NewEnv(cellib.Library(), cel.OptionalTypes())
	require.NoError(t, err)
	return env
}

// evalCEL compiles expr and evaluates it without variables. A compile error
// fails the test; an evaluation error is returned.
func evalCEL(t testing.TB, env *cel.Env, expr string) (ref.Val, error) {
	t.Helper()
	checked, iss := env.Compile(expr)
	require.NoError(t, iss.Err(), "compile %s", expr)
	prg, err := env.Program(checked)
	require.NoError(t, err, "program %s", expr)
	out, _, err := prg.Eval(cel.NoVars())
	return out, err
}

func TestCELFunctions(t *testing.T) {
	env := newCELEnv(t)
	tests := []struct {
		expr string
		want any // a Go value of the type the result converts to
	}{
		// omeVersion, isOmeVersion
		{"isOmeVersion('v1.2.3')", true},
		{"isOmeVersion('01.0.0')", false},
		{"isOmeVersion('')", false},
		{"isOmeVersion('4.45.0.dev0')", true},
		{"isOmeVersion('1.0-rc1')", false},
		{"omeVersionProblem('1.0-rc1')", "a suffix may only follow the third number"},
		{"omeVersionProblem('')", "the version is empty"},
		{"omeVersionProblem('v1.2.3')", ""},
		{"isOmeVersion('18446744073709551616')", false},

		// omeIsFloat, omeParseURL, omeQuote
		{"omeIsFloat('0.5')", true},
		{"omeIsFloat('1e400')", false},
		{"omeParseURL('http://x:abc').error", `parse "http://x:abc": invalid port ":abc" after host`},
		{"omeParseURL('HTTP://prom:9090/api').scheme", "http"},
		{"omeParseURL('HTTP://prom:9090/api').host", "prom:9090"},
		{"omeQuote('a\"b')", `"a\"b"`},

		// hasSuffix, parts, hasV
		{"omeVersion('4.45.0.dev0').hasSuffix()", true},
		{"omeVersion('4.45.0').hasSuffix()", false},
		{"omeVersion('1.8.0+20240707').hasSuffix()", true},
		{"omeVersion('4.51.3-SAM-HQ-preview').hasSuffix()", true},
		{"omeVersion('4.46').parts()", int64(2)},
		{"omeVersion('v1.2.3-rc.1').parts()", int64(3)},
		{"omeVersion('1').parts()", int64(1)},
		{"omeVersion('v4.46.0').hasV()", true},
		{"omeVersion('4.46.0').hasV()", false},

		// major, minor, patch
		{"omeVersion('4.46').major()", uint64(4)},
		{"omeVersion('4.46').minor()", uint64(46)},
		{"omeVersion('4.46').patch()", uint64(0)},
		{"omeVersion('v1.2.3').patch()", uint64(3)},
		{"omeVersion('18446744073709551615').major()", uint64(18446744073709551615)},

		// dev, pre, build
		{"omeVersion('1.2.3.a-b.c+d.e').dev()", []string{"a"}},
		{"omeVersion('1.2.3.a-b.c+d.e').pre()", []string{"b", "c"}},
		{"omeVersion('1.2.3.a-b.c+d.e').build()", []string{"d", "e"}},
		{"omeVersion('4.45.0.dev0.post1').dev()", []string{"dev0", "post1"}},
		{"omeVersion('1.2.3').dev()", []string{}},
		{"omeVersion('1.2.3').pre()", []string{}},
		{"omeVersion('1.2.3').build()", []string{}},
		{"size(omeVersion('1.2').build()) == 0", true},

		// isEqualTo
		{"omeVersion('1.0').isEqualTo(omeVersion('v1.0.0'))", true},
		{"omeVersion('4.45.0.dev0').isEqualTo(omeVersion('4.45.0-dev0'))", false},
		{"omeVersion('4.45.0.dev0').isEqualTo(omeVersion('4.45.0'))", false},
		{"omeVersion('1').isEqualTo(omeVersion('v1.0.0'))", true},

		// compareTo
		{"omeVersion('4.10.0').compareTo(omeVersion('4.9.0'))", int64(1)},
		{"omeVersion('4.9.0').compareTo(omeVersion('4.10.0'))", int64(-1)},
		{"omeVersion('1.0').compareTo(omeVersion('1.0.0'))", int64(0)},
		{"omeVersion('4.46.0').compareTo(omeVersion('4.45.0.dev0'))", int64(1)},

		// == and != use OME's equality
		{"omeVersion('1.0') == omeVersion('1.0.0')", true},
		{"omeVersion('v1.0.0') == omeVersion('1.0.0')", true},
		{"omeVersion('4.45.0.dev0') == omeVersion('4.45.0-dev0')", false},
		{"omeVersion('4.45.0.dev0') != omeVersion('4.45.0')", true},
		{"omeVersion('2.0.0') != omeVersion('2')", false},
		{"omeVersion('1.0') in [omeVersion('0.9'), omeVersion('v1.0.0')]", true},
		{"[omeVersion('1.0')] == [omeVersion('1.0.0')]", true},
		{"{'k': omeVersion('1.0')} == {'k': omeVersion('1.0.0')}", true},
		// Across types == is false, as for CEL's own types, in both orders.
		{"dyn(omeVersion('1.0')) == dyn('1.0')", false},
		{"dyn('1.0') == dyn(omeVersion('1.0'))", false},
		{"dyn(omeVersion('1.0')) != dyn(1)", true},
		{"dyn(omeVersion('1.0')) in ['1.0', 1]", false},

		// conversion to string: the text as written
		{"string(omeVersion('v1.0'))", "v1.0"},
		{"string(omeVersion('4.45.0.dev0'))", "4.45.0.dev0"},
		{"string(omeVersion('1.0')) == string(omeVersion('1.0.0'))", false},

		// type()
		{"type(omeVersion('1.0.0')) == type(omeVersion('v2'))", true},
		{"type(omeVersion('1.0.0')) == string", false},

		// optional types work with versions
		{"optional.of(omeVersion('1.0')).value().major()", uint64(1)},
		{"optional.none().orValue(omeVersion('3')).major()", uint64(3)},

		// a guard short-circuits, as the policies write it
		{"isOmeVersion('bad') && omeVersion('bad').major() == 0u", false},

		// omeSizeCompare
		{"omeSizeCompare('8B', '7B')", int64(1)},
		{"omeSizeCompare('7B', '8B')", int64(-1)},
		{"omeSizeCompare('500M', '0.5B')", int64(0)},
		{"omeSizeCompare('huge', '0')", int64(0)},
		{"omeSizeCompare('1.5T', '1500B')", int64(0)},
		{"omeSizeCompare('', '1M')", int64(-1)},
		{"omeSizeCompare('NaN', '7B')", int64(0)},
	}
	for _, tc := range tests {
		t.Run(tc.expr, func(t *testing.T) {
			out, err := evalCEL(t, env, tc.expr)
			require.NoError(t, err)
			got, err := out.ConvertToNative(reflect.TypeOf(tc.want))
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestCELVersionValue(t *testing.T) {
	env := newCELEnv(t)
	out, err := evalCEL(t, env, "omeVersion('4.45.0.dev0')")
	require.NoError(t, err)
	want, err := builtins.Parse("4.45.0.dev0")
	require.NoError(t, err)

	require.Equal(t, cellib.Version{Version: want}, out)
	require.Equal(t, want, out.Value())
	require.Equal(t, cellib.VersionType, out.Type())
	require.Equal(t, "ome.Version", out.Type().TypeName())

	native, err := out.ConvertToNative(reflect.TypeOf(builtins.Version{}))
	require.NoError(t, err)
	require.Equal(t, want, native)
	_, err = out.ConvertToNative(reflect.TypeOf(""))
	require.Error(t, err)

	require.Equal(t, types.String("4.45.0.dev0"), out.ConvertToType(types.StringType))
	require.Equal(t, out, out.ConvertToType(cellib.VersionType))
	require.True(t, types.IsError(out.ConvertToType(types.IntType)))

	typ, err := evalCEL(t, env, "type(omeVersion('1.0.0'))")
	require.NoError(t, err)
	require.Equal(t, cellib.VersionType, typ)
}

func TestCELErrors(t *testing.T) {
	env := newCELEnv(t)
	tests := []struct {
		expr, msg string
	}{
		{"omeVersion('bad')", `invalid version "bad"`},
		{"omeVersion('1.0-rc1')", "a suffix may only follow the third number"},
		{"omeVersion('')", "empty"},
		{"omeVersion('01.0.0').major()", "leading zero"},
		{"omeVersion('1.0.0').isEqualTo(omeVersion('1.0.0+'))", "build suffix"},
		{"string(omeVersion('v'))", "number 1"},
	}
	for _, tc := range tests {
		t.Run(tc.expr, func(t *testing.T) {
			require.NotPanics(t, func() {
				_, err := evalCEL(t, env, tc.expr)
				require.Error(t, err)
				require.Contains(t, err.Error(), tc.msg)
			})
		})
	}

	// Errors are absorbed by the logical operators, like any CEL error.
	out, err := evalCEL(t, env, "omeVersion('bad').hasV() || true")
	require.NoError(t, err)
	require.Equal(t, types.True, out)
}

func TestCELTypeErrors(t *testing.T) {
	env := newCELEnv(t)
	for _, expr := range []string{
		"omeVersion(1)",
		"isOmeVersion(1.0)",
		"'1.0.0'.hasSuffix()",
		"omeVersion('1.0') == '1.0'",
		"omeVersion('1.0').compareTo('1.0')",
		"omeSizeCompare('7B')",
		"omeVersion('1.0') < omeVersion('2.0')",
	} {
		t.Run(expr, func(t *testing.T) {
			_, iss := env.Compile(expr)
			require.Error(t, iss.Err())
		})
	}
}

// TestCELWithEngineLibraries checks that the library composes with the
// other CEL extension libraries the policies use.
func TestCELWithEngineLibraries(t *testing.T) {
	env, err := cel.NewEnv(cel.OptionalTypes(), ext.Strings(), ext.Lists(), ext.Bindings(), cellib.Library())
	require.NoError(t, err)
	for expr, want := range map[string]ref.Val{
		"cel.bind(v, omeVersion('4.46'), v.parts() == 2 && !v.hasV())":                         types.True,
		"cel.bind(e, omeVersion('4.46.0'), cel.bind(m, omeVersion('4.44.2'), e.compareTo(m)))": types.Int(1),
		"string(omeVersion('v1.2.3-rc.1')).upperAscii()":                                       types.String("V1.2.3-RC.1"),
		"omeVersion('1.2.3.a-b.c+d.e').pre().join('.')":                                        types.String("b.c"),
		"'1.0.0'.endsWith('.0') && isOmeVersion('1.0.0')":                                      types.True,
	} {
		out, err := evalCEL(t, env, expr)
		require.NoError(t, err, expr)
		require.Equal(t, want, out, expr)
	}
}

func TestCELLibraryTwice(t *testing.T) {
	env, err := cel.NewEnv(cellib.Library(), cellib.Library())
	require.NoError(t, err)
	out, err := evalCEL(t, env, "omeVersion('1.0') == omeVersion('1')")
	require.NoError(t, err)
	require.Equal(t, types.True, out)
}

// docExample is one line of Library's doc comment of the form
//
//	<expression>   // <result>
var docExample = regexp.MustCompile(`^(\S.*?)\s+// (.+)$`)

// TestCELDocExamples evaluates every example in the doc comment of
// Library and checks the result it gives.
func TestCELDocExamples(t *testing.T) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "cellib.go", nil, parser.ParseComments)
	require.NoError(t, err)
	var doc string
	for _, d := range file.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Name.Name == "Library" && fn.Recv == nil {
			doc = fn.Doc.Text()
		}
	}
	require.NotEmpty(t, doc, "Library has a doc comment")

	env := newCELEnv(t)
	n := 0
	for _, line := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(line, "\t") {
			continue
		}
		m := docExample.FindStringSubmatch(strings.TrimPrefix(line, "\t"))
		if m == nil {
			continue
		}
		expr, result := m[1], m[2]
		n++
		t.Run(expr, func(t *testing.T) {
			switch {
			case strings.HasPrefix(result, "error: "):
				_, err := evalCEL(t, env, expr)
				require.Error(t, err)
				require.Contains(t, err.Error(), strings.TrimPrefix(result, "error: "))
			case result == "an ome.Version":
				out, err := evalCEL(t, env, expr)
				require.NoError(t, err)
				require.Equal(t, cellib.VersionType, out.Type())
			default:
				out, err := evalCEL(t, env, "("+expr+") == ("+result+")")
				require.NoError(t, err)
				require.Equal(t, types.True, out, "%s should be %s", expr, result)
			}
		})
	}
	require.GreaterOrEqual(t, n, 20, "examples found in the doc comment")
}

// TestCELDocNamesEveryFunction checks that each function the library
// declares has a section in the doc comment, and the other way round.
func TestCELDocNamesEveryFunction(t *testing.T) {
	base, err := cel.NewEnv(cel.OptionalTypes())
	require.NoError(t, err)
	env := newCELEnv(t)
	var added []string
	for name, fn := range env.Functions() {
		old, ok := base.Functions()[name]
		if !ok || len(fn.OverloadDecls()) != len(old.OverloadDecls()) {
			added = append(added, name)
		}
	}
	require.NotEmpty(t, added)

	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "cellib.go", nil, parser.ParseComments)
	require.NoError(t, err)
	var doc string
	for _, d := range file.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Name.Name == "Library" {
			doc = fn.Doc.Text()
		}
	}
	for _, name := range added {
		require.Regexp(t, `(?m)^\t(<ome\.Version>\.)?`+regexp.QuoteMeta(name)+`\(`, doc, "the doc comment shows the signature of %s", name)
	}
}
