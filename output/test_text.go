package output

import (
	"fmt"
	"io"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/ome-policy/evaluator/results"
)

// testText prints each failure with what was expected and what came, then
// the summary line, "N passed, M failed" (TestReport.Summary).
type testText struct {
	w io.Writer
}

func (t *testText) Write(r results.TestReport) error {
	fs, err := failures(r)
	if err != nil {
		return err
	}
	for _, f := range fs {
		if _, err := fmt.Fprintf(t.w, "FAIL %s: %s %s\n", FileLine(f.Case.File, f.Case.Line), f.Case.Name, f.Label); err != nil {
			return err
		}
		if _, err := io.WriteString(t.w, indent(f.Text, "  ")); err != nil {
			return err
		}
	}
	_, err = fmt.Fprintln(t.w, r.Summary())
	return err
}

// failure is how a case failed alike on one or more OME releases: the same
// engine, expectation, result and detail.
type failure struct {
	Case results.CaseReport
	// Label says where: "[both; OME v1.2.2, v0.1.5]".
	Label string
	// Text is what was expected, what came and the detail (failureText).
	Text string
}

// failures are the failures of the report's cases, in order.
func failures(r results.TestReport) ([]failure, error) {
	var out []failure
	for _, c := range r.Cases {
		fs, err := caseFailures(c)
		if err != nil {
			return nil, err
		}
		out = append(out, fs...)
	}
	return out, nil
}

// caseFailures are a case's failing results, those alike one after
// another said once.
func caseFailures(c results.CaseReport) ([]failure, error) {
	var out []failure
	var releases []string
	for i, res := range c.Results {
		if res.Passed {
			continue
		}
		text, err := failureText(res)
		if err != nil {
			return nil, err
		}
		releases = append(releases, res.OMEVersion)
		if i+1 < len(c.Results) {
			if n := c.Results[i+1]; !n.Passed && n.Engine == res.Engine {
				if next, err := failureText(n); err == nil && next == text {
					continue
				}
			}
		}
		out = append(out, failure{Case: c, Label: runLabel(res.Engine, releases...), Text: text})
		releases = nil
	}
	return out, nil
}

// runLabel says where a case ran: "[both]", "[cel; OME v1.2.2]", or for
// runs that failed alike "[both; OME v1.2.2, v0.1.5]".
func runLabel(engine string, releases ...string) string {
	if len(releases) == 0 || releases[0] == "" {
		return "[" + engine + "]"
	}
	return "[" + engine + "; OME " + strings.Join(releases, ", ") + "]"
}

// failureText says what a failing case expected and what it got, in YAML,
// and the detail, as lines:
//
//	expected:
//	  compatible: true
//	got:
//	  ...
//	detail: ...
func failureText(c results.CaseResult) (string, error) {
	var out strings.Builder
	for _, part := range []struct {
		label string
		value any
	}{{"expected", c.Expected}, {"got", c.Got}} {
		if part.value == nil {
			continue
		}
		var node yaml.Node
		if err := node.Encode(part.value); err != nil {
			return "", err
		}
		quoteReadably(&node)
		var b strings.Builder
		enc := yaml.NewEncoder(&b)
		enc.SetIndent(2)
		if err := enc.Encode(&node); err != nil {
			return "", err
		}
		fmt.Fprintf(&out, "%s:\n%s", part.label, indent(b.String(), "  "))
	}
	if c.Detail != "" {
		fmt.Fprintf(&out, "detail: %s\n", c.Detail)
	}
	return out.String(), nil
}

func indent(s, prefix string) string {
	if s == "" {
		return ""
	}
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		b.WriteString(prefix + line + "\n")
	}
	return b.String()
}

// quoteReadably writes strings that hold a single quote, as OME's reasons
// do, in double quotes, so they read as they are rather than with each
// quote doubled.
func quoteReadably(n *yaml.Node) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!str" && strings.Contains(n.Value, "'") {
		n.Style = yaml.DoubleQuotedStyle
	}
	for _, c := range n.Content {
		quoteReadably(c)
	}
}
