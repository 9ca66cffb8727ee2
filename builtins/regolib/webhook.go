package regolib

import (
	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/types"

	"github.com/ome-policy/evaluator/builtins"
)

// The builtins of what OME's InferenceService webhook parses with Go's
// standard library (package builtins, webhook.go). Its messages quote
// values as Go's %q does, which Rego's sprintf gives already.

var goIsFloat = Builtin{
	Decl: &rego.Function{
		Name:        "ome.go.is_float",
		Description: "Reports whether OME's webhook takes a string as a number (a KEDA scaling threshold): Go's strconv.ParseFloat gives no error. Decimal and hexadecimal floats, \"_\" between digits, Inf, Infinity and NaN are numbers; a value beyond the largest float64 is not. Anything that is not a string is not a number.",
		Decl: types.NewFunction(
			types.Args(types.Named("text", types.A).Description("the value to read")),
			types.Named("result", types.B).Description("true when strconv.ParseFloat takes it"),
		),
	},
	Impl1: func(_ rego.BuiltinContext, a *ast.Term) (*ast.Term, error) {
		s, ok := a.Value.(ast.String)
		return ast.BooleanTerm(ok && builtins.IsFloat(string(s))), nil
	},
}

var goParseURL = Builtin{
	Decl: &rego.Function{
		Name:        "ome.go.parse_url",
		Description: "Parses a URL as Go's net/url.Parse does (a KEDA Prometheus server address): an object with error (the error as OME's message prints it, \"\" when it parses), scheme and host. Undefined for a value that is not a string.",
		Decl: types.NewFunction(
			types.Args(types.Named("url", types.S).Description("the text to parse")),
			types.Named("result", types.NewObject(nil, types.NewDynamicProperty(types.S, types.S))).Description("error, scheme and host"),
		),
	},
	Impl1: func(_ rego.BuiltinContext, a *ast.Term) (*ast.Term, error) {
		s, ok := a.Value.(ast.String)
		if !ok {
			return nil, nil
		}
		u := builtins.ParseURL(string(s))
		return ast.ObjectTerm(
			ast.Item(ast.StringTerm("error"), ast.StringTerm(u.Error)),
			ast.Item(ast.StringTerm("scheme"), ast.StringTerm(u.Scheme)),
			ast.Item(ast.StringTerm("host"), ast.StringTerm(u.Host)),
		), nil
	},
}
