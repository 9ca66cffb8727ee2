package answer

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/objects/crdschema"
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
// before any admission policy sees an object (crdschema.SchemaErrors). Its
// messages are the API server's causes ("Required value", "Invalid value:
// ..."), followed by crdSchemaSuffix.
const RuleCRDSchema = "crd-schema"

// RuleUnreadField is the lint rule for a field that the OME release's CRD
// lacks and another release's has, which its API server drops on apply
// (crdschema.LackedFields): derived from the CRDs, not a policy, so both
// engines give it alike. A policy may give a finding of the rule for such
// a field itself, saying more of what OME does without it; the policy's
// finding then stands for it.
const RuleUnreadField = "unread-field"

// crdSchemaSuffix follows the API server's words in a crd-schema finding.
const crdSchemaSuffix = ". OME's CRD refuses the object: the API server will not take it"

// SetObject is an object as the set rules read it: its identity, where it
// was read, its spec (only what the rules read, unless the whole object is
// kept for the cross-check), and whether the fields that matching reads
// have their types (only such objects are cross-checked; without the
// cross-check, no rule asks). Slimmer.ForSet makes them.
type SetObject struct {
	objects.Ref
	File  string
	Line  int
	Valid bool
	Spec  any // nil when the object has no spec
	// ReadsFiles says of a model that OME fills in what its spec leaves
	// out from the model's files, its size among them (it has no
	// annotation ome.oracle.com/skip-config-parsing: "true"); false for
	// any other object.
	ReadsFiles bool
	// lines are the lines of the fields that the set rules name, but when
	// whole is kept, which has every field's line: metadata.name's, then
	// the format's and the framework's name of a model, or of a runtime's
	// each entry in turn (nameLine); 0 when unknown.
	lines []int32
	whole *objects.Object
}

// nameLine is the place in SetObject.lines of a name's line.
func nameLine(entry int, framework bool) int {
	i := 1 + 2*entry
	if framework {
		i++
	}
	return i
}

// lineOf is the line of a field, the object's own line when it is not
// known.
func (o SetObject) lineOf(field string) int {
	if o.whole != nil {
		return o.whole.LineOf(field)
	}
	i := -1
	switch rest, entry := strings.CutPrefix(field, "spec.supportedModelFormats["); {
	case field == "metadata.name":
		i = 0
	case field == "spec.modelFormat.name" || field == "spec.modelFramework.name":
		i = nameLine(0, field == "spec.modelFramework.name")
	case entry:
		n, name, _ := strings.Cut(rest, "]")
		if e, err := strconv.Atoi(n); err == nil && (name == ".modelFormat.name" || name == ".modelFramework.name") {
			i = nameLine(e, name == ".modelFramework.name")
		}
	}
	if i >= 0 && i < len(o.lines) && o.lines[i] > 0 {
		return int(o.lines[i])
	}
	return o.Line
}

// Slimmer keeps objects for the set rules (ForSet).
type Slimmer struct {
	crossCheck bool
	// specs holds one copy of each slim spec: the runtimes of a cluster
	// dump mostly name the same formats and frameworks.
	specs map[string]map[string]any
}

// NewSlimmer keeps what the set rules read; with crossCheck, the whole
// objects, which matching reads.
func NewSlimmer(crossCheck bool) *Slimmer {
	return &Slimmer{crossCheck: crossCheck, specs: map[string]map[string]any{}}
}

// ForSet is what the set rules need of o: its kind, namespace and name, the
// name of each format and framework block (a model's, each entry's), and
// the lines of these; with crossCheck, the whole object. So a large input
// need not be held whole: a runtime of a cluster dump is kept in a few
// hundred bytes, its spec shared with the runtimes that name the same
// formats and frameworks.
func (s *Slimmer) ForSet(o *objects.Object) SetObject {
	so := SetObject{Ref: objects.RefOf(o), File: o.File, Line: o.Line, Valid: true, Spec: o.Value["spec"], ReadsFiles: readsFiles(o)}
	if s.crossCheck {
		so.whole = o
		so.Valid = objects.CheckObject(o) == nil
		return so
	}
	spec, ok := o.Value["spec"].(map[string]any)
	if !ok {
		return so
	}
	line := func(path string) int32 { return int32(o.Pos.At(path).Line) }
	var modelLines, entryLines []int32
	slim := slimBlocks(spec, "spec", line, &modelLines)
	if entries, ok := spec["supportedModelFormats"].([]any); ok {
		list := make([]any, len(entries))
		for i, e := range entries {
			list[i] = e
			if m, ok := e.(map[string]any); ok {
				list[i] = slimBlocks(m, objects.IndexPath("spec.supportedModelFormats", i), line, &entryLines)
			} else {
				entryLines = append(entryLines, 0, 0)
			}
		}
		slim["supportedModelFormats"] = list
	} else if v, ok := spec["supportedModelFormats"]; ok {
		slim["supportedModelFormats"] = v
	}
	// The rules name a model's own blocks, and a runtime's entries'.
	so.lines = append([]int32{line("metadata.name")}, modelLines...)
	if o.IsRuntime() {
		so.lines = append(so.lines[:1], entryLines...)
	}
	so.Spec = s.shared(slim)
	return so
}

