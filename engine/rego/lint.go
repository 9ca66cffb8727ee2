package rego

import (
	"context"
	"fmt"

	"github.com/ome-policy/evaluator/engine/answer"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/policies/policyset"
	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
)

// The Rego rules the linter evaluates: per object (input {object, raw}) and
// for the whole input (input {objects, crossCheck}).
const (
	LintQuery    = "data.ome.lint.findings"
	LintSetQuery = "data.ome.lint.set_findings"
)

type Linter struct {
	object, set rego.PreparedEvalQuery
	release     string // the OME release, whose CRDs the objects must meet
}

func NewLinter(set *policyset.Set) (*Linter, error) {
	pq, err := Queries(set, []string{"ome.lint", "ome.match"}, LintQuery, LintSetQuery)
	if err != nil {
		return nil, err
	}
	return &Linter{object: pq[0], set: pq[1], release: set.Release}, nil
}

func (l *Linter) Name() string { return Name }

// Object gives the findings about o alone.
func (l *Linter) Object(o *objects.Object) ([]answer.Finding, error) {
	fs, err := policyFindings(l.object, LintQuery, map[string]any{"object": o.Value, "raw": objects.RawScalars(o)}, false)
	if err != nil {
		return nil, fmt.Errorf("%s (%s:%d): %w", o.Ref(), o.File, o.Line, err)
	}
	return answer.ObjectFindings(o, fs, l.release)
}

// Set gives the findings about the objects together.
func (l *Linter) Set(objs []answer.SetObject, opts answer.LintOptions) ([]answer.Finding, error) {
	fs, err := policyFindings(l.set, LintSetQuery, map[string]any{"objects": answer.LintSetInput(objs), "crossCheck": opts.CrossCheck}, true)
	if err != nil {
		return nil, err
	}
	return answer.SetFindings(objs, fs)
}

func policyFindings(q rego.PreparedEvalQuery, query string, input map[string]any, withIndex bool) ([]answer.RawFinding, error) {
	v, err := ast.InterfaceToValue(input)
	if err != nil {
		return nil, err
	}
	rs, err := q.Eval(context.Background(), rego.EvalParsedInput(v))
	if err != nil {
		return nil, err
	}
	if len(rs) != 1 || len(rs[0].Expressions) != 1 {
		return nil, fmt.Errorf("%s is undefined", query)
	}
	return answer.FindingsFrom(query, rs[0].Expressions[0].Value, withIndex)
}
