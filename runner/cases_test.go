package runner

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ome-policy/evaluator/cases"
	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/policies/policyset"
)

func embeddedPolicies(t testing.TB) *policyset.Set {
	t.Helper()
	set, err := policyset.Embedded()
	require.NoError(t, err)
	return set
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
	all := embeddedPolicies(t)
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
		{"held on the release run", engine.Both, twoNumbers, []string{"v1.2.2"}, []run{{"v1.2.2", true, ""}}},
		{"another release's expectation", engine.Both, twoNumbers, []string{"v0.1.4"},
			[]run{{"v0.1.4", false, "cel and rego agree; the expectation differs, and " + hint}}},
		{"one engine", engine.CEL, twoNumbers, []string{"v0.1.4"}, []run{{"v0.1.4", false, "the expectation " + hint}}},
		{"every release", engine.Rego, twoNumbers, []string{"v1.2.2", "v0.1.5", "v0.1.4"},
			[]run{{"v1.2.2", true, ""}, {"v0.1.5", true, ""}, {"v0.1.4", false, "the expectation " + hint}}},
		{"names its releases", engine.Both, "  omeVersions: [v0.1.4]" + twoNumbers, []string{"v0.1.4"},
			[]run{{"v0.1.4", false, "cel and rego agree; the expectation differs"}}},
		{"holds for none run", engine.Both, "  omeVersions: [v1.2.2]" + twoNumbers, []string{"v0.1.4"}, nil},
		{"wrong on every release", engine.Both, noFramework, []string{"v1.2.2"},
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
	v    engine.Verdict
	err  error
}

func (m fixedMatcher) Name() string { return m.name }
func (m fixedMatcher) Match(_, _ map[string]any) (engine.Verdict, error) {
	return m.v, m.err
}

// Each engine's run of a match case says whether that engine gave what the
// case expects and what it gave; the case passes exactly when each run does.
func TestMatchCaseRuns(t *testing.T) {
	yes := engine.Verdict{Compatible: true}
	no := func(reason string) engine.Verdict { return engine.Verdict{Reason: reason} }
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
			[]run{{engine.CEL, true, ""}, {engine.Rego, true, ""}}, true, ""},
		{"rego wrong", "{compatible: true}", fixedMatcher{v: yes}, fixedMatcher{v: no("x")},
			[]run{{engine.CEL, true, ""}, {engine.Rego, false, "x"}}, false, `engines disagree: cel says compatible, entries []; rego says not compatible ("x"), entries []`},
		{"both wrong alike", "{compatible: true}", fixedMatcher{v: no("x")}, fixedMatcher{v: no("x")},
			[]run{{engine.CEL, false, "x"}, {engine.Rego, false, "x"}}, false, "cel and rego agree; the expectation differs"},
		{"a reason the case leaves out", "{compatible: false}", fixedMatcher{v: no("x")}, fixedMatcher{v: no("y")},
			[]run{{engine.CEL, false, "x"}, {engine.Rego, false, "y"}}, false, `engines disagree: cel says not compatible ("x"), entries []; rego says not compatible ("y"), entries []`},
		{"cel fails to run", "{compatible: true}", fixedMatcher{err: fmt.Errorf("boom")}, fixedMatcher{v: yes},
			[]run{{engine.CEL, false, "-"}, {engine.Rego, true, ""}}, false, "cel: boom"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			list, err := cases.ParseCases("c.yaml", []byte("cases:\n- name: c\n  model: {spec: {}}\n  runtime: {spec: {}}\n  expect: "+tc.expect+"\n"))
			require.NoError(t, err)
			tc.cel.name, tc.rego.name = engine.CEL, engine.Rego
			o := runMatchCase([]engine.Matcher{tc.cel, tc.rego}, &list[0])
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
