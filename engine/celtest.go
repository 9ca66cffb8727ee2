package engine

import (
	"fmt"
	"reflect"
	"sort"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// CELPolicyTester runs CEL policy cases: unit tests of one CEL policy that
// give its inputs directly and expect the messages of its failing
// validations, and optionally the values of some of its variables.
type CELPolicyTester struct {
	policies map[string]*celPolicy
}

// NewCELPolicyTester compiles the CEL policies of set.
func NewCELPolicyTester(set *PolicySet) (*CELPolicyTester, error) {
	ps, err := compileCELPolicies(set)
	if err != nil {
		return nil, err
	}
	return &CELPolicyTester{policies: ps.byName}, nil
}

// PolicyExpectation is what a CEL policy case expects, and what it got.
type PolicyExpectation struct {
	Failures  []string       `json:"failures" yaml:"failures"`
	Variables map[string]any `json:"variables,omitempty" yaml:"variables,omitempty"`
}

// Run runs one CEL policy case.
func (t *CELPolicyTester) Run(c *Case) CaseOutcome {
	want := PolicyExpectation{Failures: *c.Expect.Failures, Variables: c.Expect.Variables}
	out := CaseOutcome{Expected: want}
	p, ok := t.policies[c.CELPolicy]
	if !ok {
		names := make([]string, 0, len(t.policies))
		for n := range t.policies {
			names = append(names, n)
		}
		sort.Strings(names)
		out.Detail = fmt.Sprintf("no CEL policy named %q (there are: %v)", c.CELPolicy, names)
		return out
	}
	for name := range c.Input {
		if !contains(p.inputs, name) {
			out.Detail = fmt.Sprintf("CEL policy %s has no input %q (its inputs: %v)", p.name, name, p.inputs)
			return out
		}
	}
	for _, name := range p.inputs {
		if _, ok := c.Input[name]; !ok {
			out.Detail = fmt.Sprintf("CEL policy %s needs the input %q (its inputs: %v)", p.name, name, p.inputs)
			return out
		}
	}
	failures, err := p.eval(c.Input)
	if err != nil {
		out.Detail = err.Error()
		return out
	}
	if failures == nil {
		failures = []string{}
	}
	got := PolicyExpectation{Failures: failures}
	act := &celActivation{p: p, inputs: c.Input, vals: make([]ref.Val, len(p.vars))}
	for name, wantValue := range c.Expect.Variables {
		if _, ok := p.varIndex[name]; !ok {
			out.Detail = fmt.Sprintf("CEL policy %s has no variable %q", p.name, name)
			out.Got = got
			return out
		}
		v, _ := act.ResolveName("variables." + name)
		native, err := celNative(v.(ref.Val))
		if err != nil {
			out.Detail = fmt.Sprintf("variable %s: %v", name, err)
			out.Got = got
			return out
		}
		if got.Variables == nil {
			got.Variables = map[string]any{}
		}
		got.Variables[name] = native
		if !reflect.DeepEqual(normaliseNumbers(wantValue), native) {
			out.Got = got
			return out
		}
	}
	out.Got = got
	out.Passed = reflect.DeepEqual(want.Failures, got.Failures)
	return out
}

// celNative turns a CEL value into plain Go values as the case files
// decode them: strings, bools, int64, float64, []any and map[string]any.
func celNative(v ref.Val) (any, error) {
	switch x := v.(type) {
	case *types.Err:
		return nil, x
	case types.String:
		return string(x), nil
	case types.Bool:
		return bool(x), nil
	case types.Int:
		return int64(x), nil
	case types.Uint:
		return int64(x), nil
	case types.Double:
		return float64(x), nil
	case types.Null:
		return nil, nil
	case traits.Lister:
		out := []any{}
		for it := x.Iterator(); it.HasNext() == types.True; {
			e, err := celNative(it.Next())
			if err != nil {
				return nil, err
			}
			out = append(out, e)
		}
		return out, nil
	case traits.Mapper:
		out := map[string]any{}
		for it := x.Iterator(); it.HasNext() == types.True; {
			k := it.Next()
			ks, ok := k.(types.String)
			if !ok {
				return nil, fmt.Errorf("map key %v is not a string", k)
			}
			e, err := celNative(x.Get(k))
			if err != nil {
				return nil, err
			}
			out[string(ks)] = e
		}
		return out, nil
	}
	return fmt.Sprint(v.Value()), nil
}

// normaliseNumbers makes every integer an int64, as celNative gives them.
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
