package runner

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/ome-policy/evaluator/cases"
	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/policies/policyset"
)

// Running the cases of case files (package cases reads them): each case on
// the engines of one engine name and on OME releases, reporting its outcome:
// the engines that disagree, or, when they agree on another result than the
// expected one, the releases where the expectation holds.

// MatchExpectation is what a match case expects, and what it got.
type MatchExpectation struct {
	Compatible bool    `json:"compatible" yaml:"compatible"`
	Reason     *string `json:"reason,omitempty" yaml:"reason,omitempty"`
}

// SelectionExpectation is what a selection case expects, and what it got:
// the webhook's verdict, the runtime it selected (only when it ran
// selection and chose one) and its rejection message.
type SelectionExpectation struct {
	Admitted bool    `json:"admitted" yaml:"admitted"`
	Runtime  *string `json:"runtime,omitempty" yaml:"runtime,omitempty"`
	Message  *string `json:"message,omitempty" yaml:"message,omitempty"`
}

// PolicyExpectation is what a CEL policy case expects, and what it got.
type PolicyExpectation struct {
	Failures  []string       `json:"failures" yaml:"failures"`
	Variables map[string]any `json:"variables,omitempty" yaml:"variables,omitempty"`
}

// CaseOutcome is the result of running one case.
type CaseOutcome struct {
	// Engine is the engine name the case ran on: the runner's, or cel for
	// a CEL policy case, which only the CEL engine runs.
	Engine   string
	Passed   bool
	Expected any
	Got      any
	Detail   string
	// Mismatch is a failure where every engine gave the same result and
	// not the expected one: the expectation differs, not the engines.
	Mismatch bool
	// Runs are the case on each engine apart (CEL and Rego for "both"),
	// in order: what each gave and whether it is what the case expects.
	// The case passes exactly when each of its runs does.
	Runs []engine.EngineRun
}

// CaseRunner runs cases on the engines of one engine name: with "both", on
// the CEL and the Rego engine each, and a case passes only when both give
// what it expects.
type CaseRunner struct {
	name      string
	matchers  []engine.Matcher
	selectors []engine.Selector
	tester    *engine.PolicyTester
}

// NewCaseRunner compiles the policies of set for the named engine, and the
// CEL policies for CEL policy cases.
func NewCaseRunner(name string, set *policyset.Set) (*CaseRunner, error) {
	r := &CaseRunner{name: name}
	var err error
	if r.matchers, err = engine.Matchers(name, set); err != nil {
		return nil, err
	}
	if r.tester, err = engine.NewPolicyTester(set); err != nil {
		return nil, err
	}
	if r.selectors, err = engine.Selectors(name, set); err != nil {
		return nil, err
	}
	return r, nil
}

// Run runs one case: a CEL policy case, a selection case or a match case.
func (r *CaseRunner) Run(c *cases.Case) CaseOutcome {
	switch {
	case c.CELPolicy != "":
		o := runPolicyCase(r.tester, c)
		o.Engine = engine.CEL
		o.Runs = []engine.EngineRun{{Engine: engine.CEL, Passed: o.Passed, Got: o.Got, Err: o.Detail}}
		return o
	case c.InferenceService != nil:
		o := runSelectionCase(r.selectors, c)
		o.Engine = r.name
		return o
	}
	o := runMatchCase(r.matchers, c)
	o.Engine = r.name
	return o
}

