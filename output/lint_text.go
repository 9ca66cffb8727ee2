package output

import (
	"fmt"
	"io"
	"strings"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/results"
)

// lintText writes one line per finding, as compilers do:
//
//	file:line: severity [rule] field: message
//
// then a summary line.
type lintText struct {
	w     io.Writer
	style Style
}

func (l *lintText) Write(r results.LintReport) error {
	var b strings.Builder
	for _, f := range r.Findings {
		b.WriteString(findingLine(f, l.style) + "\n")
	}
	for _, f := range r.Ignored {
		f.Message += " (" + IgnoredNote(f) + ")"
		b.WriteString(strings.Replace(findingLine(f, l.style), ": "+l.style.severity(f.Severity)+" [", ": ignored "+f.Severity+" [", 1) + "\n")
	}
	fmt.Fprintf(&b, "%d object(s): %d error(s), %d warning(s), %d info", len(r.Objects),
		r.Count(engine.SeverityError), r.Count(engine.SeverityWarning), r.Count(engine.SeverityInfo))
	if len(r.Ignored) > 0 {
		fmt.Fprintf(&b, "; %d ignored by annotation", len(r.Ignored))
	}
	b.WriteString("\n")
	_, err := io.WriteString(l.w, b.String())
	return err
}

// findingLine is one finding as text: "file:line: severity [rule] field: message"
// (without the line when there is none, as for a file that cannot be
// opened, and without the field when there is none).
func findingLine(f engine.Finding, style Style) string {
	field := ""
	if f.Field != "" {
		field = f.Field + ": "
	}
	return fmt.Sprintf("%s: %s [%s] %s%s", FileLine(f.File, f.Line), style.severity(f.Severity), f.Rule, field, f.Message)
}

// FileLine is "file:line", or "file" when the line is unknown (0)
// (objects.FileLine: "PATH (stdin:line)" for a document of standard input
// that a "# Source:" comment names).
func FileLine(file string, line int) string { return objects.FileLine(file, line) }
