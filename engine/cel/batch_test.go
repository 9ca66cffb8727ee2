package cel

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ome-policy/evaluator/engine/answer"
	"github.com/ome-policy/evaluator/objects/synth"
	"github.com/ome-policy/evaluator/policies/policyset"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// readsPolicy is a policy whose validation i is exprs[i], with one
// variable v that reads entry.f and model.
func readsPolicy(t *testing.T, exprs ...string) *policy {
	t.Helper()
	var b strings.Builder
	b.WriteString("apiVersion: policy.ome.io/v1alpha1\nkind: CELPolicy\nmetadata: {name: p}\nspec:\n  inputs: [model, entry]\n  evaluation: all\n")
	b.WriteString("  variables:\n  - name: v\n    expression: 'entry.f + model.g'\n  validations:\n")
	for _, e := range exprs {
		fmt.Fprintf(&b, "  - expression: %q\n    message: m\n", e)
	}
	ps, err := parsePolicies("test", b.String(), nil)
	require.NoError(t, err)
	require.Len(t, ps, 1)
	return ps[0]
}

func TestReadsOf(t *testing.T) {
	for _, tc := range []struct {
		expr string
		want string // input=fields, sorted; * for the whole value
	}{
		{`entry.a == "x"`, "entry=a"},
		{`has(entry.a) && has(model.b)`, "entry=a model=b"},
		{`entry.?a.orValue("") == model.?b.?c.orValue("")`, "entry=a model=b"},
		{`entry.a.b == entry.c`, "entry=a,c"},
		{`entry["a"] == ""`, "entry=*"},
		{`"a" in entry`, "entry=*"},
		{`size(model) > 0`, "model=*"},
		{`variables.v == ""`, "entry=f model=g"},
		{`variables.v == entry.h`, "entry=f,h model=g"},
		{`[1].all(x, x > 0)`, ""},
		{`["a"].all(x, x in entry.l)`, "entry=l"},
		// A comprehension variable named like an input hides it: every
		// input counts as read whole.
		{`["a"].all(entry, entry == "a")`, "entry=* model=*"},
	} {
		t.Run(tc.expr, func(t *testing.T) {
			p := readsPolicy(t, tc.expr)
			var got []string
			for _, in := range []string{"entry", "model"} {
				r, ok := p.checks[0].reads[in]
				if !ok {
					continue
				}
				fields := "*"
				if !r.whole {
					fields = strings.Join(r.fields, ",")
				}
				got = append(got, in+"="+fields)
			}
			require.Equal(t, tc.want, strings.Join(got, " "))
		})
	}
}

// The outcome memo gives the same verdicts however small it is: with room
// for two outcomes per validation it starts over all the time. The batch's
// verdicts are those of matching each pair on its own.
func TestBatchMemoBound(t *testing.T) {
	ms, rs := synth.Cluster(3, 12, 150)
	spec := func(o map[string]any) map[string]any { return o["spec"].(map[string]any) }
	m, err := New(testPolicies(t))
	require.NoError(t, err)
	runtimes := make([]map[string]any, len(rs))
	for i, r := range rs {
		runtimes[i] = spec(r)
	}
	want := make([][]answer.Verdict, len(ms))
	for i, mo := range ms {
		for _, r := range runtimes {
			v, err := m.Match(spec(mo), r)
			require.NoError(t, err)
			want[i] = append(want[i], v)
		}
	}
	for _, bound := range []int{2, 1 << 13} {
		saved := maxOutcomes
		maxOutcomes = bound
		prepared, err := m.Prepare(runtimes)
		require.NoError(t, err)
		for i, mo := range ms {
			got, err := m.MatchModel(spec(mo), prepared)
			require.NoError(t, err)
			require.Equal(t, want[i], got, "memo bound %d, model %d", bound, i)
		}
		maxOutcomes = saved
	}
}

// testPolicies are the embedded policies.
func testPolicies(t testing.TB) *policyset.Set {
	t.Helper()
	set, err := policyset.Embedded()
	require.NoError(t, err)
	return set
}

// source is f's text, with its release's changes applied.
func source(t testing.TB, f policyset.File) string {
	t.Helper()
	text, err := f.Source()
	require.NoError(t, err)
	return text
}

// The architecture and quantization checks, and the format and framework
// version checks, are written twice in the entry policy, so that each reads
// one field of the entry; they may differ only in the field and the word
// they name.
func TestTwinVariablesShareTheirBody(t *testing.T) {
	var text string
	for _, f := range testPolicies(t).Sources(policyset.CEL, false) {
		if strings.HasSuffix(f.Path, "match.yaml") {
			text = source(t, f)
		}
	}
	require.NotEmpty(t, text)
	var doc policyDoc
	dec := yaml.NewDecoder(strings.NewReader(text))
	for doc.Metadata.Name != "entry" {
		require.NoError(t, dec.Decode(&doc))
	}
	expr := map[string]string{}
	for _, v := range doc.Spec.Variables {
		expr[v.Name] = v.Expression
	}
	for _, twins := range []struct {
		first, second string
		names         *strings.Replacer // the first's field and word to the second's
	}{
		{"formatVersionDifference", "frameworkVersionDifference",
			strings.NewReplacer("modelFormat", "modelFramework", "format version", "framework version")},
		{"architectureDifference", "quantizationDifference",
			strings.NewReplacer("modelArchitecture", "quantization", "architecture", "quantization")},
	} {
		require.NotEmpty(t, expr[twins.first], twins.first)
		require.Equal(t, twins.names.Replace(expr[twins.first]), expr[twins.second], "%s and %s", twins.first, twins.second)
	}
}
