package engine

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/ome-policy/evaluator/cases"
	"github.com/ome-policy/evaluator/engine/cel"
	"github.com/ome-policy/evaluator/engine/policyset"
	"github.com/ome-policy/evaluator/objects"
)

// Running the cases of case files (package cases reads them): each case on
// the engines of one engine name, reporting its outcome and the engines
// that got it wrong or disagree.

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
}

// CaseRunner runs cases on the engines of one engine name: with "both", on
// the CEL and the Rego engine each, and a case passes only when both give
// what it expects.
type CaseRunner struct {
	name      string
	matchers  []Matcher
	selectors []Selector
	tester    *cel.PolicyTester
}

// NewCaseRunner compiles the policies of set for the named engine, and the
// CEL policies for CEL policy cases.
func NewCaseRunner(name string, set *policyset.Set) (*CaseRunner, error) {
	r := &CaseRunner{name: name}
	var err error
	if r.matchers, err = Matchers(name, set); err != nil {
		return nil, err
	}
	if r.tester, err = cel.NewPolicyTester(set); err != nil {
		return nil, err
	}
	if r.selectors, err = Selectors(name, set); err != nil {
		return nil, err
	}
	return r, nil
}

// Run runs one case: a CEL policy case, a selection case or a match case.
func (r *CaseRunner) Run(c *cases.Case) CaseOutcome {
	switch {
	case c.CELPolicy != "":
		o := runPolicyCase(r.tester, c)
		o.Engine = CEL
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
func runMatchCase(matchers []Matcher, c *cases.Case) CaseOutcome {
	want := MatchExpectation{Compatible: *c.Expect.Compatible, Reason: c.Expect.Reason}
	out := CaseOutcome{Expected: want, Passed: true}
	var first *Verdict
	var firstName string
	var wrong []string
	for _, m := range matchers {
		v, err := m.Match(c.Model.Spec(), c.Runtime.Spec())
		if err != nil {
			out.Passed = false
			out.Detail = fmt.Sprintf("%s: %v", m.Name(), err)
			return out
		}
		if first == nil {
			first, firstName = &v, m.Name()
			reason := v.Reason
			out.Got = MatchExpectation{Compatible: v.Compatible, Reason: &reason}
		} else if !reflect.DeepEqual(*first, v) {
			out.Passed = false
			out.Detail = fmt.Sprintf("engines disagree: %s says %s; %s says %s", firstName, Describe(*first), m.Name(), Describe(v))
		}
		if v.Compatible != want.Compatible || (want.Reason != nil && *want.Reason != v.Reason) {
			out.Passed = false
			wrong = append(wrong, m.Name())
		}
	}
	if len(matchers) > 1 && out.Detail == "" && len(wrong) > 0 {
		out.Detail = wrongEngines(wrong, len(matchers))
	}
	return out
}

// wrongEngines says which engines gave an unexpected result.
func wrongEngines(wrong []string, of int) string {
	if len(wrong) == of {
		return "every engine got it wrong"
	}
	return fmt.Sprintf("engine %s got it wrong", strings.Join(wrong, ", "))
}

// ExpectationOf turns a decision into what a selection case compares.
func ExpectationOf(d Decision) SelectionExpectation {
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
func runSelectionCase(selectors []Selector, c *cases.Case) CaseOutcome {
	want := SelectionExpectation{Admitted: *c.Expect.Admitted, Runtime: c.Expect.Runtime, Message: c.Expect.Message}
	out := CaseOutcome{Expected: want, Passed: true}
	cluster, _ := objects.Deduplicate(c.Objects)
	var first *Decision
	var firstName string
	var wrong []string
	for _, s := range selectors {
		d, err := s.Select(c.InferenceService, cluster)
		if err != nil {
			out.Passed = false
			out.Detail = fmt.Sprintf("%s: %v", s.Name(), err)
			return out
		}
		got := ExpectationOf(d)
		if first == nil {
			first, firstName = &d, s.Name()
			out.Got = got
		} else if !reflect.DeepEqual(*first, d) {
			out.Passed = false
			out.Detail = fmt.Sprintf("engines disagree: %s says %+v; %s says %+v", firstName, *first, s.Name(), d)
		}
		if !reflect.DeepEqual(want, got) {
			out.Passed = false
			wrong = append(wrong, s.Name())
		}
	}
	if len(selectors) > 1 && out.Detail == "" && len(wrong) > 0 {
		out.Detail = wrongEngines(wrong, len(selectors))
	}
	return out
}

// runPolicyCase runs a CEL policy case: it passes when the policy's failing
// validations give exactly the expected messages, in order, and each
// expected variable has the expected value.
func runPolicyCase(t *cel.PolicyTester, c *cases.Case) CaseOutcome {
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
