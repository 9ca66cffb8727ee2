package gatekeeper

import (
	"fmt"
	"path"
	"slices"

	"gopkg.in/yaml.v3"

	"github.com/ome-policy/evaluator/admission"
	"github.com/ome-policy/evaluator/cases"
	"github.com/ome-policy/evaluator/objects"
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
// Each rule's suite (team/<name>/suite.yaml, for gator verify) reviews the
// objects of its own rule cases, expecting what the cases expect, and the
// objects of OMEVersionLint's suite (lint) with each of its constraints,
// expecting the messages that the rule gives each object in `evaluate lint
// --rules`, of the constraint's severities.
func teamFiles(team admission.TeamRules, lint []admission.ObjectFindings) (b admission.Bundle, templates, constraints []string, err error) {
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
			b[path.Join(dir, sample, "constraint.yaml")] = constraintYAML(c.Release, c.Generator, c.Kind, s.name, s.action, s.description, kinds, s.params)
			constraints = append(constraints, path.Join(dir, sample, "constraint.yaml"))
			suiteCases, err := teamCases(team, c.Team.ID, s.severities, lint)
			if err != nil {
				return nil, nil, nil, fmt.Errorf("the suite of %s: %w", c.Team.ID, err)
			}
			tests = append(tests, SuiteTest{Name: s.sample, Template: "template.yaml", Constraint: path.Join(sample, "constraint.yaml"),
				CaseDir: sample, Cases: suiteCases})
		}
		b.Add(dir, suiteFiles(c.Name, tests))
	}
	return b, templates, constraints, nil
}

// teamCases are the rule's own cases (rule cases of the rules' case
// files), each with the messages the case expects, when every message the
// rule gives has the constraint's severities; then the objects of lint,
// each with the messages the rule id of the team's rules gives it, of the
// severities. A rule that reads OME's decisions judges each object of lint
// with all of them, as evaluate lint does: they are each case's inventory.
func teamCases(team admission.TeamRules, id string, severities []string, lint []admission.ObjectFindings) ([]admission.SuiteCase, error) {
	set := team.Set
	var out []admission.SuiteCase
	var rule rules.Rule
	for _, r := range set.Rules {
		if r.ID == id {
			rule = r
		}
	}
	if rule.Decisions {
		return decisionCases(team, id, severities, lint)
	}
	if all, err := cases.ReadAll(set.CaseFiles); err == nil && len(rule.Severities) == 1 && slices.Contains(severities, rule.Severities[0]) {
		for _, c := range all {
			if c.Rule == id {
				out = append(out, admission.SuiteCase{Name: c.Name, Object: admission.DeepCopy(c.Object.Value), Messages: *c.Expect.Findings})
			}
		}
	}
	for _, l := range lint {
		o := l.Object
		fs, problems := set.Check(o)
		if len(problems) > 0 {
			// A rule that fails on an object, or that its sandbox stops,
			// would leave out of the suite what it would have found.
			return nil, problems
		}
		var msgs []string
		for _, f := range fs {
			if f.Rule == id && slices.Contains(severities, f.Severity) {
				msgs = append(msgs, f.Message)
			}
		}
		out = append(out, admission.SuiteCase{Name: fmt.Sprintf("%s %s (%s)", o.Kind, o.Name, path.Base(o.File)), Object: admission.DeepCopy(o.Value), Messages: msgs})
	}
	return out, nil
}

// decisionCases are the objects of lint, each with the messages that the
// rule id, which reads OME's decisions, gives it beside all of them (the
// case's inventory: the models and runtimes),
// of the severities. What keeps the rule from judging them (OME's
// decisions, or the rule's own problems) is an error: a suite without
// those cases would pass unseen.
func decisionCases(team admission.TeamRules, id string, severities []string, lint []admission.ObjectFindings) ([]admission.SuiteCase, error) {
	all := make([]*objects.Object, len(lint))
	for i, l := range lint {
		all[i] = l.Object
	}
	kept, _ := objects.Deduplicate(all)
	fs, problems, err := team.Set.CheckAll(kept, team.Decide)
	if err == nil && len(problems) > 0 {
		err = problems
	}
	if err != nil {
		return nil, err
	}
	var inventory []map[string]any
	for _, o := range kept {
		if o.IsModel() || o.IsRuntime() {
			inventory = append(inventory, admission.DeepCopy(o.Value))
		}
	}
	var out []admission.SuiteCase
	for _, o := range kept {
		var msgs []string
		for _, f := range fs {
			if f.Rule == id && f.Object == objects.RefOf(o) && slices.Contains(severities, f.Severity) {
				msgs = append(msgs, f.Message)
			}
		}
		out = append(out, admission.SuiteCase{Name: fmt.Sprintf("%s %s (%s)", o.Kind, o.Name, path.Base(o.File)), Object: admission.DeepCopy(o.Value),
			Inventory: inventory, Messages: msgs})
	}
	return out, nil
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
