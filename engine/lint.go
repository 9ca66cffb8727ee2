package engine

import (
	"context"
	"fmt"
	"reflect"
	"sort"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
)

// Severities of lint findings, from the most to the least serious.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
	SeverityInfo    = "info"
)

// Finding is one problem the lint policies found in an object.
type Finding struct {
	Rule     string `json:"rule" yaml:"rule"`
	Severity string `json:"severity" yaml:"severity"`
	Object   Ref    `json:"object" yaml:"object"`
	Field    string `json:"field" yaml:"field"`
	File     string `json:"file" yaml:"file"`
	Line     int    `json:"line" yaml:"line"`
	Message  string `json:"message" yaml:"message"`
	// ObjectLine is the line where the object starts, which tells apart
	// two objects of the same name in one file.
	ObjectLine int `json:"-" yaml:"-"`
}

// LintOptions configures a lint run.
type LintOptions struct {
	// CrossCheck also pairs every model with every runtime: unmatched-model
	// and unreachable-entry.
	CrossCheck bool
}

// Linter runs the lint policies over a set of objects. The policies decide
// every finding but crd-schema (what OME's CRDs refuse, checked in Go with
// the API server's validator); the engine only hands them the objects, maps
// each finding's field to its file and line, and sorts the findings.
type Linter interface {
	Name() string
	Lint(objs []*Object, opts LintOptions) ([]Finding, error)
}

// rawFinding is a finding as a policy gives it: index is the object's
// position in the input (-1 for a per-object finding, whose object is known).
type rawFinding struct {
	index                          int
	rule, severity, field, message string
}

// NewLinter compiles the lint policies for the named engine.
func NewLinter(name string, set *PolicySet) (Linter, error) {
	switch name {
	case CEL:
		return newCELLinter(set)
	case Rego:
		return newRegoLinter(set)
	case Both:
		c, err := newCELLinter(set)
		if err != nil {
			return nil, err
		}
		r, err := newRegoLinter(set)
		if err != nil {
			return nil, err
		}
		return &bothLinter{cel: c, rego: r}, nil
	}
	_, err := New(name, set)
	return nil, err
}

type bothLinter struct{ cel, rego Linter }

func (b *bothLinter) Name() string { return Both }

func (b *bothLinter) Lint(objs []*Object, opts LintOptions) ([]Finding, error) {
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

// lintSetInput is what the set policy gets for each object: the object,
// where it was read, and whether its fields have the types matching reads
// (only such objects are cross-checked).
func lintSetInput(objs []*Object) []any {
	out := make([]any, len(objs))
	for i, o := range objs {
		out[i] = map[string]any{
			"object": o.Value,
			"file":   o.File,
			"line":   int64(o.Line),
			"valid":  CheckObject(o) == nil,
		}
	}
	return out
}

// RawScalars returns the source text of every scalar of o that YAML did
// not read as a string, by field path, so that a message can quote what was
// written (version: 1.10 reads as the number 1.1).
func RawScalars(o *Object) map[string]any {
	out := map[string]any{}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				walk(joinPath(path, k), e)
			}
		case []any:
			for i, e := range x {
				walk(indexPath(path, i), e)
			}
		case int64, float64, bool:
			if p, ok := o.Pos[path]; ok && p.Raw != "" {
				out[path] = p.Raw
			}
		}
	}
	walk("", o.Value)
	return out
}

// finishFindings turns the policies' findings into Findings with their
// objects, files and lines, sorted by file, line and rule (then field and
// message, so the order never depends on the engine).
func finishFindings(objs []*Object, perObject [][]rawFinding, set []rawFinding) ([]Finding, error) {
	out := []Finding{}
	add := func(o *Object, f rawFinding) {
		out = append(out, Finding{
			Rule: f.rule, Severity: f.severity, Object: RefOf(o), Field: f.field,
			File: o.File, Line: lineAt(o.Pos, f.field, o.Line), Message: f.message, ObjectLine: o.Line,
		})
	}
	for i, fs := range perObject {
		for _, f := range fs {
			add(objs[i], f)
		}
	}
	// What OME's CRDs refuse: the API server's own check, not a policy,
	// so both engines give it alike. A field that a policy already reports
	// as an error is left to that rule, which says how to fix it.
	for i, o := range objs {
		covered := map[string]bool{}
		for _, f := range perObject[i] {
			if f.severity == SeverityError {
				covered[f.field] = true
			}
		}
		fs, err := crdSchemaFindings(o)
		if err != nil {
			return nil, err
		}
		for _, f := range fs {
			if !covered[f.field] {
				add(o, f)
			}
		}
	}
	for _, f := range set {
		if f.index < 0 || f.index >= len(objs) {
			return nil, fmt.Errorf("lint-set: finding %s names object %d of %d", f.rule, f.index, len(objs))
		}
		add(objs[f.index], f)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		switch {
		case a.File != b.File:
			return a.File < b.File
		case a.Line != b.Line:
			return a.Line < b.Line
		case a.Rule != b.Rule:
			return a.Rule < b.Rule
		case a.Field != b.Field:
			return a.Field < b.Field
		}
		return a.Message < b.Message
	})
	return out, nil
}

