package engine

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/ome-policy/evaluator/engine/answer"
	"github.com/ome-policy/evaluator/engine/cel"
	"github.com/ome-policy/evaluator/engine/policyset"
	"github.com/ome-policy/evaluator/engine/rego"
	"github.com/ome-policy/evaluator/objects"
)

// Linter runs the lint policies: on each object alone (Object), then on
// the objects together (Set: duplicate-name, name-case and the
// cross-check), so that a large input can be linted an object at a time,
// keeping of each only what the set rules read (Slimmer). The policies
// decide every finding but crd-schema (what OME's CRDs refuse, checked in
// Go with the API server's validator); the engine only hands them the
// objects and maps each finding's field to its file and line.
type Linter interface {
	Name() string
	Object(o *objects.Object) ([]Finding, error)
	Set(objs []SetObject, opts LintOptions) ([]Finding, error)
}

// SetObject: an object as the set rules read it, kept by a Slimmer.
type SetObject = answer.SetObject

// Slimmer keeps objects as the set rules read them.
type Slimmer = answer.Slimmer

var (
	NewSlimmer = answer.NewSlimmer
	// SortFindings sorts findings by file, line and rule.
	SortFindings = answer.SortFindings
)

// Lint lints objs, each alone and then together, and sorts the findings by
// file, line and rule.
func Lint(l Linter, objs []*objects.Object, opts LintOptions) ([]Finding, error) {
	out := []Finding{}
	set := make([]SetObject, len(objs))
	slimmer := NewSlimmer(opts.CrossCheck)
	for i, o := range objs {
		fs, err := l.Object(o)
		if err != nil {
			return nil, err
		}
		out = append(out, fs...)
		set[i] = slimmer.ForSet(o)
	}
	fs, err := l.Set(set, opts)
	if err != nil {
		return nil, err
	}
	out = append(out, fs...)
	answer.SortFindings(out)
	return out, nil
}

// NewLinter compiles the lint policies for the named engine.
func NewLinter(name string, set *policyset.Set) (Linter, error) {
	ls, err := byEngine(name, set,
		func(s *policyset.Set) (Linter, error) { return cel.NewLinter(s) },
		func(s *policyset.Set) (Linter, error) { return rego.NewLinter(s) })
	if err != nil {
		return nil, err
	}
	if len(ls) == 2 {
		return &bothLinter{cel: ls[0], rego: ls[1]}, nil
	}
	return ls[0], nil
}

type bothLinter struct{ cel, rego Linter }

func (b *bothLinter) Name() string { return Both }

func (b *bothLinter) Object(o *objects.Object) ([]Finding, error) {
	return b.agree(func(l Linter) ([]Finding, error) { return l.Object(o) })
}

func (b *bothLinter) Set(objs []SetObject, opts LintOptions) ([]Finding, error) {
	return b.agree(func(l Linter) ([]Finding, error) { return l.Set(objs, opts) })
}

