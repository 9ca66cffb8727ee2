package runner

import (
	"github.com/ome-policy/evaluator/admission"
	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/results"
)

// Violations reviews each object alone, as Gatekeeper reviews each object
// at admission, and gives what OMEVersionLint refuses of it at severities;
// refused says whether it refuses any.
func Violations(linter engine.Linter, objs []*objects.Object, severities []string) (report []results.ObjectViolations, refused bool, err error) {
	report = make([]results.ObjectViolations, 0, len(objs))
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
		report = append(report, results.ObjectViolations{Object: objects.RefOf(o), File: o.File, Line: o.Line, Violations: v})
	}
	return report, refused, nil
}
