package diffout

import (
	"fmt"
	"io"
	"strings"

	"github.com/ome-policy/evaluator/diff"
	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/output"
)

// diffGitHub writes an annotation on each changed object that moves a
// decision, at its first changed line: a runtime that models gain or
// lose, a changed model, the runtime an InferenceService now selects (or
// lost), a finding of a team's rule made or cleared (--rules). What is said of one line is one annotation: an error when it
// holds a regression, a warning when it holds a loss or another change,
// a notice for gains alone.
type diffGitHub struct{ w io.Writer }

type ghNote struct {
	at       diff.Position
	title    string
	level    int // 0 notice, 1 warning, 2 error
	messages []string
}

func (d *diffGitHub) Write(r *diff.Report, sides Sides) error {
	var notes []*ghNote
	byAt := map[diff.Position]*ghNote{}
	add := func(at diff.Position, title string, level int, msg string) {
		n := byAt[at]
		if n == nil {
			n = &ghNote{at: at, title: title}
			byAt[at] = n
			notes = append(notes, n)
		}
		n.level = max(n.level, level)
		n.messages = append(n.messages, msg)
	}
	for _, m := range r.Models {
		level := 1
		if m.Regression {
			level = 2
		}
		for _, g := range m.Gained {
			msg := fmt.Sprintf("%s gains %s", output.RefText(m.Model), output.RefText(g.Runtime)) + ruleText(g.Rule)
			if g.Change == "" {
				add(m.Position, output.RefText(m.Model), 0, msg)
			} else {
				add(g.Position, output.RefText(g.Runtime), 0, msg)
			}
		}
		for _, l := range m.Lost {
			msg := fmt.Sprintf("%s loses %s", output.RefText(m.Model), output.RefText(l.Runtime))
			if l.Reason != "" {
				msg += ": " + l.Reason
			} else {
				msg += " (" + runtimeWord(l) + ")"
			}
			if m.Regression {
				msg += "; it has no compatible runtime left"
			}
			msg += ruleText(l.Rule)
			if l.Change == "" {
				add(m.Position, output.RefText(m.Model), level, msg)
			} else {
				add(l.Position, output.RefText(l.Runtime), level, msg)
			}
		}
		if m.NoRuntime && len(m.Lost) == 0 {
			add(m.Position, output.RefText(m.Model), level, fmt.Sprintf("%s: no runtime that OME pairs it with is compatible", output.RefText(m.Model)))
		}
	}
	for _, sc := range r.InferenceServices {
		level := 1
		if sc.Regression {
			level = 2
		}
		at, title := sc.Position, "InferenceService "+sc.InferenceService.Namespace+"/"+sc.InferenceService.Name
		switch {
		case sc.After != nil && sc.After.Runtime != nil:
			at, title = sc.After.Position, output.RefText(*sc.After.Runtime)
		case sc.Before != nil && sc.Before.Runtime != nil:
			at, title = sc.Before.Position, output.RefText(*sc.Before.Runtime)
		}
		add(at, title, level, fmt.Sprintf("InferenceService %s/%s: %s", sc.InferenceService.Namespace, sc.InferenceService.Name, serviceText(sc))+ruleText(sc.Rule))
	}
	for _, rc := range r.Rules {
		level := map[string]int{engine.SeverityError: 2, engine.SeverityWarning: 1}[rc.Severity]
		verb := "now"
		if rc.Change == diff.RuleStops {
			level, verb = 0, "no longer"
		}
		add(rc.Position, output.RefText(rc.Object), level, fmt.Sprintf("%s %s fires (%s): %s", rc.Rule, verb, rc.Severity, strings.TrimPrefix(rc.Field+": "+rc.Message, ": ")))
	}
	var b strings.Builder
	for _, n := range notes {
		b.WriteString(output.GitHubAnnotation([]string{"notice", "warning", "error"}[n.level], n.at.File, n.at.Line,
			"evaluate diff"+inCluster(sides)+": "+n.title, strings.Join(n.messages, "\n")))
	}
	for _, p := range sides.Problems {
		msg := p.Message
		if p.Field != "" {
			msg = p.Field + ": " + msg
		}
		b.WriteString(output.GitHubAnnotation("error", p.File, p.Line, "evaluate diff"+inCluster(sides)+": input", msg))
	}
	fmt.Fprintf(&b, "%s\n", countText(Summarize(r)))
	_, err := io.WriteString(d.w, b.String())
	return err
}

// ruleText is "; rule: R" for a change an upgrade's rule moved ("" else).
func ruleText(rule string) string {
	if rule == "" {
		return ""
	}
	return "; rule: " + rule
}
