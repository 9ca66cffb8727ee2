package answer

import (
	"fmt"
	"sort"

	"github.com/ome-policy/evaluator/objects"
)

// Severities of lint findings, from the most to the least serious.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
	SeverityInfo    = "info"
)

// Finding is one problem the lint policies found in an object.
type Finding struct {
	Rule     string      `json:"rule" yaml:"rule"`
	Severity string      `json:"severity" yaml:"severity"`
	Object   objects.Ref `json:"object" yaml:"object"`
	Field    string      `json:"field" yaml:"field"`
	File     string      `json:"file" yaml:"file"`
	Line     int         `json:"line" yaml:"line"`
	Message  string      `json:"message" yaml:"message"`
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

// RawFinding is a finding as a policy gives it: Index is the object's
// position in the input (-1 for a per-object finding, whose object is known).
type RawFinding struct {
	Index                          int
	Rule, Severity, Field, Message string
}

// RuleCRDSchema is the lint rule for what OME's CRDs refuse. Unlike the
// other rules it is no policy: it is the check the API server itself makes
// before any admission policy sees an object (objects.SchemaErrors). Its
// messages are the API server's causes ("Required value", "Invalid value:
// ..."), followed by crdSchemaSuffix.
const RuleCRDSchema = "crd-schema"

// crdSchemaSuffix follows the API server's words in a crd-schema finding.
const crdSchemaSuffix = ". OME's CRD refuses the object: the API server will not take it"

// LintSetInput is what the set policy gets for each object: the object,
// where it was read, and whether its fields have the types matching reads
// (only such objects are cross-checked).
func LintSetInput(objs []*objects.Object) []any {
	out := make([]any, len(objs))
	for i, o := range objs {
		out[i] = map[string]any{
			"object": o.Value,
			"file":   o.File,
			"line":   int64(o.Line),
			"valid":  objects.CheckObject(o) == nil,
		}
	}
	return out
}

// FinishFindings turns the policies' findings into Findings with their
// objects, files and lines, sorted by file, line and rule (then field and
// message, so the order never depends on the engine).
func FinishFindings(objs []*objects.Object, perObject [][]RawFinding, set []RawFinding) ([]Finding, error) {
	out := []Finding{}
	add := func(o *objects.Object, f RawFinding) {
		out = append(out, Finding{
			Rule: f.Rule, Severity: f.Severity, Object: objects.RefOf(o), Field: f.Field,
			File: o.File, Line: o.LineOf(f.Field), Message: f.Message, ObjectLine: o.Line,
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
			if f.Severity == SeverityError {
				covered[f.Field] = true
			}
		}
		errs, err := objects.SchemaErrors(o)
		if err != nil {
			return nil, err
		}
		for _, e := range errs {
			if !covered[e.Field] {
				add(o, RawFinding{Index: -1, Rule: RuleCRDSchema, Severity: SeverityError, Field: e.Field, Message: e.Message + crdSchemaSuffix})
			}
		}
	}
	for _, f := range set {
		if f.Index < 0 || f.Index >= len(objs) {
			return nil, fmt.Errorf("lint-set: finding %s names object %d of %d", f.Rule, f.Index, len(objs))
		}
		add(objs[f.Index], f)
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

// FindingsFrom checks the shape of a policy's findings: a list of objects
// with string rule, severity, field and message (and an index when
// withIndex).
func FindingsFrom(where string, v any, withIndex bool) ([]RawFinding, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s: findings must be a list, got %T", where, v)
	}
	out := make([]RawFinding, 0, len(list))
	for i, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: findings[%d] must be an object, got %T", where, i, e)
		}
		f := RawFinding{Index: -1}
		for key, dst := range map[string]*string{"rule": &f.Rule, "severity": &f.Severity, "field": &f.Field, "message": &f.Message} {
			s, ok := m[key].(string)
			if !ok {
				return nil, fmt.Errorf("%s: findings[%d].%s must be a string, got %T", where, i, key, m[key])
			}
			*dst = s
		}
		switch f.Severity {
		case SeverityError, SeverityWarning, SeverityInfo:
		default:
			return nil, fmt.Errorf("%s: findings[%d].severity must be error, warning or info, got %q", where, i, f.Severity)
		}
		if withIndex {
			n, ok := NumbersToInt(m["index"]).(int64)
			if !ok {
				return nil, fmt.Errorf("%s: findings[%d].index must be an integer, got %T", where, i, m["index"])
			}
			f.Index = int(n)
		}
		out = append(out, f)
	}
	return out, nil
}
