package admit

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"unicode"

	"github.com/ome-policy/evaluator/admission"
	"github.com/ome-policy/evaluator/cases"
	"github.com/ome-policy/evaluator/engine/answer"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/objects/crdschema"
	"github.com/ome-policy/evaluator/rules"
)

// A team's rules as the targets write them: the checks and policies
// Compile makes of them, the names their templates and constraints take,
// and the cases their suites and Tests review (Judge).

// Kind is the constraint kind of a team's rule in Gatekeeper: its id
// in CamelCase ("company.transformers_floor": CompanyTransformersFloor).
func Kind(id string) string {
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

// ConstraintName is the name of a team's rule's constraint (and of its
// native policy): its id with . and _ as -.
func ConstraintName(id string) string {
	return strings.NewReplacer(".", "-", "_", "-").Replace(strings.ToLower(id))
}

// Doc is a team's ValidatingAdmissionPolicy for a CEL target: the
// policy rewritten for it (TeamPolicy), and the rule it is. Name is its
// name there; Validation, when it is not -1, says that it holds only that
// validation of the rule's (Kyverno gives one message a policy, so a rule
// of several validations is a policy each there).
type Doc struct {
	Rule       rules.Rule
	Policy     map[string]any
	Name       string
	Validation int
}

// Rules are a team's rules compiled for the targets of a run.
type Rules struct {
	Gatekeeper []*admission.Check // a template each
	Native     []Doc              // ValidatingAdmissionPolicies in plain CEL
	Kyverno    []Doc              // in Kyverno's CEL
	// Left says each rule left out of a target on purpose (leaveOut),
	// for a notice.
	Left []string
	// Set are the rules, whose findings the suites expect; Decide gives
	// OME's decisions to those of them that read them.
	Set    *rules.Set
	Decide rules.Decide
	// Cases are what the suites review, with what evaluate gives each
	// (Judge).
	Cases []Case
	// Lint are the objects of --lint that the API server takes and
	// keeps (Judge): those OME's CRDs refuse never reach an admission
	// policy, and of an object given twice the later replaces the
	// earlier, as lint decides them.
	Lint []*objects.Object
}

// Case is one object that the suites of a team's rules review, with
// what evaluate gives it: the findings of the team's rules about it, beside
// the models and runtimes of Inventory (of which OME's decisions about it
// are made, for a rule that reads them).
type Case struct {
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
func (c Case) Messages(rule string, severities []string) []string {
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
// each object of lint that the API server takes and keeps (Lint), with
// all those models and runtimes beside it; each judged by the rules as
// evaluate lint --rules judges it (rules.Set.CheckAll, with OME's
// decisions of Decide). An object OME's CRDs of release refuse is no
// case: the API server refuses it before any admission policy sees it (a
// rule that would fail on a number where OME's CRD wants a string never
// sees one there). Nor is the earlier of an object given twice: the later
// replaces it, as on apply and in lint. What keeps the rules from judging
// the cases (their own problems, OME's decisions) is an error: a suite
// without those cases would pass unseen. Untriggered then names the rules
// that no case makes fire.
func (t *Rules) Judge(lint []*objects.Object, release string) error {
	if t.Set.Len() == 0 {
		return nil
	}
	t.Cases, t.Lint = nil, nil
	for _, o := range lint {
		refused, err := crdschema.SchemaErrors(o, release)
		if err != nil {
			return fmt.Errorf("%s: %w", objects.FileLine(o.File, o.Line), err)
		}
		if len(refused) == 0 {
			t.Lint = append(t.Lint, o)
		}
	}
	t.Lint, _ = objects.Deduplicate(t.Lint)
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
		t.Cases = append(t.Cases, Case{Name: c.Name, Rule: c.Rule, Object: c.Object, Inventory: c.Objects,
			Findings: findingsOf(fs, c.Object)})
	}
	fs, err := judge(t.Lint)
	if err != nil {
		return fmt.Errorf("--lint: %w", err)
	}
	var inventory []*objects.Object
	for _, o := range t.Lint {
		if o.IsModel() || o.IsRuntime() {
			inventory = append(inventory, o)
		}
	}
	for _, o := range t.Lint {
		t.Cases = append(t.Cases, Case{Name: fmt.Sprintf("%s %s (%s)", o.Kind, o.Name, path.Base(o.File)), Object: o,
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
func (t Rules) CasesOf(rule string) []Case {
	var out []Case
	for _, c := range t.Cases {
		if c.Rule == "" || c.Rule == rule {
			out = append(out, c)
		}
	}
	return out
}

// Untriggered are the rules (ids) that none of their cases makes fire:
// their suites prove only that they compile.
func (t Rules) Untriggered() []string {
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

// Extras are the files of the rules in each target's bundle of opts (its
// release and exemptions; the objects of --lint that Judge made cases of):
// the Gatekeeper templates and constraints with their suites, the
// ValidatingAdmissionPolicies, the Kyverno policies with their Tests.
func (team Rules) Extras(opts admission.Options) admission.Extras {
	return admission.Extras{
		Gatekeeper: team.gatekeeper(opts.Exempt),
		Native:     team.native(opts.Exempt),
		Kyverno:    team.kyverno(opts.Policies.Release, opts.Exempt, team.Lint),
	}
}