// findingsFrom checks the shape of a policy's findings: a list of objects
// with string rule, severity, field and message (and an index when
// withIndex).
func findingsFrom(where string, v any, withIndex bool) ([]rawFinding, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s: findings must be a list, got %T", where, v)
	}
	out := make([]rawFinding, 0, len(list))
	for i, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: findings[%d] must be an object, got %T", where, i, e)
		}
		f := rawFinding{index: -1}
		for key, dst := range map[string]*string{"rule": &f.rule, "severity": &f.severity, "field": &f.field, "message": &f.message} {
			s, ok := m[key].(string)
			if !ok {
				return nil, fmt.Errorf("%s: findings[%d].%s must be a string, got %T", where, i, key, m[key])
			}
			*dst = s
		}
		switch f.severity {
		case SeverityError, SeverityWarning, SeverityInfo:
		default:
			return nil, fmt.Errorf("%s: findings[%d].severity must be error, warning or info, got %q", where, i, f.severity)
		}
		if withIndex {
			n, ok := numbersToInt(m["index"]).(int64)
			if !ok {
				return nil, fmt.Errorf("%s: findings[%d].index must be an integer, got %T", where, i, m["index"])
			}
			f.index = int(n)
		}
		out = append(out, f)
	}
	return out, nil
}

// --- CEL ---

type celLinter struct {
	object, set *celPolicy
}

func newCELLinter(set *PolicySet) (*celLinter, error) {
	ps, err := celPoliciesFor(set, "lint-object", "lint-set")
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
	return &celLinter{object: obj, set: all}, nil
}

func (l *celLinter) Name() string { return CEL }

func (l *celLinter) Lint(objs []*Object, opts LintOptions) ([]Finding, error) {
	per := make([][]rawFinding, len(objs))
	for i, o := range objs {
		fs, err := celFindings(l.object, map[string]any{"object": o.Value, "raw": RawScalars(o)}, false)
		if err != nil {
			return nil, fmt.Errorf("%s (%s:%d): %w", o.Ref(), o.File, o.Line, err)
		}
		per[i] = fs
	}
	set, err := celFindings(l.set, map[string]any{"objects": lintSetInput(objs), "crossCheck": opts.CrossCheck}, true)
	if err != nil {
		return nil, err
	}
	return finishFindings(objs, per, set)
}

func celFindings(p *celPolicy, inputs map[string]any, withIndex bool) ([]rawFinding, error) {
	act := p.activation(inputs)
	v, err := act.variable("findings")
	if err != nil {
		return nil, err
	}
	native, err := celNative(v)
	if err != nil {
		return nil, err
	}
	return findingsFrom(p.source+": CEL policy "+p.name, native, withIndex)
}

// --- Rego ---

// The Rego rules the linter evaluates: per object (input {object, raw}) and
// for the whole input (input {objects, crossCheck}).
const (
	RegoLintQuery    = "data.ome.lint.findings"
	RegoLintSetQuery = "data.ome.lint.set_findings"
)

type regoLinter struct {
	object, set rego.PreparedEvalQuery
}

func newRegoLinter(set *PolicySet) (*regoLinter, error) {
	pq, err := prepareRego(set, []string{"ome.lint", "ome.match"}, RegoLintQuery, RegoLintSetQuery)
	if err != nil {
		return nil, err
	}
	return &regoLinter{object: pq[0], set: pq[1]}, nil
}

func (l *regoLinter) Name() string { return Rego }

func (l *regoLinter) Lint(objs []*Object, opts LintOptions) ([]Finding, error) {
	per := make([][]rawFinding, len(objs))
	for i, o := range objs {
		fs, err := regoFindings(l.object, RegoLintQuery, map[string]any{"object": o.Value, "raw": RawScalars(o)}, false)
		if err != nil {
			return nil, fmt.Errorf("%s (%s:%d): %w", o.Ref(), o.File, o.Line, err)
		}
		per[i] = fs
	}
	set, err := regoFindings(l.set, RegoLintSetQuery, map[string]any{"objects": lintSetInput(objs), "crossCheck": opts.CrossCheck}, true)
	if err != nil {
		return nil, err
	}
	return finishFindings(objs, per, set)
}

func regoFindings(q rego.PreparedEvalQuery, query string, input map[string]any, withIndex bool) ([]rawFinding, error) {
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
	return findingsFrom(query, rs[0].Expressions[0].Value, withIndex)
}
