package engine

import "github.com/ome-policy/evaluator/bench/reference"

// refMatcher adapts the plain-Go reference matcher of bench/reference, an
// independent oracle written from the spec, to the Matcher interface.
type refMatcher struct{}

func (refMatcher) Name() string { return "reference" }

func (refMatcher) Match(model, runtime map[string]any) (Verdict, error) {
	r := reference.Match(model, runtime)
	v := Verdict{Compatible: r.Compatible, Reason: r.Reason, Entries: make([]EntryResult, len(r.Entries))}
	for i, e := range r.Entries {
		v.Entries[i] = EntryResult{Index: e.Index, Matched: e.Matched, Differences: e.Differences}
	}
	return v, nil
}
