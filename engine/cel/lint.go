package cel

import (
	"fmt"

	"github.com/ome-policy/evaluator/engine/answer"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/policies/policyset"
)

type Linter struct {
	object, set *policy
	release     string // the OME release, whose CRDs the objects must meet
}

func NewLinter(set *policyset.Set) (*Linter, error) {
	ps, err := compilePolicies(set, "lint-object", "lint-set")
	if err != nil {
		return nil, err
	}
	obj, err := policyWithInputs(set, ps.byName, "lint-object", []string{"object", "raw"})
	if err != nil {
		return nil, err
	}
	all, err := policyWithInputs(set, ps.byName, "lint-set", []string{"objects", "crossCheck"})
	if err != nil {
		return nil, err
	}
	return &Linter{object: obj, set: all, release: set.Release}, nil
}

func (l *Linter) Name() string { return Name }

// Object gives the findings about o alone.
func (l *Linter) Object(o *objects.Object) ([]answer.Finding, error) {
	fs, err := policyFindings(l.object, map[string]any{"object": o.Value, "raw": objects.RawScalars(o)}, false)
	if err != nil {
		return nil, fmt.Errorf("%s (%s:%d): %w", o.Ref(), o.File, o.Line, err)
	}
	return answer.ObjectFindings(o, fs, l.release)
}

// Set gives the findings about the objects together.
func (l *Linter) Set(objs []answer.SetObject, opts answer.LintOptions) ([]answer.Finding, error) {
	fs, err := policyFindings(l.set, map[string]any{"objects": answer.LintSetInput(objs), "crossCheck": opts.CrossCheck}, true)
	if err != nil {
		return nil, err
	}
	return answer.SetFindings(objs, fs)
}

func policyFindings(p *policy, inputs map[string]any, withIndex bool) ([]answer.RawFinding, error) {
	act := p.activation(inputs)
	v, err := act.variable("findings")
	if err != nil {
		return nil, err
	}
	native, err := toNative(v)
	if err != nil {
		return nil, err
	}
	return answer.FindingsFrom(p.source+": CEL policy "+p.name, native, withIndex)
}
