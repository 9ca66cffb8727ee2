package engine

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/ome-policy/evaluator/engine/answer"
	"github.com/ome-policy/evaluator/engine/cel"
	"github.com/ome-policy/evaluator/engine/rego"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/policies/policyset"
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

// LintedObject is one model, runtime or InferenceService that a lint run
// read.
type LintedObject struct {
	Ref
	File string
	Line int
}
