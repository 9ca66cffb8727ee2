package cases

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/ome-policy/evaluator/engine"
)

// MatchExpectation is what a match case expects, and what it got.
type MatchExpectation struct {
	Compatible bool    `json:"compatible" yaml:"compatible"`
	Reason     *string `json:"reason,omitempty" yaml:"reason,omitempty"`
}

// CaseOutcome is the result of running one case.
type CaseOutcome struct {
	Passed   bool
	Expected any
	Got      any
	Detail   string
}

// RunMatchCase runs a match case on each matcher (one per engine: with
// "both", the CEL and the Rego matcher separately). It passes when every
// engine gives the expected verdict; engines that disagree are named.
func RunMatchCase(matchers []engine.Matcher, c *Case) CaseOutcome {
	want := MatchExpectation{Compatible: *c.Expect.Compatible, Reason: c.Expect.Reason}
	out := CaseOutcome{Expected: want, Passed: true}
	var first *engine.Verdict
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
			out.Detail = fmt.Sprintf("engines disagree: %s says %s; %s says %s", firstName, engine.Describe(*first), m.Name(), engine.Describe(v))
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
