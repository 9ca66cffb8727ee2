package output

import (
	"fmt"
	"io"
	"strings"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/results"
)

// explainText writes a block per model and runtime: OME's verdict and
// reason, then evaluate's checks: the runtime's, then each entry's with the
// details and the fix of each, and what to do when the model is refused.
// Only what follows "OME:" is OME's text, as the release words it.
type explainText struct {
	w       io.Writer
	style   Style
	release string
}

func (x *explainText) Write(es []engine.Explanation, _ []results.Problem) error {
	var b strings.Builder
	for i, e := range es {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%s against %s\n", RefText(e.Model), RefText(e.Runtime))
		if e.Compatible {
			fmt.Fprintf(&b, "  verdict: %s\n", x.style.verdict(true, "compatible"))
		} else {
			fmt.Fprintf(&b, "  verdict: %s\n  OME:     %s\n", x.style.verdict(false, "not compatible"), e.Reason)
		}
		if e.ReasonRule != "" {
			fmt.Fprintf(&b, "  note:    OME %s %s\n", x.release, e.ReasonRule)
		}
		fmt.Fprintf(&b, "\n  evaluate's checks, by OME %s's rules:\n\n  runtime\n", x.release)
		x.checks(&b, e.RuntimeChecks)
		for _, n := range e.Notes {
			fmt.Fprintf(&b, "    note: %s\n", n)
		}
		if t := e.Tie; t != nil {
			fmt.Fprintf(&b, "    %s\n", ExplainTieText(e.Runtime, *t))
		}
		if len(e.Entries) == 0 {
			b.WriteString("\n  no entries: spec.supportedModelFormats is empty, so the runtime supports no model\n")
		}
		for _, en := range e.Entries {
			switch {
			case en.Matched:
				fmt.Fprintf(&b, "\n  entry %d: %s\n", en.Index, x.style.verdict(true, "matches"))
			case len(en.Differences) == 0:
				fmt.Fprintf(&b, "\n  entry %d: %s\n", en.Index, x.style.verdict(false, "no match"))
			default:
				fmt.Fprintf(&b, "\n  entry %d: %s (OME: %s)\n", en.Index, x.style.verdict(false, "no match"), strings.Join(en.Differences, ", "))
			}
			x.checks(&b, en.Checks)
		}
		if len(e.Advice) > 0 {
			b.WriteString("\n  to fix:\n")
			for _, a := range e.Advice {
				fmt.Fprintf(&b, "    - %s\n", a)
			}
		}
	}
	_, err := io.WriteString(x.w, b.String())
	return err
}

// checks writes "PASS name  summary" lines, each with its details and fix
// indented under the summary.
func (x *explainText) checks(b *strings.Builder, cs []engine.Check) {
	width := 0
	for _, c := range cs {
		width = max(width, len(c.Check))
	}
	pad := strings.Repeat(" ", 4+4+1+width+2)
	for _, c := range cs {
		mark := x.style.verdict(c.Passed, map[bool]string{true: "PASS", false: "FAIL"}[c.Passed])
		fmt.Fprintf(b, "    %s %-*s  %s\n", mark, width, c.Check, c.Summary)
		for _, d := range c.Details {
			fmt.Fprintf(b, "%s%s\n", pad, d)
		}
		if c.Fix != "" {
			fmt.Fprintf(b, "%sfix: %s\n", pad, c.Fix)
		}
	}
}
