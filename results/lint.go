package results

import "github.com/ome-policy/evaluator/engine"

// LintReport is the outcome of `evaluate lint`: the findings, sorted by
// file, line and rule. Only OMEVersion and Findings are part of the JSON and
// YAML documents.
type LintReport struct {
	// OMEVersion is the OME release whose rules gave the findings.
	OMEVersion string           `json:"omeVersion" yaml:"omeVersion"`
	Findings   []engine.Finding `json:"findings" yaml:"findings"`
	// Ignored are the findings that an object's own ignore annotation
	// (evaluate.ome.io/ignore) turns off: lint leaves them out of the
	// run's verdict, but admission still refuses or warns of them, since
	// an object never exempts itself there.
	Ignored []engine.Finding `json:"ignored,omitempty" yaml:"ignored,omitempty"`
	// Objects are the models and runtimes that were read, in input order.
	Objects []LintedObject `json:"-" yaml:"-"`
	// FailOnWarn makes warnings fail the run, as errors always do.
	FailOnWarn bool `json:"-" yaml:"-"`
	// Rules describe the rules, for the formats that carry descriptions
	// (sarif).
	Rules []engine.Rule `json:"-" yaml:"-"`
}

// AnyFails reports whether some finding fails the run (Fails).
func (r LintReport) AnyFails() bool {
	for _, f := range r.Findings {
		if r.Fails(f) {
			return true
		}
	}
	return false
}

// Fails reports whether a finding fails the run: an error, or a warning
// with --fail-on-warn.
func (r LintReport) Fails(f engine.Finding) bool {
	return f.Severity == engine.SeverityError || r.FailOnWarn && f.Severity == engine.SeverityWarning
}

// Count returns how many findings have the severity.
func (r LintReport) Count(severity string) int {
	n := 0
	for _, f := range r.Findings {
		if f.Severity == severity {
			n++
		}
	}
	return n
}

// LintedObject is one model or runtime that lint read.
type LintedObject = engine.LintedObject

// FindingsOf returns the findings about o, in report order.
func (r LintReport) FindingsOf(o LintedObject) []engine.Finding {
	var out []engine.Finding
	for _, f := range r.Findings {
		if f.Object == o.Ref && f.File == o.File && f.ObjectLine == o.Line {
			out = append(out, f)
		}
	}
	return out
}
