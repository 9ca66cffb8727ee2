package engine

import (
	"context"
	"fmt"
	"github.com/ome-policy/evaluator/engine/policyset"
	"path/filepath"
	"sort"
	"testing"

	"github.com/ome-policy/evaluator/cases"
	"github.com/ome-policy/evaluator/engine/answer"
	"github.com/ome-policy/evaluator/engine/rego"
	"github.com/ome-policy/evaluator/objects"
	"github.com/open-policy-agent/opa/v1/ast"
	opa "github.com/open-policy-agent/opa/v1/rego"
	"github.com/stretchr/testify/require"
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
					want := SelectionExpectation{Admitted: *c.Expect.Admitted, Runtime: c.Expect.Runtime, Message: c.Expect.Message}
					require.Equal(t, want, ExpectationOf(d), "%s: %s [%s]", f, c.Name, name)
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
		require.Equal(t, normaliseNumbers(want), answer.NumbersToInt(got), c.Name)
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
		require.Equal(t, sortedFindings(normaliseNumbers(want)), sortedFindings(got), c.Name)
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

// A case runs on the releases asked for that it holds for; where the
// engines agree on another result than the expected one, the detail says
// so, and, for a case that names no release, where the expectation holds.
func TestReleaseRuns(t *testing.T) {
	const twoNumbers = `
  model: {spec: {modelFormat: {name: safetensors, version: "1.0"}, modelFramework: {name: transformers, version: "4.51"}}}
  runtime: {spec: {supportedModelFormats: [{modelFormat: {name: safetensors, version: "1.0"}, modelFramework: {name: transformers, version: "4.51"}, autoSelect: true}]}}
  expect: {compatible: true}
`
	const noFramework = `
  model: {spec: {modelFormat: {name: safetensors}}}
  runtime: {spec: {supportedModelFormats: [{modelFormat: {name: safetensors}, modelFramework: {name: transformers}}]}}
  expect: {compatible: true}
`
	const hint = "holds on v1.2.2 and v0.1.5; add omeVersions: [v1.2.2, v0.1.5] to this case if it is release-specific"
	all := testPolicies(t)
	type run struct {
		release string
		passed  bool
		detail  string
	}
	for _, tc := range []struct {
		name, engine, caseText string
		releases               []string
		want                   []run
	}{
		{"held on the release run", Both, twoNumbers, []string{"v1.2.2"}, []run{{"v1.2.2", true, ""}}},
		{"another release's expectation", Both, twoNumbers, []string{"v0.1.4"},
			[]run{{"v0.1.4", false, "cel and rego agree; the expectation differs, and " + hint}}},
		{"one engine", CEL, twoNumbers, []string{"v0.1.4"}, []run{{"v0.1.4", false, "the expectation " + hint}}},
		{"every release", Rego, twoNumbers, []string{"v1.2.2", "v0.1.5", "v0.1.4"},
			[]run{{"v1.2.2", true, ""}, {"v0.1.5", true, ""}, {"v0.1.4", false, "the expectation " + hint}}},
		{"names its releases", Both, "  omeVersions: [v0.1.4]" + twoNumbers, []string{"v0.1.4"},
			[]run{{"v0.1.4", false, "cel and rego agree; the expectation differs"}}},
		{"holds for none run", Both, "  omeVersions: [v1.2.2]" + twoNumbers, []string{"v0.1.4"}, nil},
		{"wrong on every release", Both, noFramework, []string{"v1.2.2"},
			[]run{{"v1.2.2", false, "cel and rego agree; the expectation differs"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			list, err := cases.ParseCases("c.yaml", []byte("cases:\n- name: c\n"+tc.caseText))
			require.NoError(t, err)
			outcomes, err := NewReleaseRuns(tc.engine, all).Run(&list[0], tc.releases)
			require.NoError(t, err)
			var got []run
			for _, o := range outcomes {
				require.Equal(t, tc.engine, o.Engine)
				require.Equal(t, !o.Passed, o.Mismatch, "every failure here is the expectation's")
				got = append(got, run{o.Release, o.Passed, o.Detail})
			}
			require.Equal(t, tc.want, got)
		})
	}
}

// fixedMatcher gives one verdict, or an error, whatever it is asked.
type fixedMatcher struct {
	name string
	v    Verdict
	err  error
}

func (m fixedMatcher) Name() string { return m.name }
func (m fixedMatcher) Match(_, _ map[string]any) (Verdict, error) {
	return m.v, m.err
}

// Each engine's run of a match case says whether that engine gave what the
// case expects and what it gave; the case passes exactly when each run does.
func TestMatchCaseRuns(t *testing.T) {
	yes := Verdict{Compatible: true}
	no := func(reason string) Verdict { return Verdict{Reason: reason} }
	type run struct {
		engine string
		passed bool
		reason string // what it gave; "-" for its error
	}
	for _, tc := range []struct {
		name    string
		expect  string
		cel     fixedMatcher
		rego    fixedMatcher
		want    []run
		passed  bool
		details string
	}{
		{"both right", "{compatible: true}", fixedMatcher{v: yes}, fixedMatcher{v: yes},
			[]run{{CEL, true, ""}, {Rego, true, ""}}, true, ""},
		{"rego wrong", "{compatible: true}", fixedMatcher{v: yes}, fixedMatcher{v: no("x")},
			[]run{{CEL, true, ""}, {Rego, false, "x"}}, false, `engines disagree: cel says compatible, entries []; rego says not compatible ("x"), entries []`},
		{"both wrong alike", "{compatible: true}", fixedMatcher{v: no("x")}, fixedMatcher{v: no("x")},
			[]run{{CEL, false, "x"}, {Rego, false, "x"}}, false, "cel and rego agree; the expectation differs"},
		{"a reason the case leaves out", "{compatible: false}", fixedMatcher{v: no("x")}, fixedMatcher{v: no("y")},
			[]run{{CEL, false, "x"}, {Rego, false, "y"}}, false, `engines disagree: cel says not compatible ("x"), entries []; rego says not compatible ("y"), entries []`},
		{"cel fails to run", "{compatible: true}", fixedMatcher{err: fmt.Errorf("boom")}, fixedMatcher{v: yes},
			[]run{{CEL, false, "-"}, {Rego, true, ""}}, false, "cel: boom"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			list, err := cases.ParseCases("c.yaml", []byte("cases:\n- name: c\n  model: {spec: {}}\n  runtime: {spec: {}}\n  expect: "+tc.expect+"\n"))
			require.NoError(t, err)
			tc.cel.name, tc.rego.name = CEL, Rego
			o := runMatchCase([]Matcher{tc.cel, tc.rego}, &list[0])
			require.Equal(t, tc.passed, o.Passed)
			require.Equal(t, tc.details, o.Detail)
			var got []run
			for _, r := range o.Runs {
				reason := "-"
				if r.Err == "" {
					reason = *r.Got.(MatchExpectation).Reason
				}
				got = append(got, run{r.Engine, r.Passed, reason})
			}
			require.Equal(t, tc.want, got)
		})
	}
}
