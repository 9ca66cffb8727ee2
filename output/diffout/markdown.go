package diffout

import (
	"fmt"
	"io"
	"strings"

	"github.com/ome-policy/evaluator/diff"
	"github.com/ome-policy/evaluator/output"
)

// Marker is the first line of -o markdown: a CI job that posts the
// report as a pull request's comment finds its earlier comment by it, and
// edits that one.
const Marker = "<!-- evaluate diff -->"

// diffMarkdown writes a pull request's comment: a short summary table,
// then the details in <details> blocks, the regressions' open.
type diffMarkdown struct{ w io.Writer }

// mdCell makes text safe in a table cell: no HTML, no cell break, one line.
func mdCell(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "|", "\\|", "\r", " ", "\n", " ").Replace(s)
}

func mdRef(r diff.ObjectChange) string { return "`" + mdCell(output.RefText(r.Ref)) + "`" }

func (d *diffMarkdown) Write(r *diff.Report, sides Sides) error {
	var b strings.Builder
	s := Summarize(r)
	if !sides.later {
		b.WriteString(Marker + "\n")
	}
	if sides.Cluster != nil {
		fmt.Fprintf(&b, "### What this change does to OME's decisions in %s\n\n`%s` → `%s`\n\n", mdCell(sides.Cluster.Header()), mdCell(sides.Old), mdCell(sides.New))
	} else {
		fmt.Fprintf(&b, "### What this change does to OME's decisions\n\n`%s` → `%s`\n\n", mdCell(sides.Old), mdCell(sides.New))
	}
	switch {
	case s.Regressions > 0 && s.RulesErrors > 0:
		fmt.Fprintf(&b, "**%s**: models left with no compatible runtime, InferenceServices that OME would route elsewhere or refuse, or errors of the team's rules (--rules).\n\n", counted(s.Regressions, "regression"))
	case s.Regressions > 0:
		fmt.Fprintf(&b, "**%s**: models left with no compatible runtime, or InferenceServices that OME would route elsewhere or refuse.\n\n", counted(s.Regressions, "regression"))
	case s.VerdictChanges > 0 || s.RulesMade+s.RulesCleared > 0:
		b.WriteString("No regression; some decisions change.\n\n")
	case s.ReasonChanges > 0:
		b.WriteString("No decision changes; some read differently.\n\n")
	default:
		b.WriteString("No decision changes.\n\n")
	}
	b.WriteString("| | |\n|---|--:|\n")
	type row struct {
		what string
		n    int
	}
	rows := []row{
		{"Models left with no compatible runtime", s.NoRuntime},
		{"Other models that gain or lose a runtime", s.Models},
		{"InferenceServices routed elsewhere or refused", s.Rerouted},
		{"Other InferenceService decisions changed", s.Services},
		{"Refusals that read differently", s.Refusals},
		{"Pairs not compatible before and after whose reason reads differently", s.Reworded},
		{"Objects added, removed or changed that move no decision", s.Unmoved},
	}
	if r.Rules != nil { // a team's rules judged the sides
		rows = append(rows, row{"Findings of --rules made (errors among them are regressions)", s.RulesMade}, row{"Findings of --rules cleared", s.RulesCleared})
	}
	for _, row := range rows {
		fmt.Fprintf(&b, "| %s | %d |\n", row.what, row.n)
	}
	details := func(open bool, title string, n int, body func()) {
		if n == 0 {
			return
		}
		attr := ""
		if open {
			attr = " open"
		}
		fmt.Fprintf(&b, "\n<details%s><summary>%s (%d)</summary>\n\n", attr, title, n)
		body()
		b.WriteString("\n</details>\n")
	}
	// Each change's two sides, and for an upgrade the rule that moved it.
	head := "| Before | After |"
	rule := func(r string) string { return "" }
	if sides.upgrade() {
		head = fmt.Sprintf("| OME %s | OME %s | Rule |", mdCell(sides.OMEVersion), mdCell(sides.ToOMEVersion))
		rule = func(r string) string { return " " + mdCell(r) + " |" }
	}
	cells := func(two [2]string) string {
		for i := range two {
			if two[i] == "" {
				two[i] = "(not there)"
			}
		}
		return mdCell(two[0]) + " | " + mdCell(two[1])
	}
	models := func(which func(diff.ModelChange) bool, reworded bool) func() {
		return func() {
			fmt.Fprintf(&b, "| Model | | Runtime %s\n|---|---|---%s\n", head, strings.Repeat("|---", strings.Count(head, "|")-1)+"|")
			for _, m := range r.Models {
				if !which(m) {
					continue
				}
				name := "`" + mdCell(output.RefText(m.Model)) + "`"
				if w := modelWord(m); w != "" {
					name += " (" + w + ")"
				}
				row := func(verb string, rc diff.RuntimeChange, gained bool) {
					fmt.Fprintf(&b, "| %s | %s | `%s` (%s) | %s |%s\n", name, verb, mdCell(output.RefText(rc.Runtime)), runtimeWord(rc), cells(pairSides(rc, gained)), rule(rc.Rule))
					name = ""
				}
				if reworded {
					for _, rc := range m.Reworded {
						row("reads differently", rc, false)
					}
					continue
				}
				if len(m.Gained)+len(m.Lost) == 0 {
					fmt.Fprintf(&b, "| %s | | none compatible | | |%s\n", name, rule(""))
				}
				for _, g := range m.Gained {
					row("gains", g, true)
				}
				for _, l := range m.Lost {
					row("loses", l, false)
				}
			}
		}
	}
	details(true, "Models left with no compatible runtime", s.NoRuntime, models(func(m diff.ModelChange) bool { return m.Regression }, false))
	details(false, "Models that gain or lose a runtime", s.Models, models(func(m diff.ModelChange) bool { return !m.Regression && m.VerdictChanged() }, false))
	services := func(reworded bool) func() {
		return func() {
			fmt.Fprintf(&b, "| InferenceService %s\n|---%s\n", head, strings.Repeat("|---", strings.Count(head, "|")-1)+"|")
			for _, sc := range r.InferenceServices {
				if (sc.Change == diff.ServiceMessage) != reworded {
					continue
				}
				name := "`" + mdCell(sc.InferenceService.Namespace+"/"+sc.InferenceService.Name) + "`"
				if sc.Regression {
					name = "**" + name + "**"
				}
				fmt.Fprintf(&b, "| %s | %s | %s |%s\n", name, mdCell(selectionText(sc.Before)), mdCell(selectionText(sc.After)), rule(sc.Rule))
			}
		}
	}
	details(s.Rerouted > 0, "InferenceServices", s.Rerouted+s.Services, services(false))
	if sides.ShowReasons {
		details(false, "Pairs whose reason reads differently", s.Reworded, models(func(m diff.ModelChange) bool { return len(m.Reworded) > 0 }, true))
		details(false, "Refusals that read differently", s.Refusals, services(true))
	}
	details(s.RulesErrors > 0, "Findings of --rules", len(r.Rules), func() {
		b.WriteString("| Object | Rule | Severity | Finding | Where |\n|---|---|---|---|---|\n")
		for _, rc := range r.Rules {
			made := "made"
			if rc.Change == diff.RuleStops {
				made = "cleared"
			}
			name := "`" + mdCell(output.RefText(rc.Object)) + "`"
			if rc.Regression {
				name = "**" + name + "**"
			}
			fmt.Fprintf(&b, "| %s | `%s` | %s | %s: %s | `%s` |\n", name, mdCell(rc.Rule), rc.Severity, made,
				mdCell(strings.TrimPrefix(rc.Field+": "+rc.Message, ": ")), mdCell(output.FileLine(rc.File, rc.Line)))
		}
	})
	details(false, "Objects that move no decision", len(r.Unmoved), func() {
		fmt.Fprintf(&b, "%s:\n\n", unmovedText(r.Unmoved))
		for _, o := range r.Unmoved {
			fmt.Fprintf(&b, "- %s %s\n", mdRef(o), o.Change)
		}
	})
	if len(sides.Problems) > 0 {
		details(true, "Input that could not be read", len(sides.Problems), func() {
			for _, p := range sides.Problems {
				fmt.Fprintf(&b, "- `%s`: %s\n", mdCell(output.FileLine(p.File, p.Line)), mdCell(strings.TrimPrefix(p.Field+": "+p.Message, ": ")))
			}
		})
	}
	fmt.Fprintf(&b, "\n<sub>%s; %s.</sub>\n", countText(s), workText(r.Work))
	_, err := io.WriteString(d.w, b.String())
	return err
}
