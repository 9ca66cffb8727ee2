// Package regolib registers the version and size semantics of package
// builtins with OPA: the Rego builtins ome.version.* and ome.size.*, and
// ome.go.is_float and ome.go.parse_url (webhook.go), each
// declared next to its implementation, with the options, tester builtins and
// capabilities that carry them. It is the only package that joins builtins
// and OPA. It also holds the builtins of the Rego evaluation plan,
// ome.plan.gather, pick, join_each, join_rows, rows_with and fill_blanks
// (plan.go), which read and put together the plan's memo tables and know
// nothing of OME.
package regolib

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/tester"
	"github.com/open-policy-agent/opa/v1/types"

	"github.com/ome-policy/evaluator/builtins"
)

// Builtin is one Rego builtin of the ome.* namespaces: its
// declaration (name, described arguments and result) and its
// implementation, side by side.
type Builtin struct {
	Decl *rego.Function
	// Exactly one of Impl1 to Impl4 is set, as the arity says.
	Impl1 rego.Builtin1
	Impl2 rego.Builtin2
	Impl3 rego.Builtin3
	Impl4 rego.Builtin4
}

var versionArg = types.Named("version", types.S).Description("an OME version such as 4.45.0.dev0")

// Every builtin takes version strings. A string that does not parse makes
// the result undefined (is_valid is false instead), never an error, so a
// policy can test for validity with `not`.
//
// None asks OPA to memoize it (rego.Function's Memoize): the parses are
// kept already (builtins.ParseCached), and OPA's memo hashes every call's
// arguments and stores its result, which on the many-valued 300 x 700
// cluster of bench/run.sh cost about 6% of a Rego run's CPU time and saved
// nothing (the plan's tables call each check once per distinct value).
var regoBuiltins = []Builtin{
	{
		Decl: &rego.Function{
			Name:        "ome.version.is_valid",
			Description: "Reports whether a string is an OME version: an optional lowercase v, one to three numbers without leading zeros, and dev (.), pre-release (-) or build (+) suffixes after the third number only. Anything that is not a string is not valid.",
			Decl: types.NewFunction(
				types.Args(types.Named("version", types.A).Description("the value to check")),
				types.Named("result", types.B).Description("true when the value parses as an OME version"),
			),
		},
		Impl1: func(_ rego.BuiltinContext, a *ast.Term) (*ast.Term, error) {
			s, ok := a.Value.(ast.String)
			if !ok {
				return ast.BooleanTerm(false), nil
			}
			_, err := builtins.ParseCached(string(s))
			return ast.BooleanTerm(err == nil), nil
		},
	},
	{
		Decl: &rego.Function{
			Name:        "ome.version.parse",
			Description: "Parses an OME version into an object with the keys original, v, parts, major, minor, patch, dev, pre and build. Undefined when the string does not parse.",
			Decl: types.NewFunction(
				types.Args(versionArg),
				types.Named("result", types.NewObject(nil, types.NewDynamicProperty(types.S, types.A))).Description("the parsed version"),
			),
		},
		Impl1: withVersion(func(v builtins.Version) *ast.Term {
			parts := func(p []string) *ast.Term {
				terms := make([]*ast.Term, len(p))
				for i, s := range p {
					terms[i] = ast.StringTerm(s)
				}
				return ast.ArrayTerm(terms...)
			}
			num := func(n uint64) *ast.Term { return ast.NewTerm(ast.Number(strconv.FormatUint(n, 10))) }
			return ast.ObjectTerm(
				ast.Item(ast.StringTerm("original"), ast.StringTerm(v.Original)),
				ast.Item(ast.StringTerm("v"), ast.BooleanTerm(v.V)),
				ast.Item(ast.StringTerm("parts"), ast.IntNumberTerm(v.Parts)),
				ast.Item(ast.StringTerm("major"), num(v.Major)),
				ast.Item(ast.StringTerm("minor"), num(v.Minor)),
				ast.Item(ast.StringTerm("patch"), num(v.Patch)),
				ast.Item(ast.StringTerm("dev"), parts(v.Dev)),
				ast.Item(ast.StringTerm("pre"), parts(v.Pre)),
				ast.Item(ast.StringTerm("build"), parts(v.Build)),
			)
		}),
	},
	{
		Decl: &rego.Function{
			Name:        "ome.version.problem",
			Description: "Says why a string does not parse as an OME version (such as \"a suffix may only follow the third number\"), or returns the empty string when it does. Undefined for a value that is not a string.",
			Decl: types.NewFunction(
				types.Args(types.Named("version", types.S).Description("the text to check")),
				types.Named("result", types.S).Description("why it does not parse; empty when it does"),
			),
		},
		Impl1: func(_ rego.BuiltinContext, a *ast.Term) (*ast.Term, error) {
			s, ok := a.Value.(ast.String)
			if !ok {
				return nil, nil
			}
			return ast.StringTerm(builtins.Problem(string(s))), nil
		},
	},
	{
		Decl: &rego.Function{
			Name:        "ome.version.has_suffix",
			Description: "Reports whether an OME version has a dev, pre-release or build suffix. Undefined when the string does not parse.",
			Decl:        types.NewFunction(types.Args(versionArg), types.Named("result", types.B).Description("true when a suffix is present")),
		},
		Impl1: withVersion(func(v builtins.Version) *ast.Term { return ast.BooleanTerm(v.HasSuffix()) }),
	},
	{
		Decl: &rego.Function{
			Name:        "ome.version.parts",
			Description: "The number of numbers written in an OME version: 1, 2 or 3. Undefined when the string does not parse.",
			Decl:        types.NewFunction(types.Args(versionArg), types.Named("result", types.N).Description("1, 2 or 3")),
		},
		Impl1: withVersion(func(v builtins.Version) *ast.Term { return ast.IntNumberTerm(v.Parts) }),
	},
	{
		Decl: &rego.Function{
			Name:        "ome.version.has_v",
			Description: "Reports whether an OME version starts with a lowercase v. Undefined when the string does not parse.",
			Decl:        types.NewFunction(types.Args(versionArg), types.Named("result", types.B).Description("true when the version starts with v")),
		},
		Impl1: withVersion(func(v builtins.Version) *ast.Term { return ast.BooleanTerm(v.V) }),
	},
	{
		Decl: &rego.Function{
			Name:        "ome.version.equal",
			Description: "Reports whether two OME versions are equal: the same numbers (missing ones count as 0) and the same dev, pre-release and build parts; the v and the number of parts do not count. Undefined when either does not parse.",
			Decl: types.NewFunction(
				types.Args(
					types.Named("a", types.S).Description("the first version"),
					types.Named("b", types.S).Description("the second version"),
				),
				types.Named("result", types.B).Description("true when a equals b"),
			),
		},
		Impl2: withVersions(func(a, b builtins.Version) *ast.Term { return ast.BooleanTerm(builtins.Equal(a, b)) }),
	},
	{
		Decl: &rego.Function{
			Name:        "ome.version.compare",
			Description: "Orders two OME versions by major, then minor, then patch, numerically; suffixes, the v and the number of parts are not looked at. Undefined when either does not parse.",
			Decl: types.NewFunction(
				types.Args(
					types.Named("a", types.S).Description("the first version"),
					types.Named("b", types.S).Description("the second version"),
				),
				types.Named("result", types.N).Description("-1 when a < b, 0 when equal, 1 when a > b"),
			),
		},
		Impl2: withVersions(func(a, b builtins.Version) *ast.Term { return ast.IntNumberTerm(builtins.Compare(a, b)) }),
	},
	{
		Decl: &rego.Function{
			Name:        "ome.size.compare",
			Description: "Orders two model parameter sizes such as 3.21B, 500M or 1.5T (a decimal number with an optional T, B or M suffix; anything else counts as 0).",
			Decl: types.NewFunction(
				types.Args(
					types.Named("a", types.S).Description("the first size"),
					types.Named("b", types.S).Description("the second size"),
				),
				types.Named("result", types.N).Description("-1 when a < b, 1 when a > b, otherwise 0"),
			),
		},
		Impl2: func(_ rego.BuiltinContext, a, b *ast.Term) (*ast.Term, error) {
			x, ok := a.Value.(ast.String)
			if !ok {
				return nil, nil
			}
			y, ok := b.Value.(ast.String)
			if !ok {
				return nil, nil
			}
			return ast.IntNumberTerm(builtins.CompareSizes(string(x), string(y))), nil
		},
	},
	{
		Decl: &rego.Function{
			Name:        "ome.size.parse",
			Description: "Reads a model parameter size such as 3.21B, 500M or 1.5T as a number (a decimal number with an optional T, B or M suffix; anything else, and sizes that are not finite, count as 0).",
			Decl: types.NewFunction(
				types.Args(types.Named("size", types.S).Description("the size")),
				types.Named("result", types.N).Description("the size as a number of parameters"),
			),
		},
		Impl1: func(_ rego.BuiltinContext, a *ast.Term) (*ast.Term, error) {
			x, ok := a.Value.(ast.String)
			if !ok {
				return nil, nil
			}
			return ast.FloatNumberTerm(builtins.SizeValue(string(x))), nil
		},
	},
	goIsFloat,
	goParseURL,
	planGather,
	planPick,
	planJoinEach,
	planJoinRows,
	planRowsWith,
	planFillBlanks,
}

