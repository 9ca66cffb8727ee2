package gatekeeper

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/ome-policy/evaluator/cases"
	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/objects"
)

// The gator suites: <template>/suite.yaml with a folder of objects per
// case, for `gator verify`. A suite has Tests of a template and a
// constraint, each with Cases that review one object with some objects in
// data.inventory and assert the violations.

// selectionSuite writes OMERuntimeSelection's suite: the default test of
// the selection cases, and the validate-named-runtime test of the cases of
// src/named-runtime-cases.yaml that hold for release.
func selectionSuite(selection []cases.Case, release string) (Bundle, error) {
	defaults, err := SelectionCases(selection)
	if err != nil {
		return nil, err
	}
	named, err := namedRuntimeCases(release)
	if err != nil {
		return nil, err
	}
	b := Bundle{}
	b.add("omeruntimeselection", suiteFiles("omeruntimeselection", []SuiteTest{
		{Name: "default", Template: "template.yaml", Constraint: "samples/default/constraint.yaml", CaseDir: "samples/default", Cases: defaults},
		{Name: "validate-named-runtime", Template: "template.yaml", Constraint: "samples/validate-named-runtime/constraint.yaml", CaseDir: "samples/validate-named-runtime", Cases: named},
	}))
	return b, nil
}

// lintSuite writes OMEVersionLint's suite: a case per object, in the
// deny-errors test with its error violations and in the warn-warnings test
// with its warning violations.
func lintSuite(linted []ObjectFindings) Bundle {
	var errs, warns []SuiteCase
	for _, l := range linted {
		o := l.Object
		errors, warnings := LintViolations(l.Findings, o, engine.SeverityError), LintViolations(l.Findings, o, engine.SeverityWarning)
		name := fmt.Sprintf("%s %s (%s)", o.Kind, o.Name, path.Base(o.File))
		errs = append(errs, SuiteCase{Name: name, Object: deepCopy(o.Value), Messages: errors})
		warns = append(warns, SuiteCase{Name: name, Object: deepCopy(o.Value), Messages: warnings})
	}
	b := Bundle{}
	b.add("omeversionlint", suiteFiles("omeversionlint", []SuiteTest{
		{Name: "deny-errors", Template: "template.yaml", Constraint: "samples/deny-errors/constraint.yaml", CaseDir: "samples/deny-errors", Cases: errs},
		{Name: "warn-warnings", Template: "template.yaml", Constraint: "samples/warn-warnings/constraint.yaml", CaseDir: "samples/warn-warnings", Cases: warns},
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
		return seq(mapping("violations", "no"))
	}
	out := seq(mapping("violations", len(msgs)))
	counts := map[string]int{}
	var order []string
	for _, m := range msgs {
		if counts[m] == 0 {
			order = append(order, m)
		}
		counts[m]++
	}
	for _, m := range order {
		out.Content = append(out.Content, mapping("violations", counts[m], "message", "^"+regexp.QuoteMeta(m)+"$"))
	}
	return out
}

// SuiteCase is one gator case: the object to review, the inventory, and
// the messages of the violations it must give (none when admitted).
type SuiteCase struct {
	Name      string
	Object    map[string]any
	Inventory []map[string]any
	Messages  []string
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
	Cases   []SuiteCase
}

// suiteFiles writes a suite.yaml and the objects of its cases.
func suiteFiles(header string, tests []SuiteTest) Bundle {
	b := Bundle{}
	var nodes []*yaml.Node
	for _, t := range tests {
		var cases []*yaml.Node
		for i, c := range t.Cases {
			dir := path.Join(t.CaseDir, fmt.Sprintf("%03d-%s", i+1, slug(c.Name)))
			b[path.Join(dir, "object.yaml")] = document(value(c.Object))
			var inventory []string
			if len(c.Inventory) > 0 {
				docs := make([]*yaml.Node, len(c.Inventory))
				for j, o := range c.Inventory {
					docs[j] = value(o)
				}
				b[path.Join(dir, "inventory.yaml")] = document(docs...)
				inventory = []string{path.Join(dir, "inventory.yaml")}
			}
			var inv *yaml.Node
			if inventory != nil {
				inv = seq(str(inventory[0]))
			}
			cases = append(cases, mapping(
				"name", c.Name,
				"object", path.Join(dir, "object.yaml"),
				"inventory", inv,
				"assertions", Assertions(c.Messages),
			))
		}
		nodes = append(nodes, mapping(
			"name", t.Name,
			"template", t.Template,
			"constraint", t.Constraint,
			"cases", seq(cases...),
		))
	}
	suite := mapping(
		"apiVersion", "test.gatekeeper.sh/v1alpha1",
		"kind", "Suite",
		"metadata", mapping("name", header),
		"tests", seq(nodes...),
	)
	b["suite.yaml"] = document(withComment(suite, "Generated by `evaluate gatekeeper` (make gatekeeper). Do not edit.\nRun: gator verify "+"<this folder>"))
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

// SelectionCases turns selection cases into gator cases: the
// InferenceService is the object under review and the case's models and
// runtimes are the inventory (one per kind, namespace and name, the later
// one kept, as applying them would leave them; gator syncs an object that
// says a namespace under that namespace, even a cluster-scoped one, and
// the template looks for cluster-scoped objects there too). A case expects
// no violation when the case expects an admission, and exactly its message
// otherwise.
func SelectionCases(cases []cases.Case) ([]SuiteCase, error) {
	var out []SuiteCase
	for _, c := range cases {
		if c.InferenceService == nil {
			continue
		}
		sc := SuiteCase{Name: c.Name, Object: deepCopy(c.InferenceService.Value)}
		kept, _ := objects.Deduplicate(c.Objects)
		for _, o := range kept {
			sc.Inventory = append(sc.Inventory, deepCopy(o.Value))
		}
		if c.Expect.Admitted == nil {
			return nil, fmt.Errorf("%s: case %q expects no verdict", c.File, c.Name)
		}
		if !*c.Expect.Admitted {
			if c.Expect.Message == nil {
				return nil, fmt.Errorf("%s: case %q expects a rejection without a message", c.File, c.Name)
			}
			sc.Messages = []string{*c.Expect.Message}
		}
		out = append(out, sc)
	}
	return out, nil
}

// SelectionSuite converts selection cases into a gator suite of its own,
// to be written to the folder suiteDir, for OMERuntimeSelection's template
// and default constraint in the bundle folder templatesDir.
func SelectionSuite(name string, cases []cases.Case, suiteDir, templatesDir string) (Bundle, error) {
	sc, err := SelectionCases(cases)
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
	return suiteFiles(name, []SuiteTest{{Name: name, Template: tpl, Constraint: con, CaseDir: "cases", Cases: sc}}), nil
}

// namedRuntimeCases reads the cases of src/named-runtime-cases.yaml that
// hold for release.
func namedRuntimeCases(release string) ([]SuiteCase, error) {
	list, err := NamedRuntimeCaseFile()
	if err != nil {
		return nil, err
	}
	return SelectionCases(cases.ForRelease(list, release))
}

// NamedRuntimeCaseFile reads the cases of the validate-named-runtime test
// (src/named-runtime-cases.yaml): their expect is the constraint's verdict
// with validateNamedRuntime: true, not the webhook's.
func NamedRuntimeCaseFile() ([]cases.Case, error) {
	data, err := fs.ReadFile(sources, "src/named-runtime-cases.yaml")
	if err != nil {
		return nil, err
	}
	// The list is called validateNamedRuntimeCases, so that `evaluate test`
	// does not run it as webhook cases; as cases, it reads like any other.
	data = bytes.Replace(data, []byte("\nvalidateNamedRuntimeCases:"), []byte("\ncases:"), 1)
	return cases.ParseCases("policies/gatekeeper/src/named-runtime-cases.yaml", data)
}

// deepCopy copies a decoded object through JSON, which also turns every
// value into the types Gatekeeper's input holds.
func deepCopy(v map[string]any) map[string]any {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		panic(err)
	}
	return out
}
