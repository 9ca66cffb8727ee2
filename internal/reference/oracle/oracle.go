// Package oracle gives the plain-Go reference matcher (package reference)
// the engines' method set, so that tests can put its verdicts beside theirs.
// It is apart from package reference so that the bare benchmark program,
// which uses reference, links nothing of the product.
package oracle

import (
	"fmt"
	"strings"

	"github.com/ome-policy/evaluator/engine/answer"
	"github.com/ome-policy/evaluator/internal/reference"
)

// Matcher is reference's Match with the engines' method set
// (engine.Matcher), so that tests can put it beside them: its verdicts are
// the oracle's. Release names the OME release it states ("" the newest).
type Matcher struct{ Release string }

// Name returns "reference".
func (Matcher) Name() string { return "reference" }

// Match converts the reference's verdict on the release into the engines'
// answer.
func (m Matcher) Match(model, runtime map[string]any) (answer.Verdict, error) {
	rel, ok := reference.ForRelease(m.Release)
	if !ok {
		return answer.Verdict{}, fmt.Errorf("the reference does not state OME %s (it states %s)", m.Release, strings.Join(reference.Releases(), ", "))
	}
	r := rel.Match(model, runtime)
	v := answer.Verdict{Compatible: r.Compatible, Reason: r.Reason, Entries: make([]answer.EntryResult, len(r.Entries))}
	for i, e := range r.Entries {
		v.Entries[i] = answer.EntryResult{Index: e.Index, Matched: e.Matched, Differences: e.Differences}
	}
	return v, nil
}
