package rego

import (
	"context"
	"fmt"
	"testing"

	"github.com/open-policy-agent/opa/v1/metrics"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/stretchr/testify/require"
)

// The matcher's cache keeps rules and not function calls: a rule read
// twice is found the second time, a function called twice with the same
// arguments is evaluated twice, and the answer is the same as with OPA's
// own cache.
func TestRuleCacheKeepsRulesNotCalls(t *testing.T) {
	const module = `package t

f(x) := x + 1

r := f(1)

both := [r, r, f(2), f(2)]`
	q, err := rego.New(rego.Query("data.t.both"), rego.Module("t.rego", module)).PrepareForEval(context.Background())
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		opts []rego.EvalOption
		hits uint64
	}{
		{"OPA's cache", nil, 2}, // r, and f(2) once
		{"ruleCache", []rego.EvalOption{rego.EvalVirtualCache(newRuleCache())}, 1}, // r alone
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := metrics.New()
			rs, err := q.Eval(context.Background(), append(tc.opts, rego.EvalMetrics(m), rego.EvalInstrument(true))...)
			require.NoError(t, err)
			require.Len(t, rs, 1)
			require.Equal(t, []any{"2", "2", "3", "3"}, jsonNumbers(rs[0].Expressions[0].Value))
			require.Equal(t, tc.hits, m.Counter("eval_op_virtual_cache_hit").Value(), "cache hits")
		})
	}
}

// jsonNumbers writes a list of JSON numbers as strings.
func jsonNumbers(v any) []any {
	var out []any
	for _, x := range v.([]any) {
		out = append(out, fmt.Sprint(x))
	}
	return out
}
