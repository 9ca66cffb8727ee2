package cellib

import (
	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"

	"github.com/ome-policy/evaluator/builtins"
)

// webhookFunctions are the library's functions of what OME's
// InferenceService webhook parses with Go's standard library (package
// builtins, webhook.go): omeIsFloat, omeParseURL and omeQuote.
func webhookFunctions() []cel.EnvOption {
	return []cel.EnvOption{
		stringFunction("omeIsFloat", "ome_is_float_string", cel.BoolType, func(s string) ref.Val {
			return types.Bool(builtins.IsFloat(s))
		}),
		stringFunction("omeParseURL", "ome_parse_url_string", cel.MapType(cel.StringType, cel.StringType), func(s string) ref.Val {
			u := builtins.ParseURL(s)
			return types.DefaultTypeAdapter.NativeToValue(map[string]string{"error": u.Error, "scheme": u.Scheme, "host": u.Host})
		}),
		stringFunction("omeQuote", "ome_quote_string", cel.StringType, func(s string) ref.Val {
			return types.String(builtins.Quote(s))
		}),
	}
}
