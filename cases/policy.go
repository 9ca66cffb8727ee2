package cases

import (
	"maps"
	"reflect"
	"slices"

	"github.com/ome-policy/evaluator/engine/cel"
)

// PolicyExpectation is what a CEL policy case expects, and what it got.
type PolicyExpectation struct {
	Failures  []string       `json:"failures" yaml:"failures"`
	Variables map[string]any `json:"variables,omitempty" yaml:"variables,omitempty"`
}

// RunPolicyCase runs a CEL policy case: it passes when the policy's failing
// validations give exactly the expected messages, in order, and each
// expected variable has the expected value.
func RunPolicyCase(t *cel.PolicyTester, c *Case) CaseOutcome {
	want := PolicyExpectation{Failures: *c.Expect.Failures, Variables: c.Expect.Variables}
	out := CaseOutcome{Expected: want}
	failures, values, err := t.Run(c.CELPolicy, c.Input, slices.Sorted(maps.Keys(c.Expect.Variables)))
	if failures != nil {
		out.Got = PolicyExpectation{Failures: failures, Variables: values}
	}
	if err != nil {
		out.Detail = err.Error()
		return out
	}
	if len(c.Expect.Variables) > 0 && !reflect.DeepEqual(normaliseNumbers(c.Expect.Variables), values) {
		return out
	}
	out.Passed = reflect.DeepEqual(want.Failures, failures)
	return out
}

// normaliseNumbers makes every integer of a case file's value an int64, as
// the policy tester gives them.
func normaliseNumbers(v any) any {
	switch x := v.(type) {
	case int:
		return int64(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normaliseNumbers(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = normaliseNumbers(e)
		}
		return out
	}
	return v
}
