package cases

import (
	"fmt"
	"reflect"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/objects"
)

// SelectionExpectation is what a selection case expects, and what it got:
// the webhook's verdict, the runtime it selected (only when it ran
// selection and chose one) and its rejection message.
type SelectionExpectation struct {
	Admitted bool    `json:"admitted" yaml:"admitted"`
	Runtime  *string `json:"runtime,omitempty" yaml:"runtime,omitempty"`
	Message  *string `json:"message,omitempty" yaml:"message,omitempty"`
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

// RunSelectionCase runs a selection case on each selector. It passes when
// every engine gives the expected admitted, runtime and message (an absent
// runtime or message expects none).
func RunSelectionCase(selectors []engine.Selector, c *Case) CaseOutcome {
	want := SelectionExpectation{Admitted: *c.Expect.Admitted, Runtime: c.Expect.Runtime, Message: c.Expect.Message}
	out := CaseOutcome{Expected: want, Passed: true}
	cluster, _ := objects.Deduplicate(c.Objects)
	var first *engine.Decision
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
