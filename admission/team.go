package admission

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"unicode"

	"github.com/ome-policy/evaluator/cases"
	"github.com/ome-policy/evaluator/engine/answer"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/rules"
)

// A team's own rules (package rules) as the targets write them: the
// checks and policies admission/team compiles them into, and the names
// their templates and constraints take.

// TeamKind is the constraint kind of a team's rule in Gatekeeper: its id
// in CamelCase ("company.transformers_floor": CompanyTransformersFloor).
func TeamKind(id string) string {
	var b strings.Builder
	up := true
	for _, r := range id {
		switch {
		case r == '.' || r == '_' || r == '-':
			up = true
		case up:
			b.WriteRune(unicode.ToUpper(r))
			up = false
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TeamConstraintName is the name of a team's rule's constraint (and of its
// native policy): its id with . and _ as -.
func TeamConstraintName(id string) string {
	return strings.NewReplacer(".", "-", "_", "-").Replace(strings.ToLower(id))
}

// TeamDoc is a team's ValidatingAdmissionPolicy for a CEL target: the
// policy rewritten for it (TeamPolicy), and the rule it is. Name is its
// name there; Validation, when it is not -1, says that it holds only that
// validation of the rule's (Kyverno gives one message a policy, so a rule
// of several validations is a policy each there).
type TeamDoc struct {
	Rule       rules.Rule
	Policy     map[string]any
	Name       string
	Validation int
}

// TeamRules are a team's rules compiled for the targets of a run.
type TeamRules struct {
	Gatekeeper []*Check  // a template each
	Native     []TeamDoc // ValidatingAdmissionPolicies in plain CEL
	Kyverno    []TeamDoc // in Kyverno's CEL
	// Left says each rule left out of a target on purpose (leaveOut),
	// for a notice.
	Left []string
	// Set are the rules, whose findings the suites expect; Decide gives
	// OME's decisions to those of them that read them.
	Set    *rules.Set
	Decide rules.Decide
	// Cases are what the suites review, with what evaluate gives each
	// (Judge).
	Cases []TeamCase
}

// TeamCase is one object that the suites of a team's rules review, with
// what evaluate gives it: the findings of the team's rules about it, beside
// the models and runtimes of Inventory (of which OME's decisions about it
// are made, for a rule that reads them).
type TeamCase struct {
	Name string
	// Rule is the rule of a rule case, whose suites alone review it; ""
	// for an object of --lint, which every rule's suites review.
	Rule      string
	Object    *objects.Object
	Inventory []*objects.Object
	Findings  []answer.Finding
}

// Messages are the messages of the case's findings of rule with one of the
// severities, in order.
func (c TeamCase) Messages(rule string, severities []string) []string {
	var out []string
	for _, f := range c.Findings {
		if f.Rule == rule && slices.Contains(severities, f.Severity) {
			out = append(out, f.Message)
		}
	}
	return out
}

// Judge makes the cases that the suites of the rules review (Cases): each
// rule case of the rules' case files, with its objects beside it, then
// each object of lint, with all the models and runtimes of lint beside it
// (as kubectl apply leaves them); each judged by the rules as evaluate
// lint --rules judges it (rules.Set.CheckAll, with OME's decisions of
// Decide). What keeps the rules from judging them (their own problems,
// OME's decisions) is an error: a suite without those cases would pass
// unseen. Untriggered then names the rules that no case makes fire.
func (t *TeamRules) Judge(lint []*objects.Object) error {
	if t.Set.Len() == 0 {
		return nil
	}
	t.Cases = nil
	all, err := cases.ReadAll(t.Set.CaseFiles)
	if err != nil {
		return err
	}
	judge := func(objs []*objects.Object) ([]answer.Finding, error) {
		fs, problems, err := t.Set.CheckAll(objs, t.Decide)
		if err == nil && len(problems) > 0 {
			err = problems
		}
		return fs, err
	}
	for _, c := range all {
		if c.Rule == "" {
			continue
		}
		objs := append(slices.Clone(c.Objects), c.Object)
		fs, err := judge(objs)
		if err != nil {
			return fmt.Errorf("rule case %q (%s): %w", c.Name, objects.FileLine(c.File, c.Line), err)
		}
		t.Cases = append(t.Cases, TeamCase{Name: c.Name, Rule: c.Rule, Object: c.Object, Inventory: c.Objects,
			Findings: findingsOf(fs, c.Object)})
	}
	fs, err := judge(lint)
	if err != nil {
		return fmt.Errorf("--lint: %w", err)
	}
	kept, _ := objects.Deduplicate(lint)
	var inventory []*objects.Object
	for _, o := range kept {
		if o.IsModel() || o.IsRuntime() {
			inventory = append(inventory, o)
		}
	}
	for _, o := range lint {
		t.Cases = append(t.Cases, TeamCase{Name: fmt.Sprintf("%s %s (%s)", o.Kind, o.Name, path.Base(o.File)), Object: o,
			Inventory: inventory, Findings: findingsOf(fs, o)})
	}
	return nil
}

// findingsOf are the findings about o: of its kind, namespace and name,
// read where o was.
func findingsOf(fs []answer.Finding, o *objects.Object) []answer.Finding {
	var out []answer.Finding
	for _, f := range fs {
		if f.Object == objects.RefOf(o) && f.File == o.File && f.ObjectLine == o.Line {
			out = append(out, f)
		}
	}
	return out
}

// CasesOf are the cases that the suites of rule review: its rule cases and
// the objects of --lint.
func (t TeamRules) CasesOf(rule string) []TeamCase {
	var out []TeamCase
	for _, c := range t.Cases {
		if c.Rule == "" || c.Rule == rule {
			out = append(out, c)
		}
	}
	return out
}

// Untriggered are the rules (ids) that none of their cases makes fire:
// their suites prove only that they compile.
func (t TeamRules) Untriggered() []string {
	if t.Set.Len() == 0 {
		return nil
	}
	var out []string
	for _, r := range t.Set.Rules {
		fired := false
		for _, c := range t.CasesOf(r.ID) {
			for _, f := range c.Findings {
				fired = fired || f.Rule == r.ID
			}
		}
		if !fired {
			out = append(out, r.ID)
		}
	}
	return out
}
