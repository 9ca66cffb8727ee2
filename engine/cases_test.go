package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"testing"

	"github.com/ome-policy/evaluator/policies/policyset"

	"github.com/open-policy-agent/opa/v1/ast"
	opa "github.com/open-policy-agent/opa/v1/rego"
	"github.com/stretchr/testify/require"

	"github.com/ome-policy/evaluator/cases"
	"github.com/ome-policy/evaluator/engine/answer"
	"github.com/ome-policy/evaluator/engine/rego"
	"github.com/ome-policy/evaluator/objects"
)

// Every match case of testdata/cases, on every engine and on the plain-Go
// reference matcher, for each OME release it holds for: the expected
// verdict and, where given, OME's reason.
func TestCaseFilesOnEveryEngine(t *testing.T) {
	forEachRelease(t, testCaseFilesOnEveryEngine)
}

func testCaseFilesOnEveryEngine(t *testing.T, set *policyset.Set) {
	files, err := filepath.Glob("../testdata/cases/*.yaml")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	matchers := releaseMatchers(t, set)
	selectors := map[string]Selector{}
	for _, name := range Names {
		s, err := NewSelector(name, set)
		require.NoError(t, err)
		selectors[name] = s
	}
	total, selections := 0, 0
	for _, f := range files {
		list, err := cases.ReadCases(f)
		require.NoError(t, err)
		for _, c := range list {
			if !c.HoldsFor(set.Release) {
				continue
			}
			if c.InferenceService != nil {
				selections++
				cluster, _ := objects.Deduplicate(c.Objects)
				for name, s := range selectors {
					d, err := s.Select(c.InferenceService, cluster)
					require.NoError(t, err, "%s: %s [%s]", f, c.Name, name)
					require.Equal(t, *c.Expect.Admitted, d.Admitted, "%s: %s [%s]", f, c.Name, name)
					var selected, message *string
					if d.Selected != nil {
						selected = &d.Selected.Name
					}
					if d.Message != "" {
						message = &d.Message
					}
					require.Equal(t, c.Expect.Runtime, selected, "%s: %s [%s]", f, c.Name, name)
					require.Equal(t, c.Expect.Message, message, "%s: %s [%s]", f, c.Name, name)
				}
				continue
			}
			if c.Model == nil {
				continue
			}
			total++
			for name, m := range matchers {
				v, err := m.Match(c.Model.Spec(), c.Runtime.Spec())
				require.NoError(t, err, "%s: %s [%s]", f, c.Name, name)
				require.Equal(t, *c.Expect.Compatible, v.Compatible, "%s: %s [%s]: %q", f, c.Name, name, v.Reason)
				if c.Expect.Reason != nil {
					require.Equal(t, *c.Expect.Reason, v.Reason, "%s: %s [%s]", f, c.Name, name)
				}
				if v.Compatible {
					require.Empty(t, v.Reason)
				}
			}
		}
	}
	if set.Release == set.Newest() {
		require.Greater(t, total, 500, "the bundled case files shrank")
		require.Greater(t, selections, 90, "the bundled selection cases shrank")
	}
	require.Greater(t, total, 40, "the bundled case files shrank")
	require.Greater(t, selections, 40, "the bundled selection cases shrank")
}

// Every case of policies/cel/explain_test.yaml gives the same checks on the
// Rego rules.
func TestExplainCELCasesOnRego(t *testing.T) { forEachRelease(t, testExplainCELCasesOnRego) }

func testExplainCELCasesOnRego(t *testing.T, set *policyset.Set) {
	list, err := cases.ReadCases("../policies/cel/explain_test.yaml")
	require.NoError(t, err)
	pq, err := rego.Queries(set, []string{"ome.explain", "ome.match"},
		"data.ome.explain.entry_checks(input.model, input.entry)", "data.ome.explain.result.runtime")
	require.NoError(t, err)
	entry, runtime := pq[0], pq[1]
	n := 0
	for _, c := range list {
		if !c.HoldsFor(set.Release) {
			continue
		}
		input, err := ast.InterfaceToValue(c.Input)
		require.NoError(t, err)
		var want any
		var got any
		switch c.CELPolicy {
		case "explain-entry":
			want = c.Expect.Variables["checks"]
			rs, err := entry.Eval(context.Background(), opa.EvalParsedInput(input))
			require.NoError(t, err, c.Name)
			require.Len(t, rs, 1, c.Name)
			got = rs[0].Expressions[0].Value
		case "explain-runtime":
			want = c.Expect.Variables
			rs, err := runtime.Eval(context.Background(), opa.EvalParsedInput(input))
			require.NoError(t, err, c.Name)
			require.Len(t, rs, 1, c.Name)
			got = rs[0].Expressions[0].Value
		default:
			continue
		}
		n++
		require.Equal(t, cases.Int64s(want), answer.NumbersToInt(got), c.Name)
	}
	require.GreaterOrEqual(t, n, 4)
}

// A per-object finding only needs the object: every CEL policy case of
// lint-object and lint-set in policies/cel/lint_test.yaml gives the same
// findings on the Rego rules, so the two engines are held to one set of
// expectations.
func TestLintCELCasesOnRego(t *testing.T) { forEachRelease(t, testLintCELCasesOnRego) }

func testLintCELCasesOnRego(t *testing.T, set *policyset.Set) {
	list, err := cases.ReadCases("../policies/cel/lint_test.yaml")
	require.NoError(t, err)
	pq, err := rego.Queries(set, []string{"ome.lint", "ome.match"}, rego.LintQuery, rego.LintSetQuery)
	require.NoError(t, err)
	queries := map[string]opa.PreparedEvalQuery{"lint-object": pq[0], "lint-set": pq[1]}
	n := 0
	for _, c := range list {
		q, ok := queries[c.CELPolicy]
		if !ok || !c.HoldsFor(set.Release) {
			continue
		}
		n++
		want, ok := c.Expect.Variables["findings"]
		require.True(t, ok, "case %q expects its findings", c.Name)
		input, err := ast.InterfaceToValue(c.Input)
		require.NoError(t, err)
		rs, err := q.Eval(context.Background(), opa.EvalParsedInput(input))
		require.NoError(t, err, c.Name)
		require.Len(t, rs, 1, c.Name)
		got := answer.NumbersToInt(rs[0].Expressions[0].Value)
		require.Equal(t, sortedFindings(cases.Int64s(want)), sortedFindings(got), c.Name)
	}
	require.Greater(t, n, 20)
}

func sortedFindings(v any) []string {
	var out []string
	for _, f := range v.([]any) {
		out = append(out, fmt.Sprint(f))
	}
	sort.Strings(out)
	return out
}