// withVersion adapts a function of one parsed version into a Rego builtin
// that is undefined for anything that is not a version string.
func withVersion(f func(builtins.Version) *ast.Term) rego.Builtin1 {
	return func(_ rego.BuiltinContext, a *ast.Term) (*ast.Term, error) {
		v, ok := termVersion(a)
		if !ok {
			return nil, nil
		}
		return f(v), nil
	}
}

func withVersions(f func(a, b builtins.Version) *ast.Term) rego.Builtin2 {
	return func(_ rego.BuiltinContext, a, b *ast.Term) (*ast.Term, error) {
		va, ok := termVersion(a)
		if !ok {
			return nil, nil
		}
		vb, ok := termVersion(b)
		if !ok {
			return nil, nil
		}
		return f(va, vb), nil
	}
}

func termVersion(t *ast.Term) (builtins.Version, bool) {
	s, ok := t.Value.(ast.String)
	if !ok {
		return builtins.Version{}, false
	}
	v, err := builtins.ParseCached(string(s))
	return v, err == nil
}

// Builtins returns the declarations and implementations of every
// ome.* builtin, in a fixed order. The slice is the caller's own.
func Builtins() []Builtin { return append([]Builtin(nil), regoBuiltins...) }

// Option registers the builtin with one rego.Rego query.
func (b Builtin) Option() func(*rego.Rego) {
	switch {
	case b.Impl4 != nil:
		return rego.Function4(b.Decl, b.Impl4)
	case b.Impl3 != nil:
		return rego.Function3(b.Decl, b.Impl3)
	case b.Impl2 != nil:
		return rego.Function2(b.Decl, b.Impl2)
	}
	return rego.Function1(b.Decl, b.Impl1)
}

