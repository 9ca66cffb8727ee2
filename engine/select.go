package engine

import (
	"fmt"
	"reflect"

	"github.com/ome-policy/evaluator/engine/cel"
	"github.com/ome-policy/evaluator/engine/policyset"
	"github.com/ome-policy/evaluator/engine/rego"
	"github.com/ome-policy/evaluator/objects"
)

// Selector decides on one InferenceService given the cluster's models and
// runtimes.
type Selector interface {
	Name() string
	Select(isvc *objects.Object, cluster []*objects.Object) (Decision, error)
}

// NewSelector compiles the selection policies for the named engine.
func NewSelector(name string, set *policyset.Set) (Selector, error) {
	switch name {
	case CEL:
		return cel.NewSelector(set)
	case Rego:
		return rego.NewSelector(set)
	case Both:
		c, err := cel.NewSelector(set)
		if err != nil {
			return nil, err
		}
		r, err := rego.NewSelector(set)
		if err != nil {
			return nil, err
		}
		return &bothSelector{cel: c, rego: r}, nil
	}
	_, err := New(name, set)
	return nil, err
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

// Selectors returns the selectors a case runs on for the named engine: one,
// or for "both" the CEL and the Rego selector, each checked on its own.
func Selectors(name string, set *policyset.Set) ([]Selector, error) {
	if name != Both {
		s, err := NewSelector(name, set)
		if err != nil {
			return nil, err
		}
		return []Selector{s}, nil
	}
	c, err := cel.NewSelector(set)
	if err != nil {
		return nil, err
	}
	r, err := rego.NewSelector(set)
	if err != nil {
		return nil, err
	}
	return []Selector{c, r}, nil
}
