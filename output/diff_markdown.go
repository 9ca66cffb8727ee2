package output

import (
	"fmt"
	"io"
	"strings"

	"github.com/ome-policy/evaluator/diff"
)

// DiffMarker is the first line of -o markdown: a CI job that posts the
// report as a pull request's comment finds its earlier comment by it, and
// edits that one.
const DiffMarker = "<!-- evaluate diff -->"

// diffMarkdown writes a pull request's comment: a short summary table,
// then the details in <details> blocks, the regressions' open.
type diffMarkdown struct{ w io.Writer }

// mdCell makes text safe in a table cell: no HTML, no cell break, one line.
func mdCell(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "|", "\\|", "\r", " ", "\n", " ").Replace(s)
}

func mdRef(r diff.ObjectChange) string { return "`" + mdCell(refText(r.Ref)) + "`" }

func (d *diffMarkdown) Write(r *diff.Report, sides DiffSides) error {
	var b strings.Builder
	s := Summarize(r)
	b.WriteString(DiffMarker + "\n")
	fmt.Fprintf(&b, "### What this change does to OME's decisions\n\n`%s` → `%s`\n\n", mdCell(sides.Old), mdCell(sides.New))
	switch {
	case s.Regressions > 0:
		fmt.Fprintf(&b, "**%d regression(s)**: models left with no compatible runtime, or InferenceServices that OME would route elsewhere or refuse.\n\n", s.Regressions)
	case s.Changes > 0:
		b.WriteString("No regression; some decisions change.\n\n")
	default:
		b.WriteString("No decision changes.\n\n")
	}
	b.WriteString("| | |\n|---|--:|\n")
	for _, row := range []struct {
		what string
		n    int
	}{
		{"Models left with no compatible runtime", s.NoRuntime},
		{"Other models that gain or lose a runtime", s.Models},
		{"InferenceServices routed elsewhere or refused", s.Rerouted},
		{"Other InferenceService decisions changed", s.Services},
		{"Refusals that read differently", s.Reworded},
		{"Objects added, removed or changed that move no decision", s.Unmoved},
	} {
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
	models := func(regression bool) func() {
		return func() {
			b.WriteString("| Model | | Runtime | OME's reason now |\n|---|---|---|---|\n")
			for _, m := range r.Models {
				if m.Regression != regression {
					continue
				}
				name := "`" + mdCell(refText(m.Model)) + "`"
				if w := modelWord(m); w != "" {
					name += " (" + w + ")"
				}
				if len(m.Gained)+len(m.Lost) == 0 {
					fmt.Fprintf(&b, "| %s | | none compatible | |\n", name)
				}
				for _, g := range m.Gained {
					fmt.Fprintf(&b, "| %s | gains | `%s` (%s) | |\n", name, mdCell(refText(g.Runtime)), runtimeWord(g))
					name = ""
				}
				for _, l := range m.Lost {
					fmt.Fprintf(&b, "| %s | loses | `%s` (%s) | %s |\n", name, mdCell(refText(l.Runtime)), runtimeWord(l), mdCell(l.Reason))
					name = ""
				}
			}
		}
	}
	details(true, "Models left with no compatible runtime", s.NoRuntime, models(true))
	details(false, "Models that gain or lose a runtime", s.Models, models(false))
	services := func(reworded bool) func() {
		return func() {
			b.WriteString("| InferenceService | Before | After |\n|---|---|---|\n")
			for _, sc := range r.InferenceServices {
				if (sc.Change == diff.ServiceMessage) != reworded {
					continue
				}
				name := "`" + mdCell(sc.InferenceService.Namespace+"/"+sc.InferenceService.Name) + "`"
				if sc.Regression {
					name = "**" + name + "**"
				}
				fmt.Fprintf(&b, "| %s | %s | %s |\n", name, mdCell(selectionText(sc.Before)), mdCell(selectionText(sc.After)))
			}
		}
	}
	details(s.Rerouted > 0, "InferenceServices", s.Rerouted+s.Services, services(false))
	details(false, "Refusals that read differently", s.Reworded, services(true))
	details(false, "Objects that move no decision", len(r.Unmoved), func() {
		fmt.Fprintf(&b, "%s:\n\n", unmovedText(r.Unmoved))
		for _, o := range r.Unmoved {
			fmt.Fprintf(&b, "- %s %s\n", mdRef(o), o.Change)
		}
	})
	if len(sides.Problems) > 0 {
		details(true, "Input that could not be read", len(sides.Problems), func() {
			for _, p := range sides.Problems {
				fmt.Fprintf(&b, "- `%s`: %s\n", mdCell(fileLine(p.File, p.Line)), mdCell(strings.TrimPrefix(p.Field+": "+p.Message, ": ")))
			}
		})
	}
	fmt.Fprintf(&b, "\n<sub>%s; %s.</sub>\n", countText(s), workText(r.Work))
	_, err := io.WriteString(d.w, b.String())
	return err
}