// runMatchCase runs a match case on each matcher (one per engine: with
// "both", the CEL and the Rego matcher separately). It passes when every
// engine gives the expected verdict; engines that disagree are named.
func runMatchCase(matchers []engine.Matcher, c *cases.Case) CaseOutcome {
	want := MatchExpectation{Compatible: *c.Expect.Compatible, Reason: c.Expect.Reason}
	out := CaseOutcome{Expected: want, Passed: true}
	var first *engine.Verdict
	var firstName string
	var wrong, names []string // engines that gave an unexpected verdict; every engine
	var failed string         // the first engine's error
	for _, m := range matchers {
		names = append(names, m.Name())
		v, err := m.Match(c.Model.Spec(), c.Runtime.Spec())
		if err != nil {
			out.Runs = append(out.Runs, engine.EngineRun{Engine: m.Name(), Err: err.Error()})
			if failed == "" {
				failed = fmt.Sprintf("%s: %v", m.Name(), err)
			}
			continue
		}
		reason := v.Reason
		got := MatchExpectation{Compatible: v.Compatible, Reason: &reason}
		passed := v.Compatible == want.Compatible && (want.Reason == nil || *want.Reason == v.Reason)
		out.Runs = append(out.Runs, engine.EngineRun{Engine: m.Name(), Passed: passed, Got: got})
		if first == nil {
			first, firstName = &v, m.Name()
			out.Got = got
		} else if !reflect.DeepEqual(*first, v) {
			out.Passed = false
			out.Detail = fmt.Sprintf("engines disagree: %s says %s; %s says %s", firstName, engine.Describe(*first), m.Name(), engine.Describe(v))
		}
		if !passed {
			out.Passed = false
			wrong = append(wrong, m.Name())
		}
	}
	if failed != "" {
		return failedOn(out, failed)
	}
	if out.Detail == "" && len(wrong) > 0 {
		mismatch(&out, names)
	}
	return disagreed(out)
}

// disagreed fails each engine's run of a case that failed though each
// engine gave what it expects: the engines disagree on what it leaves out
// (a reason it does not state). So a case passes exactly when each of its
// runs does.
func disagreed(out CaseOutcome) CaseOutcome {
	if out.Passed || slices.ContainsFunc(out.Runs, func(r engine.EngineRun) bool { return !r.Passed }) {
		return out
	}
	for i := range out.Runs {
		out.Runs[i].Passed = false
	}
	return out
}

// failedOn is a case that an engine could not run: it fails, with that
// engine's error as its detail; what it got is the first engine's result,
// none when that engine is the one that failed. Each engine's run keeps
// its own result.
func failedOn(out CaseOutcome, err string) CaseOutcome {
	out.Passed, out.Detail = false, err
	if out.Runs[0].Err != "" {
		out.Got = nil
	}
	return out
}

// mismatch marks a failure where the engines gave what first gave, which
// is not what the case expects: with several engines, the detail says that
// they agree, so that it is the expectation that differs.
func mismatch(out *CaseOutcome, engines []string) {
	out.Mismatch = true
	if len(engines) > 1 {
		out.Detail = joinNames(engines) + " agree; the expectation differs"
	}
}

