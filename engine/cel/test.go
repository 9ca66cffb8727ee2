package cel

import (
	"fmt"
	"slices"
	"sort"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"github.com/ome-policy/evaluator/policies/policyset"
)

// PolicyTester evaluates one CEL policy on inputs given directly, as a CEL
// policy case does (a unit test of one policy): it gives the messages of
// the policy's failing validations and the values of some of its variables.
type PolicyTester struct {
	policies map[string]*policy
}

// NewPolicyTester compiles the CEL policies of set.
func NewPolicyTester(set *policyset.Set) (*PolicyTester, error) {
	ps, err := compileAllPolicies(set)
	if err != nil {
		return nil, err
	}
	return &PolicyTester{policies: ps.byName}, nil
}

// Run evaluates the named policy on input, which must give exactly the
// policy's inputs, and returns the messages of its failing validations
// ([] when none fails) and the values of the named variables as plain Go
// values (strings, bools, int64, float64, []any, map[string]any). An error
// after the validations ran (a variable the policy does not have, or whose
// value has no plain form) comes with the failures.
func (t *PolicyTester) Run(name string, input map[string]any, variables []string) (failures []string, values map[string]any, err error) {
	p, ok := t.policies[name]
	if !ok {
		names := make([]string, 0, len(t.policies))
		for n := range t.policies {
			names = append(names, n)
		}
		sort.Strings(names)
		return nil, nil, fmt.Errorf("no CEL policy named %q (there are: %v)", name, names)
	}
	for in := range input {
		if !slices.Contains(p.inputs, in) {
			return nil, nil, fmt.Errorf("CEL policy %s has no input %q (its inputs: %v)", p.name, in, p.inputs)
		}
	}
	for _, in := range p.inputs {
		if _, ok := input[in]; !ok {
			return nil, nil, fmt.Errorf("CEL policy %s needs the input %q (its inputs: %v)", p.name, in, p.inputs)
		}
	}
	failures, err = p.eval(input)
	if err != nil {
		return nil, nil, err
	}
	if failures == nil {
		failures = []string{}
	}
	act := &activation{p: p, inputs: input, vals: make([]ref.Val, len(p.vars))}
	for _, v := range variables {
		if _, ok := p.varIndex[v]; !ok {
			return failures, values, fmt.Errorf("CEL policy %s has no variable %q", p.name, v)
		}
		val, _ := act.ResolveName("variables." + v)
		native, err := toNative(val.(ref.Val))
		if err != nil {
			return failures, values, fmt.Errorf("variable %s: %v", v, err)
		}
		if values == nil {
			values = map[string]any{}
		}
		values[v] = native
	}
	return failures, values, nil
}

// toNative turns a CEL value into plain Go values as the case files
// decode them: strings, bools, int64, float64, []any and map[string]any.
func toNative(v ref.Val) (any, error) {
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
			e, err := toNative(it.Next())
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
			e, err := toNative(x.Get(k))
			if err != nil {
				return nil, err
			}
			out[string(ks)] = e
		}
		return out, nil
	}
	return fmt.Sprint(v.Value()), nil
}
