package output

import (
	"fmt"
	"io"
	"strings"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/results"
)

// GitHub Actions workflow commands: each finding or failing case becomes an
// annotation (::error, ::warning or ::notice) on its file and line, which
// GitHub shows on the pull request; a plain summary line ends the output.

// ghData escapes an annotation's message.
func ghData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// ghProperty escapes a property value (file, title), where : and , have a
// meaning too.
func ghProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

func ghCommand(severity string) string {
	switch severity {
	case engine.SeverityError:
		return "error"
	case engine.SeverityWarning:
		return "warning"
	}
	return "notice"
}

// GitHubAnnotation is a workflow command (command: error, warning or
// notice) that annotates a file's line (none when line is 0).
func GitHubAnnotation(command, file string, line int, title, message string) string {
	if path, ok := objects.SourcePath(file); ok {
		// The file that a "# Source:" comment names, whose lines are not
		// standard input's: the title says the place on standard input.
		title += " at " + FileLine(file, line)
		file, line = path, 0
	}
	props := "file=" + ghProperty(file)
	if line > 0 {
		props += fmt.Sprintf(",line=%d", line)
	}
	return fmt.Sprintf("::%s %s,title=%s::%s\n", command, props, ghProperty(title), ghData(message))
}

type lintGitHub struct {
	w       io.Writer
	cluster *results.Cluster // of a fleet's results (fleet.go): named in each annotation
}

// inClusterTitle is what an annotation's title says of a fleet's cluster:
// " in cluster prod"; nothing for one run.
func inClusterTitle(c *results.Cluster) string {
	if c == nil {
		return ""
	}
	return " in cluster " + c.Name
}

func (l *lintGitHub) Write(r results.LintReport) error {
	var b strings.Builder
	for _, f := range r.Findings {
		title, message := f.Rule, f.Message
		if f.Object.Kind != "" {
			title += " (" + RefText(f.Object) + ")"
		}
		title += inClusterTitle(l.cluster)
		if f.Field != "" {
			message = f.Field + ": " + message
		}
		b.WriteString(GitHubAnnotation(ghCommand(f.Severity), f.File, f.Line, title, message))
	}
	if l.cluster != nil {
		b.WriteString("cluster " + l.cluster.Name + ": ")
	}
	fmt.Fprintf(&b, "%d object(s): %d error(s), %d warning(s), %d info\n", len(r.Objects),
		r.Count(engine.SeverityError), r.Count(engine.SeverityWarning), r.Count(engine.SeverityInfo))
	_, err := io.WriteString(l.w, b.String())
	return err
}

type testGitHub struct{ w io.Writer }

func (t *testGitHub) Write(r results.TestReport) error {
	fs, err := failures(r)
	if err != nil {
		return err
	}
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(GitHubAnnotation("error", f.Case.File, f.Case.Line, f.Case.Name+" "+f.Label, f.Text))
	}
	b.WriteString(r.Summary() + "\n")
	_, err = io.WriteString(t.w, b.String())
	return err
}
