package engine

import (
	"fmt"
	"reflect"

	"github.com/ome-policy/evaluator/engine/cel"
	"github.com/ome-policy/evaluator/engine/rego"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/policies/policyset"
)

// Explainer explains the verdict on one model and one runtime.
type Explainer interface {
	Name() string
	Explain(model, runtime *objects.Object) (Explanation, error)
}

// NewExplainer compiles the match and explain policies for the named engine.
func NewExplainer(name string, set *policyset.Set) (Explainer, error) {
	xs, err := byEngine(name, set,
		func(s *policyset.Set) (Explainer, error) { return cel.NewExplainer(s) },
		func(s *policyset.Set) (Explainer, error) { return rego.NewExplainer(s) })
	if err != nil {
		return nil, err
	}
	if len(xs) == 2 {
		return &bothExplainer{cel: xs[0], rego: xs[1]}, nil
	}
	return xs[0], nil
}

type bothExplainer struct{ cel, rego Explainer }

func (b *bothExplainer) Name() string { return Both }

func (b *bothExplainer) Explain(model, runtime *objects.Object) (Explanation, error) {
	c, err := b.cel.Explain(model, runtime)
	if err != nil {
		return Explanation{}, fmt.Errorf("cel: %w", err)
	}
	r, err := b.rego.Explain(model, runtime)
	if err != nil {
		return Explanation{}, fmt.Errorf("rego: %w", err)
	}
	if !reflect.DeepEqual(c, r) {
		return Explanation{}, fmt.Errorf("engines disagree on the explanation of %s against %s: cel says %+v; rego says %+v", model.Ref(), runtime.Ref(), c, r)
	}
	return c, nil
}
