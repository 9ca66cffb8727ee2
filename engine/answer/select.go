package answer

import (
	"fmt"

	"github.com/ome-policy/evaluator/objects"
)

// Candidate is a runtime the webhook could choose, with its score.
type Candidate struct {
	objects.Ref `yaml:",inline"`
	Score       int64 `json:"score" yaml:"score"`
}

// Excluded is a runtime that is not compatible, with its first reason.
// HiddenBy is set when OME's message does not show this reason: OME names
// each excluded runtime by its name alone, once, with the reason of the
// last runtime of that name it checked (a ClusterServingRuntime after the
// namespace's ServingRuntime of the same name), which HiddenBy refers to.
type Excluded struct {
	objects.Ref `yaml:",inline"`
	Reason      string       `json:"reason" yaml:"reason"`
	HiddenBy    *objects.Ref `json:"hiddenBy,omitempty" yaml:"hiddenBy,omitempty"`
}

// Unselectable is a runtime that is compatible but that selection never
// chooses, with why: no entry with autoSelect: true, or a score of 0.
type Unselectable struct {
	objects.Ref `yaml:",inline"`
	Reason      string `json:"reason" yaml:"reason"`
}

// Checked counts the runtimes selection looked at.
type Checked struct {
	Namespaced int `json:"namespaced" yaml:"namespaced"`
	Cluster    int `json:"cluster" yaml:"cluster"`
}

// Decision is OME's webhook verdict on one InferenceService (spec section
// 10), with what selection saw. Warnings say what OME's controller would
// say of a runtime named in spec.runtime.name; they never change the verdict.
type Decision struct {
	Admitted bool   `json:"admitted" yaml:"admitted"`
	Message  string `json:"message" yaml:"message"`
	// Check names the check of OME's webhook that refused it ("" when
	// admitted): name, autoscaler-class, hpa-metric, keda-scaling-operator,
	// keda-scaling-threshold, keda-prometheus-server-address,
	// keda-auth-mode, target-utilization, decoder-without-engine,
	// model-not-found, no-model-reference, model-disabled, no-format-name
	// or no-runtime.
	Check      string       `json:"check" yaml:"check"`
	Selection  bool         `json:"selection" yaml:"selection"`
	Selected   *objects.Ref `json:"runtime" yaml:"runtime"`
	Model      *objects.Ref `json:"model" yaml:"model"`
	Candidates []Candidate  `json:"candidates" yaml:"candidates"`
	// TiedWith are the candidates that tie with the selected runtime on
	// all but the name (score and size distance, in its scope): OME takes
	// the first by name, so its choice rests on a name. TiePriority is a
	// priority that would make any of them win (0 without a tie).
	TiedWith    []objects.Ref `json:"tiedWith" yaml:"tiedWith"`
	TiePriority int           `json:"tiePriority" yaml:"tiePriority"`
	Excluded    []Excluded    `json:"excluded" yaml:"excluded"`
	// Unselectable are the compatible runtimes that are not candidates,
	// in the order OME checks them.
	Unselectable []Unselectable `json:"unselectable" yaml:"unselectable"`
	Checked      Checked        `json:"checked" yaml:"checked"`
	Warnings     []string       `json:"warnings" yaml:"warnings"`
}

func ObjectValues(objs []*objects.Object) []any {
	out := make([]any, len(objs))
	for i, o := range objs {
		out[i] = o.Value
	}
	return out
}

// decisionFrom fills a Decision from the policy's outputs, which both
// engines give as plain values.
func DecisionFrom(d Decision, out map[string]any) (Decision, error) {
	d.Selection, _ = out["selection"].(bool)
	d.Check, _ = out["check"].(string)
	d.Model = refFrom(out["model"])
	d.Candidates, d.Excluded, d.Unselectable, d.Warnings, d.TiedWith = []Candidate{}, []Excluded{}, []Unselectable{}, []string{}, []objects.Ref{}
	for _, w := range listOf(out["warnings"]) {
		s, _ := w.(string)
		d.Warnings = append(d.Warnings, s)
	}
	if !d.Selection {
		return d, nil
	}
	if d.Admitted {
		d.Selected = refFrom(out["selected"])
		if d.Selected == nil {
			return d, fmt.Errorf("the policy admitted by selection but chose no runtime")
		}
	}
	for _, c := range listOf(out["ranked"]) {
		m, _ := c.(map[string]any)
		r := refFrom(m)
		if r == nil {
			return d, fmt.Errorf("a ranked runtime is not a reference: %v", c)
		}
		d.Candidates = append(d.Candidates, Candidate{Ref: *r, Score: toInt64(m["score"])})
	}
	for _, c := range listOf(out["tiedWith"]) {
		r := refFrom(c)
		if r == nil {
			return d, fmt.Errorf("a tied runtime is not a reference: %v", c)
		}
		d.TiedWith = append(d.TiedWith, *r)
	}
	d.TiePriority = int(toInt64(out["tiePriority"]))
	for _, e := range listOf(out["excluded"]) {
		m, _ := e.(map[string]any)
		r := refFrom(m)
		if r == nil {
			return d, fmt.Errorf("an excluded runtime is not a reference: %v", e)
		}
		reason, _ := m["reason"].(string)
		d.Excluded = append(d.Excluded, Excluded{Ref: *r, Reason: reason})
	}
	markHidden(d.Excluded)
	for _, u := range listOf(out["unselectable"]) {
		m, _ := u.(map[string]any)
		r := refFrom(m)
		if r == nil {
			return d, fmt.Errorf("an unselectable runtime is not a reference: %v", u)
		}
		reason, _ := m["reason"].(string)
		d.Unselectable = append(d.Unselectable, Unselectable{Ref: *r, Reason: reason})
	}
	counts, _ := out["checkedCounts"].(map[string]any)
	d.Checked = Checked{Namespaced: int(toInt64(counts["namespaced"])), Cluster: int(toInt64(counts["cluster"]))}
	return d, nil
}

// markHidden sets HiddenBy on each excluded runtime that a later one of
// the same name replaces in OME's message (the policies' named_once and
// namedOnce).
func markHidden(excluded []Excluded) {
	last := make(map[string]int, len(excluded))
	for i, e := range excluded {
		last[e.Name] = i
	}
	for i := range excluded {
		if j := last[excluded[i].Name]; j != i {
			ref := excluded[j].Ref
			excluded[i].HiddenBy = &ref
		}
	}
}

func listOf(v any) []any {
	l, _ := v.([]any)
	return l
}

func refFrom(v any) *objects.Ref {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	r := &objects.Ref{}
	r.Kind, _ = m["kind"].(string)
	r.Namespace, _ = m["namespace"].(string)
	r.Name, _ = m["name"].(string)
	return r
}

func toInt64(v any) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case int:
		return int64(x)
	case float64:
		return int64(x)
	}
	return 0
}

// numbersToInt turns the json.Number values of Rego results into int64.
func NumbersToInt(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = NumbersToInt(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = NumbersToInt(e)
		}
		return out
	case interface{ Int64() (int64, error) }:
		n, _ := x.Int64()
		return n
	}
	return v
}
