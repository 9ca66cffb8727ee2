package admission

import (
	"strings"
	"unicode"

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
}
