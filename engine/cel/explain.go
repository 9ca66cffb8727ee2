package cel

import (
	"fmt"

	"github.com/ome-policy/evaluator/engine/answer"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/policies/policyset"
)

type Explainer struct {
	match          *Matcher
	entry, runtime *policy
}

func NewExplainer(set *policyset.Set) (*Explainer, error) {
	ps, err := compilePolicies(set, "explain-entry", "explain-runtime")
	if err != nil {
		return nil, err
	}
	entry, err := policyWithInputs(set, ps.byName, "explain-entry", []string{"model", "entry"})
	if err != nil {
		return nil, err
	}
	runtime, err := policyWithInputs(set, ps.byName, "explain-runtime", []string{"model", "runtime"})
	if err != nil {
		return nil, err
	}
	return &Explainer{match: ps.matcher, entry: entry, runtime: runtime}, nil
}

func (x *Explainer) Name() string { return Name }

func (x *Explainer) Explain(model, runtime *objects.Object) (answer.Explanation, error) {
	ms, rs := model.Spec(), runtime.Spec()
	v, err := x.match.Match(ms, rs)
	if err != nil {
		return answer.Explanation{}, err
	}
	out := map[string]any{}
	act := x.runtime.activation(map[string]any{"model": ms, "runtime": rs})
	rt := map[string]any{}
	for _, name := range []string{"checks", "notes", "advice", "quotesEntries", "reasonRule"} {
		val, err := act.variable(name)
		if err != nil {
			return answer.Explanation{}, err
		}
		if rt[name], err = toNative(val); err != nil {
			return answer.Explanation{}, err
		}
	}
	out["runtime"] = rt
	formats, _ := rs["supportedModelFormats"].([]any)
	entries := make([]any, 0, len(formats))
	for i, e := range formats {
		entry, _ := e.(map[string]any)
		if entry == nil {
			entry = map[string]any{}
		}
		val, err := x.entry.activation(map[string]any{"model": ms, "entry": entry}).variable("checks")
		if err != nil {
			return answer.Explanation{}, fmt.Errorf("entry %d: %w", i, err)
		}
		checks, err := toNative(val)
		if err != nil {
			return answer.Explanation{}, fmt.Errorf("entry %d: %w", i, err)
		}
		entries = append(entries, checks)
	}
	out["entries"] = entries
	return answer.ExplanationFrom(model, runtime, v, out)
}
