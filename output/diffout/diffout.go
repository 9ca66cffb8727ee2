// Package diffout writes the report of `evaluate diff` in each format the
// user can ask for with -o (text, JSON, a pull request's markdown comment,
// GitHub annotations), one file per format behind Writer.
//
// It owns the report's wording and its counts (Summarize). It imports diff
// (the report) and output (Problem, and the small helpers every writer
// shares: an object's name, file:line, GitHub's workflow commands, the
// error for an unknown format); only cmd/evaluate imports it.
package diffout

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/ome-policy/evaluator/diff"
	"github.com/ome-policy/evaluator/output"
	"github.com/ome-policy/evaluator/results"
)

// Writer writes the report of `evaluate diff`.
type Writer interface {
	Write(r *diff.Report, s Sides) error
}

// Sides names the two sides of a diff, and carries the inputs that
// could not be read (the machine-readable formats carry them as entries).
type Sides struct {
	Old string `json:"old"`
	New string `json:"new"`
	// OMEVersion is the OME release whose rules judged the old side;
	// ToOMEVersion the new side's (the same, but for an upgrade).
	OMEVersion   string            `json:"omeVersion"`
	ToOMEVersion string            `json:"toOmeVersion"`
	Problems     []results.Problem `json:"-"`
	// ShowReasons lists the verdicts that hold in other words (text and
	// markdown; json always lists them).
	ShowReasons bool `json:"-"`
	// Cluster is the cluster of a fleet whose diff it is (fleet.go); nil
	// for one run.
	Cluster *results.Cluster `json:"-"`
	// later says that a fleet's report of an earlier cluster was written
	// before (markdown writes its marker once).
	later bool
}

// upgrade says whether the sides are two OME releases' rules.
func (s Sides) upgrade() bool { return s.OMEVersion != s.ToOMEVersion }

// labels name the two sides in a change's lines: the releases for an
// upgrade, else "before" and "after".
func (s Sides) labels() [2]string {
	if s.upgrade() {
		return [2]string{s.OMEVersion, s.ToOMEVersion}
	}
	return [2]string{"before", "after"}
}

// Formats lists the -o values of diff.
var Formats = []string{"text", "json", "markdown", "github"}

// NewWriter returns the writer for format.
func NewWriter(format string, w io.Writer) (Writer, error) {
	switch format {
	case "text":
		return &diffText{w: w}, nil
	case "json":
		return &diffJSON{w: w}, nil
	case "markdown":
		return &diffMarkdown{w: w}, nil
	case "github":
		return &diffGitHub{w: w}, nil
	}
	return nil, output.UnknownFormat(format, Formats)
}

// Summary counts what a diff found, as every format says it.
type Summary struct {
	Regressions int `json:"regressions"`
	// VerdictChanges counts the models that gain or lose a runtime and the
	// InferenceServices whose decision changed, regressions among them;
	// ReasonChanges the verdicts that hold in other words; Changes both.
	VerdictChanges int `json:"verdictChanges"`
	ReasonChanges  int `json:"reasonChanges"`
	Changes        int `json:"changes"`
	// Reworded counts the pairs of a model and a runtime whose reason
	// reads differently (the reason changes other than refusals).
	Reworded int `json:"pairsReworded"`
	// NoRuntime counts the models left with no compatible runtime (the
	// regressions among the models).
	NoRuntime int `json:"modelsWithoutRuntime"`
	// Models counts the other models that gain or lose a runtime.
	Models int `json:"modelsChanged"`
	// Rerouted counts the InferenceServices routed elsewhere or refused
	// (the regressions among them); Refusals those refused before and
	// after in other words; Services the other changes of theirs.
	Rerouted int `json:"inferenceServicesRerouted"`
	Refusals int `json:"refusalsReworded"`
	Services int `json:"inferenceServicesChanged"`
	Unmoved  int `json:"unmoved"`
	// RulesMade counts the findings of a team's rules (--rules) that the
	// change makes, errors (regressions) among them; RulesCleared those it
	// clears. Both are left out without --rules.
	RulesMade    int `json:"ruleFindingsMade,omitempty"`
	RulesErrors  int `json:"ruleErrorsMade,omitempty"`
	RulesCleared int `json:"ruleFindingsCleared,omitempty"`
}

// Summarize counts the report's entries.
func Summarize(r *diff.Report) Summary {
	s := Summary{Regressions: r.Regressions(), VerdictChanges: r.VerdictChanges(), ReasonChanges: r.ReasonChanges(),
		Changes: r.Changes(), Unmoved: len(r.Unmoved)}
	for _, m := range r.Models {
		s.Reworded += len(m.Reworded)
		switch {
		case m.Regression:
			s.NoRuntime++
		case m.VerdictChanged():
			s.Models++
		}
	}
	for _, rc := range r.Rules {
		switch {
		case rc.Change == diff.RuleStops:
			s.RulesCleared++
		case rc.Regression:
			s.RulesErrors++
			fallthrough
		default:
			s.RulesMade++
		}
	}
	for _, sc := range r.InferenceServices {
		switch {
		case sc.Regression:
			s.Rerouted++
		case sc.Change == diff.ServiceMessage:
			s.Refusals++
		default:
			s.Services++
		}
	}
	return s
}