// joinNames writes names as "a", "a and b", "a, b and c".
func joinNames(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// ExpectationOf turns a decision into what a selection case compares.
func ExpectationOf(d engine.Decision) SelectionExpectation {
	got := SelectionExpectation{Admitted: d.Admitted}
	if d.Selected != nil {
		name := d.Selected.Name
		got.Runtime = &name
	}
	if d.Message != "" {
		msg := d.Message
		got.Message = &msg
	}
	return got
}

// runSelectionCase runs a selection case on each selector. It passes when
// every engine gives the expected admitted, runtime and message (an absent
// runtime or message expects none).
func runSelectionCase(selectors []engine.Selector, c *cases.Case) CaseOutcome {
	want := SelectionExpectation{Admitted: *c.Expect.Admitted, Runtime: c.Expect.Runtime, Message: c.Expect.Message}
	out := CaseOutcome{Expected: want, Passed: true}
	cluster, _ := objects.Deduplicate(c.Objects)
	var first *engine.Decision
	var firstName string
	var wrong, names []string
	var failed string // the first engine's error
	for _, s := range selectors {
		names = append(names, s.Name())
		d, err := s.Select(c.InferenceService, cluster)
		if err != nil {
			out.Runs = append(out.Runs, engine.EngineRun{Engine: s.Name(), Err: err.Error()})
			if failed == "" {
				failed = fmt.Sprintf("%s: %v", s.Name(), err)
			}
			continue
		}
		got := ExpectationOf(d)
		passed := reflect.DeepEqual(want, got)
		out.Runs = append(out.Runs, engine.EngineRun{Engine: s.Name(), Passed: passed, Got: got})
		if first == nil {
			first, firstName = &d, s.Name()
			out.Got = got
		} else if !reflect.DeepEqual(*first, d) {
			out.Passed = false
			out.Detail = fmt.Sprintf("engines disagree: %s says %+v; %s says %+v", firstName, *first, s.Name(), d)
		}
		if !passed {
			out.Passed = false
			wrong = append(wrong, s.Name())
		}
	}
	if failed != "" {
		return failedOn(out, failed)
	}
	if out.Detail == "" && len(wrong) > 0 {
		mismatch(&out, names)
	}
	return disagreed(out)
}

// runPolicyCase runs a CEL policy case: it passes when the policy's failing
// validations give exactly the expected messages, in order, and each
// expected variable has the expected value.
func runPolicyCase(t *engine.PolicyTester, c *cases.Case) CaseOutcome {
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
	if len(c.Expect.Variables) > 0 && !reflect.DeepEqual(cases.Int64s(c.Expect.Variables), values) {
		out.Mismatch = true
		return out
	}
	out.Passed = reflect.DeepEqual(want.Failures, failures)
	out.Mismatch = !out.Passed
	return out
}

// ReleaseOutcome is the outcome of a case on one OME release.
type ReleaseOutcome struct {
	Release string
	CaseOutcome
}

// ReleaseRuns runs cases on the OME releases of a set, on the engines of
// one engine name, compiling each release's policies once, when a case
// first needs them.
type ReleaseRuns struct {
	name    string
	set     *policyset.Set
	runners map[string]*CaseRunner
}

// NewReleaseRuns runs cases on the releases of set, on the named engine.
func NewReleaseRuns(name string, set *policyset.Set) *ReleaseRuns {
	return &ReleaseRuns{name: name, set: set, runners: map[string]*CaseRunner{}}
}

func (rr *ReleaseRuns) runner(release string) (*CaseRunner, error) {
	if r := rr.runners[release]; r != nil {
		return r, nil
	}
	rs, err := rr.set.ForRelease(release)
	if err != nil {
		return nil, err
	}
	r, err := NewCaseRunner(rr.name, rs)
	if err != nil {
		return nil, err
	}
	rr.runners[release] = r
	return r, nil
}

// Run runs a case on each of releases that it holds for, in that order;
// none when it holds for none of them. A case that names no release holds
// for every one: where it fails because the engines agree on another
// result than the expected one, it is run on the set's other releases too,
// and the failure's detail names those on which the expectation holds, so
// that a case written for one release can say so.
func (rr *ReleaseRuns) Run(c *cases.Case, releases []string) ([]ReleaseOutcome, error) {
	var out []ReleaseOutcome
	mismatched := false
	for _, r := range releases {
		if !c.HoldsFor(r) {
			continue
		}
		run, err := rr.runner(r)
		if err != nil {
			return nil, err
		}
		o := ReleaseOutcome{Release: r, CaseOutcome: run.Run(c)}
		mismatched = mismatched || o.Mismatch
		out = append(out, o)
	}
	if !mismatched || c.OMEVersions != nil {
		return out, nil
	}
	var holds []string
	for _, r := range rr.set.Releases() {
		i := slices.IndexFunc(out, func(o ReleaseOutcome) bool { return o.Release == r })
		passed := i >= 0 && out[i].Passed
		if i < 0 {
			run, err := rr.runner(r)
			if err != nil {
				return nil, err
			}
			passed = run.Run(c).Passed
		}
		if passed {
			holds = append(holds, r)
		}
	}
	if len(holds) == 0 {
		return out, nil
	}
	hint := fmt.Sprintf("holds on %s; add omeVersions: [%s] to this case if it is release-specific",
		joinNames(holds), strings.Join(holds, ", "))
	for i := range out {
		if o := &out[i]; o.Mismatch {
			if o.Detail == "" {
				o.Detail = "the expectation " + hint
			} else {
				o.Detail += ", and " + hint
			}
		}
	}
	return out, nil
}
