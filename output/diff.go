package output

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/ome-policy/evaluator/diff"
)

// DiffWriter writes the report of `evaluate diff`.
type DiffWriter interface {
	Write(r *diff.Report, s DiffSides) error
}

// DiffSides names the two sides of a diff, and carries the inputs that
// could not be read (the machine-readable formats carry them as entries).
type DiffSides struct {
	Old string `json:"old"`
	New string `json:"new"`
	// OMEVersion is the OME release whose rules judged the old side;
	// ToOMEVersion the new side's (the same, but for an upgrade).
	OMEVersion   string    `json:"omeVersion"`
	ToOMEVersion string    `json:"toOmeVersion"`
	Problems     []Problem `json:"-"`
}

// DiffFormats lists the -o values of diff.
var DiffFormats = []string{"text", "json", "markdown", "github"}

// NewDiffWriter returns the writer for format.
func NewDiffWriter(format string, w io.Writer) (DiffWriter, error) {
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
	return nil, unknownFormat(format, DiffFormats)
}

// DiffSummary counts what a diff found, as every format says it.
type DiffSummary struct {
	Regressions int `json:"regressions"`
	Changes     int `json:"changes"`
	// NoRuntime counts the models left with no compatible runtime (the
	// regressions among the models).
	NoRuntime int `json:"modelsWithoutRuntime"`
	// Models counts the other models that gain or lose a runtime.
	Models int `json:"modelsChanged"`
	// Rerouted counts the InferenceServices routed elsewhere or refused
	// (the regressions among them); Reworded those refused before and
	// after in other words; Services the other changes of theirs.
	Rerouted int `json:"inferenceServicesRerouted"`
	Reworded int `json:"refusalsReworded"`
	Services int `json:"inferenceServicesChanged"`
	Unmoved  int `json:"unmoved"`
}

// Summarize counts the report's entries.
func Summarize(r *diff.Report) DiffSummary {
	s := DiffSummary{Regressions: r.Regressions(), Changes: r.Changes(), Unmoved: len(r.Unmoved)}
	for _, m := range r.Models {
		if m.Regression {
			s.NoRuntime++
		} else {
			s.Models++
		}
	}
	for _, sc := range r.InferenceServices {
		switch {
		case sc.Regression:
			s.Rerouted++
		case sc.Change == diff.ServiceMessage:
			s.Reworded++
		default:
			s.Services++
		}
	}
	return s
}

// selectionText says a decision in a few words.
func selectionText(s *diff.Selection) string {
	switch {
	case s == nil:
		return "(not there)"
	case s.Admitted && s.Runtime != nil:
		return fmt.Sprintf("%s (score %d, %s scope)", refText(*s.Runtime), s.Score, s.Scope)
	case s.Admitted:
		return "admitted without selection"
	}
	return "refused: " + s.Message
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

// countText is "N regression(s), M change(s)".
func countText(s DiffSummary) string {
	return fmt.Sprintf("%d regression(s), %d change(s)", s.Regressions, s.Changes)
}
