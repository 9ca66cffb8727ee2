package engine

import (
	"fmt"
	"reflect"
)

// SelectionExpectation is what a selection case expects, and what it got:
// the webhook's verdict, the runtime it selected (only when it ran
// selection and chose one) and its rejection message.
type SelectionExpectation struct {
	Admitted bool    `json:"admitted" yaml:"admitted"`
	Runtime  *string `json:"runtime,omitempty" yaml:"runtime,omitempty"`
	Message  *string `json:"message,omitempty" yaml:"message,omitempty"`
}

// Expectation turns a decision into what a selection case compares.
func (d Decision) Expectation() SelectionExpectation {
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

// Selectors returns the selectors a case runs on for the named engine: one,
// or for "both" the CEL and the Rego selector, each checked on its own.
func Selectors(name string, set *PolicySet) ([]Selector, error) {
	if name != Both {
		s, err := NewSelector(name, set)
		if err != nil {
			return nil, err
		}
		return []Selector{s}, nil
	}
	c, err := NewCELSelector(set)
	if err != nil {
		return nil, err
	}
	r, err := NewRegoSelector(set)
	if err != nil {
		return nil, err
	}
	return []Selector{c, r}, nil
}

// RunSelectionCase runs a selection case on each selector. It passes when
// every engine gives the expected admitted, runtime and message (an absent
// runtime or message expects none).
func RunSelectionCase(selectors []Selector, c *Case) CaseOutcome {
	want := SelectionExpectation{Admitted: *c.Expect.Admitted, Runtime: c.Expect.Runtime, Message: c.Expect.Message}
	out := CaseOutcome{Expected: want, Passed: true}
	cluster, _ := Deduplicate(c.Objects)
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
		got := d.Expectation()
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

// Deduplicate keeps one object per kind, namespace and name: the later
// one, as applying the objects in order would leave it. It returns the
// objects in input order and the ones that were replaced.
func Deduplicate(objs []*Object) (kept, replaced []*Object) {
	last := map[Ref]int{}
	for i, o := range objs {
		last[RefOf(o)] = i
	}
	for i, o := range objs {
		if last[RefOf(o)] == i {
			kept = append(kept, o)
		} else {
			replaced = append(replaced, o)
		}
	}
	return kept, replaced
}
