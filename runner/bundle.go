package runner

import (
	"fmt"
	"io"

	"github.com/ome-policy/evaluator/admission"
	"github.com/ome-policy/evaluator/cases"
	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/input"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/output"
	"github.com/ome-policy/evaluator/policies/policyset"
)

// BundleInputs are the inputs of an admission bundle's tests, for the
// policies of set: the selection cases of caseFiles and the lint objects of
// lint, with evaluate lint's findings; where a list is nil, the project's
// own, which the binary carries, so that a clone and any other folder make
// the same bundle. Notices of reading the lint objects go to notices.
func BundleInputs(set *policyset.Set, caseFiles, lint []string, notices io.Writer) (admission.Options, error) {
	opts := admission.Options{Policies: set}
	var err error
	if caseFiles != nil {
		for _, f := range caseFiles {
			c, err := cases.ReadCases(f)
			if err != nil {
				return opts, fmt.Errorf("--cases: %w", err)
			}
			opts.SelectionCases = append(opts.SelectionCases, cases.ForRelease(c, set.Release)...)
		}
	} else if opts.SelectionCases, err = admission.ProjectCases(set.Release); err != nil {
		return opts, err
	}
	var objs []*objects.Object
	if lint != nil {
		if len(lint) > 0 {
			if objs, err = objects.Load(lint, objects.LoadOptions{Lenient: true, Notices: notices}); err != nil {
				return opts, fmt.Errorf("--lint: %w", err)
			}
		}
	} else if objs, err = admission.ProjectLintObjects(notices); err != nil {
		return opts, err
	}
	opts.Lint, err = lintForSuite(set, objs)
	return opts, err
}

// lintForSuite lints the models and runtimes of the lint policies' tests
// (the kinds the template reviews; lint's InferenceServices are left out),
// each alone, on the Rego engine, whose policies the template carries.
func lintForSuite(set *policyset.Set, objs []*objects.Object) ([]admission.ObjectFindings, error) {
	objs = input.Only(objs, isModelOrRuntime)
	if len(objs) == 0 {
		return nil, nil
	}
	linter, err := engine.NewLinter(engine.Rego, set)
	if err != nil {
		return nil, err
	}
	return admission.LintEach(linter, objs)
}

func isModelOrRuntime(o *objects.Object) bool { return o.IsModel() || o.IsRuntime() }

// Violations reviews each object alone, as Gatekeeper reviews each object
// at admission, and gives what OMEVersionLint refuses of it at severities;
// refused says whether it refuses any.
func Violations(linter engine.Linter, objs []*objects.Object, severities []string) (report []output.ObjectViolations, refused bool, err error) {
	report = make([]output.ObjectViolations, 0, len(objs))
	for _, o := range objs {
		findings, err := engine.Lint(linter, []*objects.Object{o}, engine.LintOptions{})
		if err != nil {
			return nil, false, err
		}
		v := admission.LintViolations(findings, o, severities...)
		if v == nil {
			v = []string{}
		}
		refused = refused || len(v) > 0
		report = append(report, output.ObjectViolations{Object: objects.RefOf(o), File: o.File, Line: o.Line, Violations: v})
	}
	return report, refused, nil
}
