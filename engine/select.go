package engine

import (
	"fmt"
	"reflect"

	"github.com/ome-policy/evaluator/engine/cel"
	"github.com/ome-policy/evaluator/engine/rego"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/policies/policyset"
)

// Selector decides on one InferenceService given the cluster's models and
// runtimes.
type Selector interface {
	Name() string
	Select(isvc *objects.Object, cluster []*objects.Object) (Decision, error)
}

// NewSelector compiles the selection policies for the named engine.
func NewSelector(name string, set *policyset.Set) (Selector, error) {
	ss, err := Selectors(name, set)
	if err != nil {
		return nil, err
	}
	if len(ss) == 2 {
		return &bothSelector{cel: ss[0], rego: ss[1]}, nil
	}
	return ss[0], nil
}

type bothSelector struct{ cel, rego Selector }

func (b *bothSelector) Name() string { return Both }

func (b *bothSelector) Select(isvc *objects.Object, cluster []*objects.Object) (Decision, error) {
	c, err := b.cel.Select(isvc, cluster)
	if err != nil {
		return Decision{}, fmt.Errorf("cel: %w", err)
	}
	r, err := b.rego.Select(isvc, cluster)
	if err != nil {
		return Decision{}, fmt.Errorf("rego: %w", err)
	}
	if !reflect.DeepEqual(c, r) {
		return Decision{}, fmt.Errorf("engines disagree on %s: cel says %+v; rego says %+v", isvc.Ref(), c, r)
	}
	return c, nil
}

// Selectors returns the selectors of the named engine: one, or for "both"
// the CEL and the Rego selector, which NewSelector puts together and case
// runners check each on its own.
func Selectors(name string, set *policyset.Set) ([]Selector, error) {
	return byEngine(name, set,
		func(s *policyset.Set) (Selector, error) { return cel.NewSelector(s) },
		func(s *policyset.Set) (Selector, error) { return rego.NewSelector(s) })
}
