package diff

import (
	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/objects"
)

// The ways a finding of a rule of --rules (evaluate diff --rules) changed
// (RuleChange.Change).
const (
	RuleFires = "fires" // on the new side, not on the old
	RuleStops = "stops" // on the old side, not on the new
)

// RuleChange is a finding of a rule of --rules that the change makes or
// clears: a finding on one side that the other side does not have, told
// apart by rule, severity, object, field and message (the lines may move).
// Regression: it fires, and it is an error (a refusal at admission).
type RuleChange struct {
	Rule     string      `json:"rule"`
	Severity string      `json:"severity"`
	Object   objects.Ref `json:"object"`
	Field    string      `json:"field,omitempty"`
	Message  string      `json:"message"`
	Change   string      `json:"change"`
	// Position is the finding's on the side it is on.
	Position
	Regression bool `json:"regression"`
}

// RuleChanges are the findings of a team's rules that new has and old
// has not (RuleFires), then those that old has and new has not
// (RuleStops), each in file, line and rule order; empty, not nil, when
// none changed.
func RuleChanges(old, new []engine.Finding) []RuleChange {
	type key struct {
		rule, severity, field, message string
		object                         objects.Ref
	}
	keyOf := func(f engine.Finding) key { return key{f.Rule, f.Severity, f.Field, f.Message, f.Object} }
	// only are the findings of a that b does not have, as many times as a
	// has them more than b.
	only := func(a, b []engine.Finding, change string) []RuleChange {
		count := map[key]int{}
		for _, f := range b {
			count[keyOf(f)]++
		}
		sorted := append([]engine.Finding(nil), a...)
		engine.SortFindings(sorted)
		var out []RuleChange
		for _, f := range sorted {
			if k := keyOf(f); count[k] > 0 {
				count[k]--
				continue
			}
			out = append(out, RuleChange{Rule: f.Rule, Severity: f.Severity, Object: f.Object, Field: f.Field, Message: f.Message,
				Change: change, Position: Position{File: f.File, Line: f.Line},
				Regression: change == RuleFires && f.Severity == engine.SeverityError})
		}
		return out
	}
	out := append(only(new, old, RuleFires), only(old, new, RuleStops)...)
	if out == nil {
		out = []RuleChange{}
	}
	return out
}
