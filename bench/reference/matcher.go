package reference

import "github.com/ome-policy/evaluator/engine/answer"

// Matcher is Match with the engines' method set (engine.Matcher), so that
// tests can put it beside them: its verdicts are the oracle's.
type Matcher struct{}

// Name returns "reference".
func (Matcher) Name() string { return "reference" }

// Match converts Match's verdict into the engines' answer.
func (Matcher) Match(model, runtime map[string]any) (answer.Verdict, error) {
	r := Match(model, runtime)
	v := answer.Verdict{Compatible: r.Compatible, Reason: r.Reason, Entries: make([]answer.EntryResult, len(r.Entries))}
	for i, e := range r.Entries {
		v.Entries[i] = answer.EntryResult{Index: e.Index, Matched: e.Matched, Differences: e.Differences}
	}
	return v, nil
}
