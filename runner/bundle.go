package runner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ome-policy/evaluator/admission"
	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/policies/policyset"
	"github.com/ome-policy/evaluator/results"
	"github.com/ome-policy/evaluator/rules"
	"github.com/ome-policy/evaluator/rules/admit"
)

// Violations reviews each object alone, as Gatekeeper reviews each object
// at admission, and gives what OMEVersionLint refuses of it at severities;
// refused says whether it refuses any.
func Violations(linter engine.Linter, objs []*objects.Object, severities []string) (report []results.ObjectViolations, refused bool, err error) {
	report = make([]results.ObjectViolations, 0, len(objs))
	for _, o := range objs {
		findings, err := engine.Lint(linter, []*objects.Object{o}, engine.LintOptions{})
		if err != nil {
			return nil, false, err
		}
		v := admission.LintViolations(findings, o, severities...)
		if v == nil {
			v = []string{}
		}
		refused = refused || len(v) > 0
		report = append(report, results.ObjectViolations{Object: objects.RefOf(o), File: o.File, Line: o.Line, Violations: v})
	}
	return report, refused, nil
}

// BundleRules compiles a team's rules (paths) for the admission targets
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
func BundleRules(set *policyset.Set, paths, leaveOut, targets []string, command string, sb rules.Sandbox) (admit.Rules, error) {
	ome, err := engine.LintRules(set)
	if err != nil {
		return admit.Rules{}, err
	}
	ids := make([]string, len(ome))
	for i, r := range ome {
		ids[i] = r.ID
	}
	if added := admission.UnenforcedRules(ids); len(added) > 0 {
		return admit.Rules{}, fmt.Errorf("policies %s: %s: rule %s is none of OME's, and OME's templates cannot enforce it: "+
			"write it as a team's own rule (Rego or a ValidatingAdmissionPolicy) and give it with --rules",
			set.Origin, policyset.LintRulesFile, strings.Join(added, ", "))
	}
	if len(paths) == 0 && len(leaveOut) == 0 {
		return admit.Rules{}, nil
	}
	sb.ForBundles = true
	team, err := LoadRules(paths, ome, sb)
	if err != nil {
		return admit.Rules{}, err
	}
	made := "`" + command + " --rules`"
	if set.Release != set.Newest() {
		made = "`" + command + " --ome-version " + set.Release + " --rules`"
	}
	var selection *admission.Check
	if team.ReadsDecisions() && slices.Contains(targets, admit.TargetGatekeeper) {
		checks, err := admission.Checks(set)
		if err != nil {
			return admit.Rules{}, err
		}
		for _, c := range checks {
			if c.Kind == admission.SelectionKind {
				selection = c
			}
		}
	}
	out, err := admit.Compile(team, targets, leaveOut, set.Release, made, selection)
	out.Decide = Decider(engine.CEL, set)
	return out, err
}
