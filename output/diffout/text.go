package diffout

import (
	"fmt"
	"io"
	"strings"

	"github.com/ome-policy/evaluator/diff"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/output"
)

// diffText writes the regressions first (models left with no runtime,
// InferenceServices routed elsewhere or refused), then the other changes,
// each with its verdict or decision on both sides (and, for an upgrade of
// OME, the rule that moved it), the verdicts that hold in other words
// apart (listed with ShowReasons), one line for the objects that move no
// decision, and the counts.
type diffText struct{ w io.Writer }

func (d *diffText) Write(r *diff.Report, sides Sides) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s -> %s\n", sides.Old, sides.New)
	labels := sides.labels()
	width := max(len(labels[0]), len(labels[1]), len("rule")) + 1
	// both writes a change's two sides and its rule, under its line.
	both := func(indent string, s [2]string, rule string) {
		for i, text := range s {
			if text != "" {
				fmt.Fprintf(&b, "%s%-*s %s\n", indent, width, labels[i]+":", text)
			}
		}
		if rule != "" {
			fmt.Fprintf(&b, "%s%-*s %s\n", indent, width, "rule:", rule)
		}
	}
	runtimes := func(mark string, l []diff.RuntimeChange, gained bool) {
		for _, rc := range l {
			fmt.Fprintf(&b, "    %s %s (%s)\n", mark, output.RefText(rc.Runtime), runtimeWord(rc))
			both("        ", pairSides(rc, gained), rc.Rule)
		}
	}
	section := func(title string, models []diff.ModelChange, reworded bool) {
		if len(models) == 0 {
			return
		}
		fmt.Fprintf(&b, "\n%s:\n", title)
		for _, m := range models {
			fmt.Fprintf(&b, "  %s", output.RefText(m.Model))
			if w := modelWord(m); w != "" {
				fmt.Fprintf(&b, " (%s)", w)
			}
			b.WriteString("\n")
			if reworded {
				runtimes("~", m.Reworded, false)
				continue
			}
			runtimes("+", m.Gained, true)
			runtimes("-", m.Lost, false)
			if m.NoRuntime && len(m.Lost) == 0 {
				b.WriteString("    no runtime that OME pairs it with is compatible\n")
			}
		}
	}
	var flagged, others, reworded []diff.ModelChange
	for _, m := range r.Models {
		switch {
		case m.Regression:
			flagged = append(flagged, m)
		case m.VerdictChanged():
			others = append(others, m)
		}
		if len(m.Reworded) > 0 {
			reworded = append(reworded, m)
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
			fmt.Fprintf(&b, "  %s\n", output.RefText(sc.InferenceService))
			if sc.Change == diff.ServiceAdded {
				fmt.Fprintf(&b, "    %s\n", serviceText(sc))
				continue
			}
			both("    ", serviceSides(sc), sc.Rule)
		}
	}
	// ruleSection lists the findings of a team's rules that which keeps,
	// under each object.
	ruleSection := func(title string, which func(diff.RuleChange) bool) {
		var last *objects.Ref
		for _, rc := range r.Rules {
			if !which(rc) {
				continue
			}
			if last == nil {
				fmt.Fprintf(&b, "\n%s:\n", title)
			}
			if last == nil || *last != rc.Object {
				fmt.Fprintf(&b, "  %s\n", output.RefText(rc.Object))
				last = &rc.Object
			}
			fmt.Fprintf(&b, "    %s\n", ruleChangeText(rc))
		}
	}
	section("Models left with no compatible runtime", flagged, false)
	services("InferenceServices routed elsewhere or refused", func(sc diff.ServiceChange) bool { return sc.Regression })
	ruleSection("Errors of --rules that the change makes", func(rc diff.RuleChange) bool { return rc.Regression })
	section("Models that gain or lose a runtime", others, false)
	services("Other InferenceService decisions that changed", func(sc diff.ServiceChange) bool {
		return !sc.Regression && sc.Change != diff.ServiceMessage
	})
	ruleSection("Other findings of --rules made (+) or cleared (-)", func(rc diff.RuleChange) bool { return !rc.Regression })
	s := Summarize(r)
	if sides.ShowReasons {
		section("Reasons that read differently (not compatible before and after)", reworded, true)
		services("Refusals that read differently", func(sc diff.ServiceChange) bool { return sc.Change == diff.ServiceMessage })
	}
	b.WriteString("\n")
	if !sides.ShowReasons && s.ReasonChanges > 0 {
		fmt.Fprintf(&b, "Verdicts that hold in other words: %s, %s; --show-reasons lists them\n", counted(s.Reworded, "pair"), counted(s.Refusals, "refusal"))
	}
	if len(r.Unmoved) > 0 {
		fmt.Fprintf(&b, "Objects that move no decision: %s\n", unmovedText(r.Unmoved))
	}
	if s.Changes == 0 {
		b.WriteString("No decision changed.\n")
	}
	fmt.Fprintf(&b, "%s; %s\n", countText(s), workText(r.Work))
	_, err := io.WriteString(d.w, b.String())
	return err
}
