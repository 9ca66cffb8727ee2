package output

import (
	"fmt"
	"io"
	"strings"

	"github.com/ome-policy/evaluator/diff"
)

// diffText writes the regressions first (models left with no runtime,
// InferenceServices routed elsewhere or refused), then the other changes,
// the refusals that read differently apart, one line for the objects that
// move no decision, and the counts.
type diffText struct{ w io.Writer }

func (d *diffText) Write(r *diff.Report, sides DiffSides) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s -> %s\n", sides.Old, sides.New)
	section := func(title string, models []diff.ModelChange) {
		if len(models) == 0 {
			return
		}
		fmt.Fprintf(&b, "\n%s:\n", title)
		for _, m := range models {
			fmt.Fprintf(&b, "  %s", refText(m.Model))
			if w := modelWord(m); w != "" {
				fmt.Fprintf(&b, " (%s)", w)
			}
			b.WriteString("\n")
			for _, g := range m.Gained {
				fmt.Fprintf(&b, "    + %s (%s)\n", refText(g.Runtime), runtimeWord(g))
			}
			for _, l := range m.Lost {
				fmt.Fprintf(&b, "    - %s (%s)", refText(l.Runtime), runtimeWord(l))
				if l.Reason != "" {
					fmt.Fprintf(&b, ": %s", l.Reason)
				}
				b.WriteString("\n")
			}
			if m.NoRuntime && len(m.Lost) == 0 {
				b.WriteString("    no runtime that OME pairs it with is compatible\n")
			}
		}
	}
	var flagged, others []diff.ModelChange
	for _, m := range r.Models {
		if m.Regression {
			flagged = append(flagged, m)
		} else {
			others = append(others, m)
		}
	}
	services := func(title string, which func(diff.ServiceChange) bool) {
		first := true
		for _, sc := range r.InferenceServices {
			if !which(sc) {
				continue
			}
			if first {
				fmt.Fprintf(&b, "\n%s:\n", title)
				first = false
			}
			fmt.Fprintf(&b, "  %s\n    %s\n", refText(sc.InferenceService), serviceText(sc))
		}
	}
	section("Models left with no compatible runtime", flagged)
	services("InferenceServices routed elsewhere or refused", func(sc diff.ServiceChange) bool { return sc.Regression })
	section("Models that gain or lose a runtime", others)
	services("Other InferenceService decisions that changed", func(sc diff.ServiceChange) bool {
		return !sc.Regression && sc.Change != diff.ServiceMessage
	})
	services("Refusals that read differently", func(sc diff.ServiceChange) bool { return sc.Change == diff.ServiceMessage })
	b.WriteString("\n")
	if len(r.Unmoved) > 0 {
		fmt.Fprintf(&b, "Objects that move no decision: %s\n", unmovedText(r.Unmoved))
	}
	s := Summarize(r)
	if s.Changes == 0 {
		b.WriteString("No decision changed.\n")
	}
	fmt.Fprintf(&b, "%s; %s\n", countText(s), workText(r.Work))
	_, err := io.WriteString(d.w, b.String())
	return err
}
