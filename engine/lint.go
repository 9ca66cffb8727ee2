package engine

import (
	"fmt"
	"reflect"

	"github.com/ome-policy/evaluator/engine/cel"
	"github.com/ome-policy/evaluator/engine/policyset"
	"github.com/ome-policy/evaluator/engine/rego"
	"github.com/ome-policy/evaluator/objects"
)

// Linter runs the lint policies over a set of objects. The policies decide
// every finding but crd-schema (what OME's CRDs refuse, checked in Go with
// the API server's validator); the engine only hands them the objects, maps
// each finding's field to its file and line, and sorts the findings.
type Linter interface {
	Name() string
	Lint(objs []*objects.Object, opts LintOptions) ([]Finding, error)
}

// NewLinter compiles the lint policies for the named engine.
func NewLinter(name string, set *policyset.Set) (Linter, error) {
	switch name {
	case CEL:
		c, err := cel.NewLinter(set)
		if err != nil {
			return nil, err
		}
		return c, nil
	case Rego:
		r, err := rego.NewLinter(set)
		if err != nil {
			return nil, err
		}
		return r, nil
	case Both:
		c, err := cel.NewLinter(set)
		if err != nil {
			return nil, err
		}
		r, err := rego.NewLinter(set)
		if err != nil {
			return nil, err
		}
		return &bothLinter{cel: c, rego: r}, nil
	}
	return nil, unknownEngine(name)
}

type bothLinter struct{ cel, rego Linter }

func (b *bothLinter) Name() string { return Both }

func (b *bothLinter) Lint(objs []*objects.Object, opts LintOptions) ([]Finding, error) {
	c, err := b.cel.Lint(objs, opts)
	if err != nil {
		return nil, fmt.Errorf("cel: %w", err)
	}
	r, err := b.rego.Lint(objs, opts)
	if err != nil {
		return nil, fmt.Errorf("rego: %w", err)
	}
	if !reflect.DeepEqual(c, r) {
		return nil, fmt.Errorf("engines disagree on the lint findings: %s", firstDifference(c, r))
	}
	return c, nil
}

func firstDifference(c, r []Finding) string {
	for i := 0; i < len(c) || i < len(r); i++ {
		switch {
		case i >= len(c):
			return fmt.Sprintf("only rego finds %+v", r[i])
		case i >= len(r):
			return fmt.Sprintf("only cel finds %+v", c[i])
		case c[i] != r[i]:
			return fmt.Sprintf("cel finds %+v; rego finds %+v", c[i], r[i])
		}
	}
	return "none"
}
