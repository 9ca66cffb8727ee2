package admission

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/objects"
)

// What OMEVersionLint refuses: `evaluate lint`'s findings on one object,
// narrowed as the template narrows them. Its suite's expectations and
// `evaluate gatekeeper violations` are made of them.

// ObjectFindings is one object with `evaluate lint`'s findings on it alone.
type ObjectFindings struct {
	Object   *objects.Object
	Findings []engine.Finding
}

// LintEach lints each object alone, as Gatekeeper reviews one object at a
// time.
func LintEach(l engine.Linter, objs []*objects.Object) ([]ObjectFindings, error) {
	out := make([]ObjectFindings, 0, len(objs))
	for _, o := range objs {
		findings, err := engine.Lint(l, []*objects.Object{o}, engine.LintOptions{})
		if err != nil {
			return nil, fmt.Errorf("lint %s: %w", o.Ref(), err)
		}
		out = append(out, ObjectFindings{Object: o, Findings: findings})
	}
	return out, nil
}

// LintRules are the rules OMEVersionLint applies: the single-object rules
// of `evaluate lint` that make sense at admission.
var LintRules = []string{
	"invalid-version", "empty-version", "unknown-operator", "missing-format", "missing-framework",
	"incomplete-size-range", "unparsed-size", "ordering-operator-with-suffix", "operator-without-version", "ignored-field",
	"zero-weight", "implicit-autoselect", "name-case", "unknown-deployment-mode",
}

// NotAtAdmission are the rules of `evaluate lint` that OMEVersionLint
// leaves out, each for a reason: the API server's schema check refuses
// such objects first (crd-schema, wrong-type, non-string-version), the
// API server drops the field (unread-field), or the rule reads more than
// the one object under review (duplicate-name, unmatched-model,
// unreachable-entry, selection-tie).
var NotAtAdmission = []string{"crd-schema", "wrong-type", "non-string-version", "unread-field", "duplicate-name", "unmatched-model", "unreachable-entry", "selection-tie"}

// UnenforcedRules are the ids of rules (of the policies' lint-rules.yaml)
// that OMEVersionLint neither applies nor leaves out for a reason: rules
// that policies of --policies added, which no bundle would enforce.
func UnenforcedRules(ids []string) []string {
	var out []string
	for _, id := range ids {
		if !slices.Contains(LintRules, id) && !slices.Contains(NotAtAdmission, id) && id != engine.RuleInputError {
			out = append(out, id)
		}
	}
	return out
}

// LintViolations are the messages OMEVersionLint gives for one object with
// the severities enforced: `evaluate lint`'s findings for the object alone,
// narrowed as the template narrows them (see src/omeversionlint.rego), each
// written "[rule] field: message", sorted, at most MaxViolations.
func LintViolations(findings []engine.Finding, o *objects.Object, severities ...string) []string {
	rules := map[string]bool{}
	for _, r := range LintRules {
		rules[r] = true
	}
	model := o.Kind == "BaseModel" || o.Kind == "ClusterBaseModel"
	skip := false
	if meta, ok := o.Value["metadata"].(map[string]any); ok {
		if ann, ok := meta["annotations"].(map[string]any); ok {
			skip = ann["ome.oracle.com/skip-config-parsing"] == "true"
		}
	}
	enforce := map[string]bool{}
	for _, s := range severities {
		enforce[s] = true
	}
	var msgs []string
	for _, f := range findings {
		switch {
		case !rules[f.Rule]:
			continue
		case model && f.Rule == "missing-framework":
			continue
		case model && f.Rule == "missing-format" && !skip:
			continue
		case f.Rule == "name-case" && !strings.Contains(f.Message, "is not how the well-known"):
			continue
		case !enforce[f.Severity]:
			continue
		}
		msgs = append(msgs, fmt.Sprintf("[%s] %s: %s", f.Rule, f.Field, f.Message))
	}
	return capViolations(msgs)
}

// MaxViolations is how many violations OMEVersionLint gives an object at
// most (its CEL code has that many validations): past it, the last says
// how many more findings there are.
const MaxViolations = 32

// capViolations sorts the messages and keeps MaxViolations of them.
func capViolations(msgs []string) []string {
	sort.Strings(msgs)
	if len(msgs) <= MaxViolations {
		return msgs
	}
	return append(msgs[:MaxViolations-1:MaxViolations-1], fmt.Sprintf(
		"[more-findings] object: %d more lint findings; run evaluate lint on the object to see them all (first %d shown)",
		len(msgs)-(MaxViolations-1), MaxViolations-1))
}
