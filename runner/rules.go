package runner

import (
	"fmt"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/rules"
)

// OwnRules reads a team's own rules (--rules: files and folders) to run
// beside OME's rules, whose ids they may not take; nil without paths.
// Everything wrong with them is one rules.Problems error.
func OwnRules(paths []string, ome []engine.Rule) (*rules.Set, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	ids := make([]string, len(ome))
	for i, r := range ome {
		ids[i] = r.ID
	}
	ids = append(ids, engine.RuleInputError)
	return rules.Load(paths, ids)
}

// WithOwnRules is OME's lint rules followed by the team's, as lint lists,
// filters and describes them.
func WithOwnRules(ome []engine.Rule, own *rules.Set) []engine.Rule {
	if own.Len() == 0 {
		return ome
	}
	out := append([]engine.Rule(nil), ome...)
	for _, r := range own.Rules {
		d := r.Description
		if d == "" {
			d = fmt.Sprintf("a rule of %s", r.File)
		}
		out = append(out, engine.Rule{ID: r.ID, Severity: r.Severity(), Description: d})
	}
	return out
}
