package gatekeeper

import (
	"path"

	"gopkg.in/yaml.v3"

	"github.com/ome-policy/evaluator/admission"
	"github.com/ome-policy/evaluator/rules"
)

// A team's own rules in the Gatekeeper bundle, under team/: per rule, its
// template (team/<name>/template.yaml) and its sample constraints, which
// the kustomization installs after OME's.

// TeamFolder is the folder of the bundle that holds a team's rules.
const TeamFolder = "team"

// Owned are the folders of the bundle that are generated whole: writing the
// bundle removes what they hold that it no longer has (admission.Bundle.Sync).
var Owned = []string{"omeruntimeselection", "omeversionlint", TeamFolder}

// teamFiles writes the templates and constraints of a team's checks, and
// says what the kustomization installs of them: the templates, then the
// constraints.
//
// Each rule's suite (team/<name>/suite.yaml, for gator verify) reviews
// its cases (admission.TeamRules.CasesOf: its rule cases and the objects
// of --lint) with each of its constraints, expecting the messages of the
// constraint's severities that evaluate gives each; for a rule that reads
// OME's decisions, with the models and runtimes beside it as the
// inventory.
func teamFiles(team admission.TeamRules, exempt admission.Exemptions) (b admission.Bundle, templates, constraints []string, err error) {
	b = admission.Bundle{}
	for _, c := range team.Gatekeeper {
		dir := path.Join(TeamFolder, c.Name)
		b[path.Join(dir, "template.yaml")] = templateYAML(c)
		templates = append(templates, path.Join(dir, "template.yaml"))
		kinds := c.Team.Kinds
		if len(kinds) == 0 { // a Rego rule reads input.kind itself
			kinds = append(append([]string(nil), admission.OMEKinds...), "InferenceService")
		}
		var tests []SuiteTest
		for _, s := range teamConstraints(c) {
			sample := path.Join("samples", s.sample)
			b[path.Join(dir, sample, "constraint.yaml")] = constraintYAML(c.Release, c.Generator, c.Kind, s.name, s.action, s.description, kinds, s.params, exempt)
			constraints = append(constraints, path.Join(dir, sample, "constraint.yaml"))
			tests = append(tests, SuiteTest{Name: s.sample, Template: "template.yaml", Constraint: path.Join(sample, "constraint.yaml"),
				CaseDir: sample, Cases: exemptCases(teamCases(team, *c.Team, s.severities), exempt)})
		}
		b.Add(dir, suiteFiles(c.Name, tests))
	}
	return b, templates, constraints, nil
}

// teamCases are the gator cases of rule with a constraint of severities.
func teamCases(team admission.TeamRules, rule rules.Rule, severities []string) []admission.SuiteCase {
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
	name := admission.TeamConstraintName(r.ID)
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