// readsFiles says of a model that OME reads its files (no annotation
// ome.oracle.com/skip-config-parsing: "true").
func readsFiles(o *objects.Object) bool {
	if !o.IsModel() {
		return false
	}
	meta, _ := o.Value["metadata"].(map[string]any)
	annotations, _ := meta["annotations"].(map[string]any)
	return annotations["ome.oracle.com/skip-config-parsing"] != "true"
}

// shared gives the one copy of a slim spec equal to spec (which the set
// rules only read).
func (s *Slimmer) shared(spec map[string]any) map[string]any {
	key, err := json.Marshal(spec)
	if err != nil {
		return spec
	}
	if kept, ok := s.specs[string(key)]; ok {
		return kept
	}
	s.specs[string(key)] = spec
	return spec
}

// slimBlocks keeps of a model's spec or an entry its modelFormat and
// modelFramework with their names alone, and appends the names' lines (0
// for a block without a name) to lines.
func slimBlocks(from map[string]any, path string, line func(string) int32, lines *[]int32) map[string]any {
	out := map[string]any{}
	for _, k := range []string{"modelFormat", "modelFramework"} {
		v, ok := from[k]
		block, isMap := v.(map[string]any)
		name, isString := block["name"].(string)
		switch {
		case !ok:
		case !isMap:
			out[k] = v
		case !isString:
			out[k] = map[string]any{}
		default:
			out[k] = map[string]any{"name": name}
		}
		l := int32(0)
		if isString {
			l = line(objects.JoinPath(objects.JoinPath(path, k), "name"))
		}
		*lines = append(*lines, l)
	}
	return out
}

// LintSetInput is what the set policy gets for each object.
func LintSetInput(objs []SetObject) []any {
	out := make([]any, len(objs))
	for i, o := range objs {
		spec := o.Spec
		if spec == nil {
			spec = map[string]any{}
		}
		out[i] = map[string]any{
			"kind":       o.Kind,
			"namespace":  o.Namespace,
			"name":       o.Name,
			"file":       o.File,
			"line":       int64(o.Line),
			"valid":      o.Valid,
			"readsFiles": o.ReadsFiles,
			"spec":       spec,
		}
	}
	return out
}

// ObjectFindings turns the per-object policy's findings about o into
// Findings with its file and lines, and adds what the CRDs of the OME
// release refuse, and the fields they lack (unread-field): the API
// server's own doing, not a policy, so both engines give it alike. A field
// that a policy already reports as an error is left to that rule, which
// says how to fix it, and so is a field that a policy reports unread.
func ObjectFindings(o *objects.Object, raw []RawFinding, release string) ([]Finding, error) {
	out := make([]Finding, 0, len(raw))
	covered := map[string]bool{}
	unread := map[string]bool{}
	for _, f := range raw {
		out = append(out, finding(o, f))
		if f.Severity == SeverityError {
			covered[f.Field] = true
		}
		if f.Rule == RuleUnreadField {
			unread[f.Field] = true
		}
	}
	lacked, err := crdschema.LackedFields(o, release)
	if err != nil {
		return nil, err
	}
	for _, l := range lacked {
		if !unread[l.Field] {
			out = append(out, finding(o, RawFinding{Index: -1, Rule: RuleUnreadField, Severity: SeverityWarning, Field: l.Field, Message: l.Message()}))
		}
	}
	errs, err := crdschema.SchemaErrors(o, release)
	if err != nil {
		return nil, err
	}
	for _, e := range errs {
		if !covered[e.Field] {
			out = append(out, finding(o, RawFinding{Index: -1, Rule: RuleCRDSchema, Severity: SeverityError, Field: e.Field, Message: e.Message + crdSchemaSuffix}))
		}
	}
	return out, nil
}

// SetFindings turns the set policy's findings into Findings, each about
// the object at its index.
func SetFindings(objs []SetObject, raw []RawFinding) ([]Finding, error) {
	out := make([]Finding, 0, len(raw))
	for _, f := range raw {
		if f.Index < 0 || f.Index >= len(objs) {
			return nil, fmt.Errorf("lint-set: finding %s names object %d of %d", f.Rule, f.Index, len(objs))
		}
		o := objs[f.Index]
		out = append(out, Finding{
			Rule: f.Rule, Severity: f.Severity, Object: o.Ref, Field: f.Field,
			File: o.File, Line: o.lineOf(f.Field), Message: f.Message, ObjectLine: o.Line,
		})
	}
	return out, nil
}

func finding(o *objects.Object, f RawFinding) Finding {
	return Finding{
		Rule: f.Rule, Severity: f.Severity, Object: objects.RefOf(o), Field: f.Field,
		File: o.File, Line: o.LineOf(f.Field), Message: f.Message, ObjectLine: o.Line,
	}
}

// SortFindings sorts findings by file, line and rule (then field and
// message, so the order never depends on the engine).
func SortFindings(out []Finding) {
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
