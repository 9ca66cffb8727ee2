package gatekeeper

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/ome-policy/evaluator/cases"
	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/engine/policyset"
	"github.com/ome-policy/evaluator/objects"
)

// Options are the inputs of Generate.
type Options struct {
	// Policies are the Rego policies the templates are generated from.
	Policies *policyset.Set
	// SelectionCases become the default test of OMERuntimeSelection's
	// suite (the project uses testdata/cases/spec-selection.yaml, which
	// covers every step and message of OME's webhook, and
	// gatekeeper-selection.yaml and namespaces.yaml).
	SelectionCases []cases.Case
	// LintObjects become the cases of OMEVersionLint's suite, with what
	// `evaluate lint` finds in each (the project uses testdata/lint).
	LintObjects []*objects.Object
}

// Generate writes the Gatekeeper bundle, relative to its folder
// (policies/gatekeeper): per template, template.yaml, the sample
// constraints under samples/ with the objects of the suite's cases, and
// suite.yaml for `gator verify`; sync.yaml; and kustomization.yaml.
func Generate(opts Options) (Bundle, error) {
	templates, err := Templates(opts.Policies)
	if err != nil {
		return nil, err
	}
	b := Bundle{"sync.yaml": syncYAML()}
	for _, t := range templates {
		b[path.Join(t.Name, "template.yaml")] = templateYAML(t)
	}

	// OMERuntimeSelection: OME's verdict, and the named-runtime check.
	sel := Bundle{}
	sel["samples/default/constraint.yaml"] = constraintYAML("OMERuntimeSelection", "ome-runtime-selection", "deny",
		"Reject InferenceServices as OME's admission webhook does, with OME's message.",
		[]string{"InferenceService"}, mapping("validateNamedRuntime", false))
	sel["samples/validate-named-runtime/constraint.yaml"] = constraintYAML("OMERuntimeSelection", "ome-runtime-selection-named", "deny",
		"Also reject an InferenceService whose named runtime OME's controller will refuse.",
		[]string{"InferenceService"}, mapping("validateNamedRuntime", true))
	defaults, err := SelectionCases(opts.SelectionCases)
	if err != nil {
		return nil, err
	}
	named, err := namedRuntimeCases()
	if err != nil {
		return nil, err
	}
	sel.add("", suiteFiles("omeruntimeselection", []SuiteTest{
		{Name: "default", Template: "template.yaml", Constraint: "samples/default/constraint.yaml", CaseDir: "samples/default", Cases: defaults},
		{Name: "validate-named-runtime", Template: "template.yaml", Constraint: "samples/validate-named-runtime/constraint.yaml", CaseDir: "samples/validate-named-runtime", Cases: named},
	}))
	b.add("omeruntimeselection", sel)

	// OMEVersionLint: errors denied, warnings warned.
	lint := Bundle{}
	kinds := OMEKinds
	lint["samples/deny-errors/constraint.yaml"] = constraintYAML("OMEVersionLint", "ome-version-lint-errors", "deny",
		"Refuse models and runtimes with lint errors: versions, operators and formats that can never match.",
		kinds, mapping("severities", []string{"error"}))
	lint["samples/warn-warnings/constraint.yaml"] = constraintYAML("OMEVersionLint", "ome-version-lint-warnings", "warn",
		"Warn about models and runtimes with lint warnings, such as an ordering operator on a version with a suffix.",
		kinds, mapping("severities", []string{"warning"}))
	errs, warns, err := lintCases(opts.Policies, opts.LintObjects)
	if err != nil {
		return nil, err
	}
	lint.add("", suiteFiles("omeversionlint", []SuiteTest{
		{Name: "deny-errors", Template: "template.yaml", Constraint: "samples/deny-errors/constraint.yaml", CaseDir: "samples/deny-errors", Cases: errs},
		{Name: "warn-warnings", Template: "template.yaml", Constraint: "samples/warn-warnings/constraint.yaml", CaseDir: "samples/warn-warnings", Cases: warns},
	}))
	b.add("omeversionlint", lint)
	b["kustomization.yaml"] = gatekeeperKustomization()
	return b, nil
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

func constraintYAML(kind, name, action, description string, kinds []string, params *yaml.Node) []byte {
	doc := mapping(
		"apiVersion", "constraints.gatekeeper.sh/v1beta1",
		"kind", kind,
		"metadata", mapping("name", name),
		"spec", mapping(
			"enforcementAction", action,
			"match", mapping("kinds", seq(mapping("apiGroups", []string{"ome.io"}, "kinds", kinds))),
			"parameters", params,
		),
	)
	return document(withComment(doc, "Generated by `evaluate gatekeeper` (make gatekeeper). Do not edit.\n"+description))
}

// namedRuntimeCases reads src/named-runtime-cases.yaml.
func namedRuntimeCases() ([]SuiteCase, error) {
	cases, err := NamedRuntimeCaseFile()
	if err != nil {
		return nil, err
	}
	return SelectionCases(cases)
}

// NamedRuntimeCaseFile reads the cases of the validate-named-runtime test
// (src/named-runtime-cases.yaml): their expect is the constraint's verdict
// with validateNamedRuntime: true, not the webhook's.
func NamedRuntimeCaseFile() ([]cases.Case, error) {
	data, err := fs.ReadFile(sources, "src/named-runtime-cases.yaml")
	if err != nil {
		return nil, err
	}
	f, err := os.CreateTemp("", "named-runtime-cases-*.yaml")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	// The list is called validateNamedRuntimeCases, so that `evaluate test`
	// does not run it as webhook cases; as cases, it reads like any other.
	data = bytes.Replace(data, []byte("\nvalidateNamedRuntimeCases:"), []byte("\ncases:"), 1)
	if _, err := f.Write(data); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	return cases.ReadCases(f.Name())
}

// LintRules are the rules OMEVersionLint applies: the single-object rules
// of `evaluate lint` that make sense at admission.
var LintRules = []string{
	"invalid-version", "empty-version", "unknown-operator", "missing-format", "missing-framework",
	"incomplete-size-range", "ordering-operator-with-suffix", "operator-without-version", "ignored-field",
	"name-case",
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

func lintCases(set *policyset.Set, objs []*objects.Object) (errs, warns []SuiteCase, err error) {
	if len(objs) == 0 {
		return nil, nil, nil
	}
	linter, err := engine.NewLinter(engine.Rego, set)
	if err != nil {
		return nil, nil, err
	}
	for _, o := range objs {
		findings, err := engine.Lint(linter, []*objects.Object{o}, engine.LintOptions{})
		if err != nil {
			return nil, nil, fmt.Errorf("lint %s: %w", o.Ref(), err)
		}
		name := fmt.Sprintf("%s %s (%s)", o.Kind, o.Name, path.Base(o.File))
		errs = append(errs, SuiteCase{Name: name, Object: deepCopy(o.Value), Messages: LintViolations(findings, o, engine.SeverityError)})
		warns = append(warns, SuiteCase{Name: name, Object: deepCopy(o.Value), Messages: LintViolations(findings, o, engine.SeverityWarning)})
	}
	return errs, warns, nil
}
