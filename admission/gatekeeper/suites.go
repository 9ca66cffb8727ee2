package gatekeeper

import (
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/ome-policy/evaluator/admission"
	"github.com/ome-policy/evaluator/cases"
	"github.com/ome-policy/evaluator/engine"
)

// The gator suites: <template>/suite.yaml with a folder of objects per
// case, for `gator verify`. A suite has Tests of a template and a
// constraint, each with Cases that review one object with some objects in
// data.inventory and assert the violations.

// selectionSuite writes OMERuntimeSelection's suite: the default test of
// the selection cases, and the validate-named-runtime test of the cases of
// src/named-runtime-cases.yaml that hold for release.
func selectionSuite(selection []cases.Case, release string, exempt admission.Exemptions) (admission.Bundle, error) {
	defaults, err := admission.SelectionCases(selection)
	if err != nil {
		return nil, err
	}
	named, err := namedRuntimeCases(release)
	if err != nil {
		return nil, err
	}
	b := admission.Bundle{}
	b.Add("omeruntimeselection", SuiteFiles("omeruntimeselection", []SuiteTest{
		{Name: "default", Template: "template.yaml", Constraint: "samples/default/constraint.yaml", CaseDir: "samples/default", Cases: ExemptCases(defaults, exempt)},
		{Name: "validate-named-runtime", Template: "template.yaml", Constraint: "samples/validate-named-runtime/constraint.yaml", CaseDir: "samples/validate-named-runtime", Cases: ExemptCases(named, exempt)},
	}))
	return b, nil
}

// lintSuite writes OMEVersionLint's suite: a case per object, in the
// deny-errors test with its error violations and in the warn-warnings test
// with its warning violations.
func lintSuite(linted []admission.ObjectFindings, exempt admission.Exemptions) admission.Bundle {
	var errs, warns []admission.SuiteCase
	for _, l := range linted {
		o := l.Object
		errors, warnings := admission.LintViolations(l.Findings, o, engine.SeverityError), admission.LintViolations(l.Findings, o, engine.SeverityWarning)
		name := fmt.Sprintf("%s %s (%s)", o.Kind, o.Name, path.Base(o.File))
		errs = append(errs, admission.SuiteCase{Name: name, Object: admission.DeepCopy(o.Value), Messages: errors})
		warns = append(warns, admission.SuiteCase{Name: name, Object: admission.DeepCopy(o.Value), Messages: warnings})
	}
	b := admission.Bundle{}
	b.Add("omeversionlint", SuiteFiles("omeversionlint", []SuiteTest{
		{Name: "deny-errors", Template: "template.yaml", Constraint: "samples/deny-errors/constraint.yaml", CaseDir: "samples/deny-errors", Cases: ExemptCases(errs, exempt)},
		{Name: "warn-warnings", Template: "template.yaml", Constraint: "samples/warn-warnings/constraint.yaml", CaseDir: "samples/warn-warnings", Cases: ExemptCases(warns, exempt)},
	}))
	return b
}

// Expectation is what a case asserts: no violation, or exactly one with
// this message.
type Expectation struct {
	Violation bool
	Message   string
}

// Assertions are a case's gator assertions: "violations: no", or exactly
// one violation whose message is exactly msg (the regular expression is
// anchored and quotes msg).
func Assertions(msgs []string) *yaml.Node {
	if len(msgs) == 0 {
		return admission.Seq(admission.Mapping("violations", "no"))
	}
	out := admission.Seq(admission.Mapping("violations", len(msgs)))
	counts := map[string]int{}
	var order []string
	for _, m := range msgs {
		if counts[m] == 0 {
			order = append(order, m)
		}
		counts[m]++
	}
	for _, m := range order {
		out.Content = append(out.Content, admission.Mapping("violations", counts[m], "message", "^"+regexp.QuoteMeta(m)+"$"))
	}
	return out
}

// SuiteTest is one test of a suite: a template, a constraint and cases.
// Paths are relative to the suite file.
type SuiteTest struct {
	Name       string
	Template   string
	Constraint string
	// CaseDir is the folder, relative to the suite, that holds one folder
	// of objects per case.
	CaseDir string
	Cases   []admission.SuiteCase
}

// SuiteFiles writes a suite.yaml and the objects of its cases.
func SuiteFiles(header string, tests []SuiteTest) admission.Bundle {
	b := admission.Bundle{}
	var nodes []*yaml.Node
	for _, t := range tests {
		var cases []*yaml.Node
		for i, c := range t.Cases {
			dir := path.Join(t.CaseDir, fmt.Sprintf("%03d-%s", i+1, slug(c.Name)))
			b[path.Join(dir, "object.yaml")] = admission.Document(admission.Value(c.Object))
			var inventory []string
			if len(c.Inventory) > 0 {
				docs := make([]*yaml.Node, len(c.Inventory))
				for j, o := range c.Inventory {
					docs[j] = admission.Value(o)
				}
				b[path.Join(dir, "inventory.yaml")] = admission.Document(docs...)
				inventory = []string{path.Join(dir, "inventory.yaml")}
			}
			var inv *yaml.Node
			if inventory != nil {
				inv = admission.Seq(admission.Str(inventory[0]))
			}
			cases = append(cases, admission.Mapping(
				"name", c.Name,
				"object", path.Join(dir, "object.yaml"),
				"inventory", inv,
				"assertions", Assertions(c.Messages),
			))
		}
		nodes = append(nodes, admission.Mapping(
			"name", t.Name,
			"template", t.Template,
			"constraint", t.Constraint,
			"cases", admission.Seq(cases...),
		))
	}
	suite := admission.Mapping(
		"apiVersion", "test.gatekeeper.sh/v1alpha1",
		"kind", "Suite",
		"metadata", admission.Mapping("name", header),
		"tests", admission.Seq(nodes...),
	)
	b["suite.yaml"] = admission.Document(admission.WithComment(suite, "Generated by `evaluate gatekeeper` (make bundles). Do not edit.\nRun: gator verify "+"<this folder>"))
	return b
}

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

func slug(name string) string {
	s := strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(name), "-"), "-")
	if len(s) > 60 {
		s = strings.TrimRight(s[:60], "-")
	}
	if s == "" {
		s = "case"
	}
	return s
}

// SelectionSuite converts selection cases into a gator suite of its own,
// named name (or, "", as its folder), to be written to the folder
// suiteDir, for OMERuntimeSelection's template and default constraint in
// the bundle folder templatesDir.
func SelectionSuite(name string, cases []cases.Case, suiteDir, templatesDir string) (admission.Bundle, error) {
	if name == "" {
		name = filepath.Base(suiteDir)
	}
	sc, err := admission.SelectionCases(cases)
	if err != nil {
		return nil, err
	}
	rel := func(p string) (string, error) {
		r, err := filepath.Rel(suiteDir, filepath.Join(templatesDir, "omeruntimeselection", p))
		return filepath.ToSlash(r), err
	}
	tpl, err := rel("template.yaml")
	if err != nil {
		return nil, err
	}
	con, err := rel("samples/default/constraint.yaml")
	if err != nil {
		return nil, err
	}
	return SuiteFiles(name, []SuiteTest{{Name: name, Template: tpl, Constraint: con, CaseDir: "cases", Cases: sc}}), nil
}

// namedRuntimeCases reads the cases of src/named-runtime-cases.yaml that
// hold for release.
func namedRuntimeCases(release string) ([]admission.SuiteCase, error) {
	list, err := admission.NamedRuntimeCaseFile()
	if err != nil {
		return nil, err
	}
	return admission.SelectionCases(cases.ForRelease(list, release))
}
