package output

import (
	"fmt"
	"io"
	"strings"

	"gopkg.in/yaml.v3"
)

// testText prints each failure with what was expected and what came, then
// the line "N passed, M failed".
type testText struct {
	w io.Writer
}

func (t *testText) Write(r TestReport) error {
	// A case that fails alike on several OME releases (the same engine,
	// expectation, result and detail) is printed once, naming them all.
	var releases []string
	for i, c := range r.Cases {
		if c.Passed {
			continue
		}
		text, err := failureText(c)
		if err != nil {
			return err
		}
		releases = append(releases, c.OMEVersion)
		if i+1 < len(r.Cases) {
			if n := r.Cases[i+1]; !n.Passed && n.File == c.File && n.Name == c.Name && n.Engine == c.Engine {
				if next, err := failureText(n); err == nil && next == text {
					continue
				}
			}
		}
		label := runLabel(c.Engine, releases...)
		releases = nil
		if _, err := fmt.Fprintf(t.w, "FAIL %s: %s %s\n", c.File, c.Name, label); err != nil {
			return err
		}
		if _, err := io.WriteString(t.w, indent(text, "  ")); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintf(t.w, "%d passed, %d failed\n", r.Passed, r.Failed)
	return err
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
func failureText(c CaseReport) (string, error) {
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