// agree asks both engines and refuses to answer when they disagree.
func (b *bothLinter) agree(ask func(Linter) ([]Finding, error)) ([]Finding, error) {
	c, err := ask(b.cel)
	if err != nil {
		return nil, fmt.Errorf("cel: %w", err)
	}
	r, err := ask(b.rego)
	if err != nil {
		return nil, fmt.Errorf("rego: %w", err)
	}
	answer.SortFindings(c)
	answer.SortFindings(r)
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

// Rule is one lint rule, as the policies' lint-rules.yaml lists it.
type Rule struct {
	ID          string `json:"id" yaml:"id"`
	Severity    string `json:"severity" yaml:"severity"`
	Description string `json:"description" yaml:"description"`
	// Releases are the OME releases the rule applies to; none: every one.
	Releases []string `json:"releases,omitempty" yaml:"releases,omitempty"`
}

// RuleInputError is what lint reports an input that could not be read
// (YAML that does not parse, a template, an object without a name) as: no
// policy's rule, and never turned off.
const RuleInputError = "input-error"

// RuleDuplicateName is the rule that names each object a later one of the
// same kind, namespace and name replaces.
const RuleDuplicateName = "duplicate-name"

// IgnoreAnnotation is the annotation with which an object turns rules off
// for itself: a comma-separated list of rule ids.
const IgnoreAnnotation = "evaluate.ome.io/ignore"

// LintRules lists the lint rules of the policies, in their order.
func LintRules(set *policyset.Set) ([]Rule, error) {
	var doc struct {
		Rules []Rule `yaml:"rules"`
	}
	if err := yaml.Unmarshal([]byte(set.LintRules), &doc); err != nil {
		return nil, fmt.Errorf("policies %s: %s: %w", set.Origin, policyset.LintRulesFile, err)
	}
	for i, r := range doc.Rules {
		if r.ID == "" || r.Severity == "" || r.Description == "" {
			return nil, fmt.Errorf("policies %s: %s: rules[%d] needs an id, a severity and a description", set.Origin, policyset.LintRulesFile, i)
		}
		for _, rel := range r.Releases {
			if !slices.Contains(set.Releases(), rel) {
				return nil, fmt.Errorf("policies %s: %s: rule %s: %s is not an OME release the policies state (%s)", set.Origin, policyset.LintRulesFile, r.ID, rel, strings.Join(set.Releases(), ", "))
			}
		}
	}
	return doc.Rules, nil
}

// RuleFilter says which rules a lint run reports: every rule but those
// turned off, or only those turned on.
type RuleFilter struct {
	disabled, only map[string]bool
}

// NewRuleFilter turns --disable and --enable-only into a filter; a rule id
// that is not among rules is an error, never silently ignored.
func NewRuleFilter(rules []Rule, disable, enableOnly []string) (RuleFilter, error) {
	var f RuleFilter
	var err error
	if f.disabled, err = ruleSet(rules, disable, "--disable"); err != nil {
		return f, err
	}
	if f.only, err = ruleSet(rules, enableOnly, "--enable-only"); err != nil {
		return f, err
	}
	return f, nil
}

// Keep reports whether the filter keeps a finding of the rule, the object's
// own ignored rules (IgnoredRules) aside.
func (f RuleFilter) Keep(rule string, ignored map[string]bool) bool {
	if rule == RuleInputError {
		return true
	}
	if len(f.only) > 0 && !f.only[rule] {
		return false
	}
	return !f.disabled[rule] && !ignored[rule]
}

func ruleSet(rules []Rule, ids []string, where string) (map[string]bool, error) {
	known := map[string]bool{}
	for _, r := range rules {
		known[r.ID] = true
	}
	out := map[string]bool{}
	for _, id := range ids {
		id = strings.TrimSpace(id)
		if id == "" {
			continue
		}
		if !known[id] {
			return nil, fmt.Errorf("%s: unknown rule %q (evaluate lint --list-rules lists them)", where, id)
		}
		out[id] = true
	}
	return out, nil
}

// IgnoredRules reads the rules an object turns off for itself (the
// annotation evaluate.ome.io/ignore). A rule id that is not among rules
// is a problem that names the annotation; the known ones still apply.
func IgnoredRules(o *objects.Object, rules []Rule) (map[string]bool, *objects.InputError) {
	meta, _ := o.Value["metadata"].(map[string]any)
	annotations, _ := meta["annotations"].(map[string]any)
	v, ok := annotations[IgnoreAnnotation]
	if !ok {
		return nil, nil
	}
	field := objects.JoinPath("metadata.annotations", IgnoreAnnotation)
	s, isString := v.(string)
	if !isString {
		return nil, &objects.InputError{File: o.File, Line: o.LineOf(field), Field: field, Msg: "must be a string of rule ids separated by commas"}
	}
	known := map[string]bool{}
	for _, r := range rules {
		known[r.ID] = true
	}
	out := map[string]bool{}
	var unknown []string
	for _, id := range strings.Split(s, ",") {
		id = strings.TrimSpace(id)
		switch {
		case id == "":
		case known[id]:
			out[id] = true
		default:
			unknown = append(unknown, strconv.Quote(id))
		}
	}
	if len(unknown) > 0 {
		return out, &objects.InputError{File: o.File, Line: o.LineOf(field), Field: field,
			Msg: "unknown rule " + strings.Join(unknown, ", ") + " (evaluate lint --list-rules lists them)"}
	}
	return out, nil
}

// Linted says whether lint reads o: models, runtimes and InferenceServices
// (of which the rules read the fields their CRD lacks and the deployment
// modes).
func Linted(o *objects.Object) bool {
	return o.IsModel() || o.IsRuntime() || o.Kind == objects.KindInferenceService
}

// LintedObject is one model, runtime or InferenceService that a lint run
// read.
type LintedObject struct {
	Ref
	File string
	Line int
}

// LintRun lints objects as they are read (Object: each alone), keeping of
// each what the rules about the objects together read, then runs those
// rules (Finish). It keeps the findings that its RuleFilter and each
// object's own ignored rules (IgnoredRules) keep, so that a cluster's whole
// dump is linted in memory that grows with what the set rules read.
type LintRun struct {
	linter     Linter
	rules      []Rule
	filter     RuleFilter
	crossCheck bool
	slimmer    *Slimmer

	// Findings are those kept so far, in the order they were found.
	Findings []Finding
	// Objects are the models, runtimes and InferenceServices read, in
	// input order.
	Objects []LintedObject
	// Problems are the objects' ignore annotations that name unknown rules.
	Problems []*objects.InputError
	// Others counts the OME objects that lint does not read (Linted), by
	// kind.
	Others map[string]int

	set     []SetObject
	ignored []map[string]bool // each object's evaluate.ome.io/ignore
	err     error
}

// NewLintRun starts a lint run of l with the rules of the policies,
// filtered; crossCheck also pairs every model with every runtime OME
// pairs it with.
func NewLintRun(l Linter, rules []Rule, filter RuleFilter, crossCheck bool) *LintRun {
	return &LintRun{linter: l, rules: rules, filter: filter, crossCheck: crossCheck, slimmer: NewSlimmer(crossCheck), Others: map[string]int{}}
}

// Object lints one object as it is read. After an error it does nothing;
// Finish returns the error.
func (r *LintRun) Object(o *objects.Object) {
	if r.err != nil {
		return
	}
	if !Linted(o) {
		r.Others[o.Kind]++
		return
	}
	ignored, problem := IgnoredRules(o, r.rules)
	if problem != nil {
		r.Problems = append(r.Problems, problem)
	}
	fs, err := r.linter.Object(o)
	if err != nil {
		r.err = err
		return
	}
	r.keep(fs, ignored)
	r.Objects = append(r.Objects, LintedObject{Ref: objects.RefOf(o), File: o.File, Line: o.Line})
	r.set = append(r.set, r.slimmer.ForSet(o))
	r.ignored = append(r.ignored, ignored)
}

// Err is the error that stopped Object, if any.
func (r *LintRun) Err() error { return r.err }

// Finish runs the rules about the objects together. Those read what
// kubectl apply would leave of the objects (objects.Applied): of the
// objects of one kind, namespace and name, the last; but duplicate-name,
// which names each object a later one replaces, reads them all.
func (r *LintRun) Finish() error {
	if r.err != nil {
		return r.err
	}
	left := objects.Applied(len(r.Objects), func(i int) objects.Ref { return r.Objects[i].Ref })
	applied := r.applied(left)
	fs, err := r.linter.Set(applied, LintOptions{CrossCheck: r.crossCheck})
	if err != nil {
		return err
	}
	if len(applied) < len(r.set) {
		all, err := r.linter.Set(r.set, LintOptions{})
		if err != nil {
			return err
		}
		for _, f := range all {
			if f.Rule == RuleDuplicateName {
				fs = append(fs, f)
			}
		}
	}
	byObject := make(map[LintedObject]map[string]bool, len(r.Objects))
	for i, o := range r.Objects {
		byObject[o] = r.ignored[i]
	}
	for _, f := range fs {
		r.keep([]Finding{f}, byObject[LintedObject{Ref: f.Object, File: f.File, Line: f.ObjectLine}])
	}
	return nil
}

// applied is the objects of the set that left marks.
func (r *LintRun) applied(left []bool) []SetObject {
	out := make([]SetObject, 0, len(r.set))
	for i, o := range r.set {
		if left[i] {
			out = append(out, o)
		}
	}
	return out
}

func (r *LintRun) keep(fs []Finding, ignored map[string]bool) {
	for _, f := range fs {
		if r.filter.Keep(f.Rule, ignored) {
			r.Findings = append(r.Findings, f)
		}
	}
}