// AST is the builtin's declaration as OPA's compiler and capabilities
// files know it.
func (b Builtin) AST() *ast.Builtin {
	return &ast.Builtin{
		Name:        b.Decl.Name,
		Description: b.Decl.Description,
		Decl:        b.Decl.Decl,
		Categories:  []string{"ome"},
	}
}

// Options registers every ome.* builtin with a rego.Rego query.
func Options() []func(*rego.Rego) {
	opts := make([]func(*rego.Rego), 0, len(regoBuiltins))
	for _, b := range regoBuiltins {
		opts = append(opts, b.Option())
	}
	return opts
}

// TesterBuiltins returns the builtins for OPA's test runner, so Rego unit
// tests call the same Go code as the product.
func TesterBuiltins() []*tester.Builtin {
	out := make([]*tester.Builtin, 0, len(regoBuiltins))
	for _, b := range regoBuiltins {
		out = append(out, &tester.Builtin{Decl: b.AST(), Func: b.Option()})
	}
	return out
}

// CapabilitiesJSON is Capabilities as policies/capabilities.json holds it:
// indented JSON with a final newline.
func CapabilitiesJSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(Capabilities()); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Capabilities returns OPA's capabilities for this OPA version with the
// ome.* builtins added, for `opa check --capabilities`.
func Capabilities() *ast.Capabilities {
	caps := ast.CapabilitiesForThisVersion()
	for _, b := range regoBuiltins {
		caps.Builtins = append(caps.Builtins, b.AST())
	}
	return caps
}