// verdictText says a pair's verdict on one side: "compatible", OME's
// reason, or that the runtime is not there.
func verdictText(reason string, there bool) string {
	switch {
	case !there:
		return "(not there)"
	case reason == "":
		return "compatible"
	}
	return reason
}

// pairSides says a runtime change's verdict before and after ("" for a
// side the runtime is not on).
func pairSides(rc diff.RuntimeChange, gained bool) [2]string {
	before, after := rc.ReasonBefore, rc.Reason
	switch {
	case gained && rc.Change == diff.Added:
		return [2]string{"", "compatible"}
	case gained:
		return [2]string{verdictText(before, true), "compatible"}
	case rc.Change == diff.Removed:
		return [2]string{"compatible", ""}
	case before == "": // lost
		return [2]string{"compatible", verdictText(after, true)}
	}
	return [2]string{before, after} // reworded
}

// selectionText says a decision in a few words.
func selectionText(s *diff.Selection) string {
	switch {
	case s == nil:
		return "(not there)"
	case s.Admitted && s.Runtime != nil:
		return fmt.Sprintf("%s (score %d, %s scope)", output.RefText(*s.Runtime), s.Score, s.Scope)
	case s.Admitted:
		return "admitted without selection"
	}
	return "refused: " + s.Message
}

// serviceSides says an InferenceService's decision before and after (""
// before for a new one).
func serviceSides(sc diff.ServiceChange) [2]string {
	if sc.Before == nil {
		return [2]string{"", selectionText(sc.After)}
	}
	return [2]string{selectionText(sc.Before), selectionText(sc.After)}
}

// serviceText says how an InferenceService's decision changed.
func serviceText(sc diff.ServiceChange) string {
	switch sc.Change {
	case diff.ServiceAdded:
		return "new: " + selectionText(sc.After)
	case diff.ServiceRefused:
		return fmt.Sprintf("now refused (was %s): %s", selectionText(sc.Before), sc.After.Message)
	}
	return selectionText(sc.Before) + " -> " + selectionText(sc.After)
}

// runtimeWord says what happened to a runtime a model gains or loses.
func runtimeWord(rc diff.RuntimeChange) string {
	switch rc.Change {
	case diff.Added:
		return "new runtime"
	case diff.Removed:
		return "runtime removed"
	case diff.Changed:
		return "runtime changed"
	case diff.Rules:
		return "OME's rules changed"
	}
	return "model changed"
}

// modelWord says what happened to a model of the report.
func modelWord(m diff.ModelChange) string {
	switch m.Change {
	case diff.Added:
		return "new model"
	case diff.Changed:
		return "model changed"
	}
	return ""
}

// unmovedText counts the objects that move no decision in one line, by
// change and kind, such as "2 runtimes changed, 1 model added".
func unmovedText(objs []diff.ObjectChange) string {
	type key struct{ change, sort string }
	counts := map[key]int{}
	for _, o := range objs {
		counts[key{o.Change, kindSort(o.Kind)}]++
	}
	keys := make([]key, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	order := map[string]int{diff.Added: 0, diff.Removed: 1, diff.Changed: 2, "model": 0, "runtime": 1, "InferenceService": 2}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].change != keys[j].change {
			return order[keys[i].change] < order[keys[j].change]
		}
		return order[keys[i].sort] < order[keys[j].sort]
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		n := counts[k]
		noun := k.sort
		if n > 1 {
			noun += "s"
		}
		parts[i] = fmt.Sprintf("%d %s %s", n, noun, k.change)
	}
	return strings.Join(parts, ", ")
}

func kindSort(kind string) string {
	switch kind {
	case "BaseModel", "ClusterBaseModel":
		return "model"
	case "ServingRuntime", "ClusterServingRuntime":
		return "runtime"
	}
	return kind
}

// workText says what was evaluated against a full evaluation.
func workText(w diff.Work) string {
	return fmt.Sprintf("evaluated %d of %d pair verdict(s) and %d of %d InferenceService decision(s), both sides counted",
		w.Pairs, w.AllPairs, w.Selections, w.AllSelections)
}

// countText is "N regressions, M verdict changes, K reason changes", and
// when a team's rules changed findings, how many they made and cleared.
func countText(s Summary) string {
	parts := []string{counted(s.Regressions, "regression"), counted(s.VerdictChanges, "verdict change"), counted(s.ReasonChanges, "reason change")}
	if s.RulesMade+s.RulesCleared > 0 {
		parts = append(parts, fmt.Sprintf("%s of --rules made, %d cleared", counted(s.RulesMade, "finding"), s.RulesCleared))
	}
	return strings.Join(parts, ", ")
}

// ruleChangeText says a finding of a team's rule made (+) or cleared (-),
// under its object: "+ company.size (error, x.yaml:12): spec.f: message".
func ruleChangeText(rc diff.RuleChange) string {
	mark, msg := "+", rc.Message
	if rc.Change == diff.RuleStops {
		mark = "-"
	}
	if rc.Field != "" {
		msg = rc.Field + ": " + msg
	}
	return fmt.Sprintf("%s %s (%s, %s): %s", mark, rc.Rule, rc.Severity, output.FileLine(rc.File, rc.Line), msg)
}

// counted is "1 noun" or "1,234 nouns".
func counted(n int, noun string) string {
	digits := fmt.Sprint(n)
	var b strings.Builder
	for i, d := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(d)
	}
	if n != 1 {
		noun += "s"
	}
	return b.String() + " " + noun
}
