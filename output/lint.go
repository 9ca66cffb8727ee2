package output

import (
	"io"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/results"
)

// LintWriter writes a whole lint report.
type LintWriter interface {
	Write(r results.LintReport) error
}

// LintFormats lists the -o values of lint.
var LintFormats = []string{"text", "json", "yaml", "sarif", "junit", "github", "policyreport"}

// NewLintWriter returns the writer for format; style applies to text only.
func NewLintWriter(format string, w io.Writer, style Style) (LintWriter, error) {
	switch format {
	case "text":
		return &lintText{w: w, style: style}, nil
	case "json":
		return &lintJSON{w: w}, nil
	case "yaml":
		return &lintYAML{w: w}, nil
	case "sarif":
		return &lintSARIF{w: w}, nil
	case "junit":
		return &lintJUnit{w: w}, nil
	case "github":
		return &lintGitHub{w: w}, nil
	case "policyreport":
		return &lintPolicyReport{w: w}, nil
	}
	return nil, UnknownFormat(format, LintFormats)
}

// IgnoredNote is what lint says of a finding that an object's ignore
// annotation turns off: admission still acts on it.
func IgnoredNote(f engine.Finding) string {
	does := "refuses the object"
	if f.Severity != engine.SeverityError {
		does = "warns of it"
	}
	return "turned off by the object's " + engine.IgnoreAnnotation + " annotation for lint only: admission still " + does
}
