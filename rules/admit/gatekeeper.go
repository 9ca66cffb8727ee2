package admit

import (
	"path"

	"gopkg.in/yaml.v3"

	"github.com/ome-policy/evaluator/admission"
	"github.com/ome-policy/evaluator/admission/gatekeeper"
	"github.com/ome-policy/evaluator/rules"
)

// A team's rules in the Gatekeeper bundle, under team/: per rule, its
// template (team/<name>/template.yaml) and its sample constraints, which
// the kustomization installs after OME's.

// Folder is the folder of each bundle that holds a team's rules.
const Folder = "team"

// Gatekeeper writes the templates and constraints of the rules' checks,
// and says what the kustomization installs of them: the templates, then
// the constraints.
//
// Each rule's suite (team/<name>/suite.yaml, for gator verify) reviews
// its cases (CasesOf: its rule cases and the objects
// of --lint) with each of its constraints, expecting the messages of the
// constraint's severities that evaluate gives each; for a rule that reads
// OME's decisions, with the models and runtimes beside it as the
// inventory.
func (team Rules) gatekeeper(exempt admission.Exemptions) admission.Extra {
	x := admission.Extra{Files: admission.Bundle{}, Folder: Folder}
	if len(team.Gatekeeper) > 0 {
		x.Comment = "It also installs a team's own rules (" + Folder + "/): their templates and constraints,\n" +
			"whose kinds exist once Gatekeeper has made them too."
	}
	for _, c := range team.Gatekeeper {
		dir := path.Join(Folder, c.Name)
		x.Files[path.Join(dir, "template.yaml")] = gatekeeper.TemplateYAML(c)
		x.Templates = append(x.Templates, path.Join(dir, "template.yaml"))
		kinds := c.Team.Kinds
		if len(kinds) == 0 { // a Rego rule reads input.kind itself
			kinds = append(append([]string(nil), admission.OMEKinds...), "InferenceService")
		}
		var tests []gatekeeper.SuiteTest
		for _, s := range teamConstraints(c) {
			sample := path.Join("samples", s.sample)
			x.Files[path.Join(dir, sample, "constraint.yaml")] = gatekeeper.ConstraintYAML(c.Release, c.Generator, c.Kind, s.name, s.action, s.description, kinds, s.params, exempt)
			x.Constraints = append(x.Constraints, path.Join(dir, sample, "constraint.yaml"))
			tests = append(tests, gatekeeper.SuiteTest{Name: s.sample, Template: "template.yaml", Constraint: path.Join(sample, "constraint.yaml"),
				CaseDir: sample, Cases: gatekeeper.ExemptCases(teamCases(team, *c.Team, s.severities), exempt)})
		}
		x.Files.Add(dir, gatekeeper.SuiteFiles(c.Name, tests))
	}
	return x
}

// teamCases are the gator cases of rule with a constraint of severities.
func teamCases(team Rules, rule rules.Rule, severities []string) []admission.SuiteCase {
	var out []admission.SuiteCase
	for _, tc := range team.CasesOf(rule.ID) {
		sc := admission.SuiteCase{Name: tc.Name, Object: admission.DeepCopy(tc.Object.Value), Messages: tc.Messages(rule.ID, severities)}
		if rule.Decisions {
			for _, o := range tc.Inventory {
				sc.Inventory = append(sc.Inventory, admission.DeepCopy(o.Value))
			}
		}
		out = append(out, sc)
	}
	return out
}

type teamConstraint struct {
	sample, name, action, description string
	params                            *yaml.Node
	severities                        []string // of the findings it reports
}

// teamConstraints are the constraints of a team's check: for a Rego rule,
// one that denies the messages of its deny and violation sets and one that
// warns those of its warn sets (each when it has such sets); for a
// policy, one whose action is its bindings' (Deny: deny, Warn: warn,
// Audit: dryrun).
func teamConstraints(c *admission.Check) []teamConstraint {
	r := c.Team
	name := ConstraintName(r.ID)
	var out []teamConstraint
	if r.Language == rules.CEL {
		action := map[string]string{rules.Error: "deny", rules.Warning: "warn", rules.Info: "dryrun"}[r.Severities[0]]
		return []teamConstraint{{"default", name, action, "The team's rule " + r.ID + ", with the action of its binding.", nil, r.Severities}}
	}
	for _, sev := range r.Severities {
		switch sev {
		case rules.Error:
			out = append(out, teamConstraint{"deny", name, "deny", "Refuse what the team's rule " + r.ID + " denies.", admission.Mapping("warn", false), []string{rules.Error}})
		case rules.Warning:
			out = append(out, teamConstraint{"warn", name + "-warn", "warn", "Warn of what the team's rule " + r.ID + " warns of.", admission.Mapping("warn", true), []string{rules.Warning}})
		}
	}
	return out
}
