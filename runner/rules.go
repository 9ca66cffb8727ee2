package runner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ome-policy/evaluator/admission"
	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/policies/policyset"
	"github.com/ome-policy/evaluator/rules"
	"github.com/ome-policy/evaluator/rules/admit"
)

// OwnRules reads a team's own rules (--rules: files and folders) to run
// beside OME's rules, whose ids they may not take, in the sandbox sb; nil
// without paths. Everything wrong with them is one rules.Problems error.
func OwnRules(paths []string, ome []engine.Rule, sb rules.Sandbox) (*rules.Set, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	ids := make([]string, len(ome))
	for i, r := range ome {
		ids[i] = r.ID
	}
	ids = append(ids, engine.RuleInputError)
	return rules.LoadWith(paths, ids, sb)
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

// OwnRulesFor reads a team's rules (paths) beside the lint rules of set,
// to run in the sandbox sb, and gives both: OME's, and the team's (nil
// without paths).
func OwnRulesFor(set *policyset.Set, paths []string, sb rules.Sandbox) ([]engine.Rule, *rules.Set, error) {
	ome, err := engine.LintRules(set)
	if err != nil {
		return nil, nil, err
	}
	own, err := OwnRules(paths, ome, sb)
	return ome, own, err
}

// TeamBundles compiles a team's rules (paths) for the admission targets
// of a run (admit.Compile); the headers say the files are made by the
// command (such as "evaluate gatekeeper") with --rules, and for another
// release than the newest, its --ome-version. A Rego rule that reads OME's
// decisions gets them in its template from OMERuntimeSelection's
// libraries, and in its suite from Decider. The lint rules that policies
// of --policies add to OME's are an
// error too: OME's templates cannot enforce them, and no bundle may leave
// them out unsaid. The rules' problems are a rules.Problems error, what
// the targets cannot hold a admit.Refusals one. The rules are loaded for
// the bundles (rules.Sandbox.ForBundles: no builtin the sandbox refuses is
// allowed, a CEL expression over Kubernetes' cost limit is refused), and
// run within sb's limits to make the bundles' tests.
func TeamBundles(set *policyset.Set, paths, leaveOut, targets []string, command string, sb rules.Sandbox) (admission.TeamRules, error) {
	ome, err := engine.LintRules(set)
	if err != nil {
		return admission.TeamRules{}, err
	}
	ids := make([]string, len(ome))
	for i, r := range ome {
		ids[i] = r.ID
	}
	if added := admission.UnenforcedRules(ids); len(added) > 0 {
		return admission.TeamRules{}, fmt.Errorf("policies %s: %s: rule %s is none of OME's, and OME's templates cannot enforce it: "+
			"write it as a team's own rule (Rego or a ValidatingAdmissionPolicy) and give it with --rules",
			set.Origin, policyset.LintRulesFile, strings.Join(added, ", "))
	}
	if len(paths) == 0 && len(leaveOut) == 0 {
		return admission.TeamRules{}, nil
	}
	sb.ForBundles = true
	own, err := OwnRules(paths, ome, sb)
	if err != nil {
		return admission.TeamRules{}, err
	}
	made := "`" + command + " --rules`"
	if set.Release != set.Newest() {
		made = "`" + command + " --ome-version " + set.Release + " --rules`"
	}
	var selection *admission.Check
	if own.ReadsDecisions() && slices.Contains(targets, admit.TargetGatekeeper) {
		checks, err := admission.Checks(set)
		if err != nil {
			return admission.TeamRules{}, err
		}
		for _, c := range checks {
			if c.Kind == admission.SelectionKind {
				selection = c
			}
		}
	}
	out, err := admit.Compile(own, targets, leaveOut, set.Release, made, selection)
	out.Decide = Decider(engine.CEL, set)
	return out, err
}
