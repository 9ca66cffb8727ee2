// Package engine loads the policies (embedded or from a folder), compiles
// them once, and evaluates models against runtimes with CEL, with Rego, or
// with both at once.
package engine

import (
	"fmt"
	"reflect"
	"strings"
)

// Names of the engines.
const (
	CEL  = "cel"
	Rego = "rego"
	Both = "both"
)

// Names lists the engines a user can choose, in the order help shows them.
var Names = []string{CEL, Rego, Both}

// Ref names an object in results.
type Ref struct {
	Kind      string `json:"kind" yaml:"kind"`
	Namespace string `json:"namespace" yaml:"namespace"`
	Name      string `json:"name" yaml:"name"`
}

// RefOf returns the reference to o.
func RefOf(o *Object) Ref { return Ref{Kind: o.Kind, Namespace: o.Namespace, Name: o.Name} }

// EntryResult is the verdict on one entry of spec.supportedModelFormats.
type EntryResult struct {
	Index       int      `json:"index" yaml:"index"`
	Matched     bool     `json:"matched" yaml:"matched"`
	Differences []string `json:"differences" yaml:"differences"`
}

// Verdict is the policies' answer for one model spec and one runtime spec.
type Verdict struct {
	Compatible bool          `json:"compatible" yaml:"compatible"`
	Reason     string        `json:"reason" yaml:"reason"`
	Entries    []EntryResult `json:"entries" yaml:"entries"`
}

// Result is a Verdict with the two objects it is about.
type Result struct {
	Model   Ref `json:"model" yaml:"model"`
	Runtime Ref `json:"runtime" yaml:"runtime"`
	Verdict `yaml:",inline"`
}

// Matcher evaluates one model spec against one runtime spec. The specs are
// normalised values as Load returns them (Object.Spec). Implementations are
// safe for concurrent use.
type Matcher interface {
	Name() string
	Match(model, runtime map[string]any) (Verdict, error)
}

// New compiles the policies of set for the named engine: cel, rego or both.
func New(name string, set *PolicySet) (Matcher, error) {
	switch name {
	case CEL:
		return NewCEL(set)
	case Rego:
		return NewRego(set)
	case Both:
		c, err := NewCEL(set)
		if err != nil {
			return nil, err
		}
		r, err := NewRego(set)
		if err != nil {
			return nil, err
		}
		return &bothMatcher{cel: c, rego: r}, nil
	}
	return nil, fmt.Errorf("unknown engine %q (want %s)", name, strings.Join(Names, ", "))
}

// DisagreementError is returned by the "both" engine when CEL and Rego give
// different verdicts: a bug in one of the policies.
type DisagreementError struct {
	CEL, Rego Verdict
}

func (e *DisagreementError) Error() string {
	return fmt.Sprintf("engines disagree: cel says %s; rego says %s", describe(e.CEL), describe(e.Rego))
}

func describe(v Verdict) string {
	if v.Compatible {
		return fmt.Sprintf("compatible, entries %v", v.Entries)
	}
	return fmt.Sprintf("not compatible (%q), entries %v", v.Reason, v.Entries)
}

type bothMatcher struct {
	cel, rego Matcher
}

func (b *bothMatcher) Name() string { return Both }

func (b *bothMatcher) Match(model, runtime map[string]any) (Verdict, error) {
	c, err := b.cel.Match(model, runtime)
	if err != nil {
		return Verdict{}, fmt.Errorf("cel: %w", err)
	}
	r, err := b.rego.Match(model, runtime)
	if err != nil {
		return Verdict{}, fmt.Errorf("rego: %w", err)
	}
	if !reflect.DeepEqual(c, r) {
		return Verdict{}, &DisagreementError{CEL: c, Rego: r}
	}
	return c, nil
}

// MatchObjects evaluates every model against every runtime, in input order
// (by model, then runtime), and hands each result to emit as soon as it is
// known. It stops at the first error, which names the pair.
func MatchObjects(m Matcher, models, runtimes []*Object, emit func(Result) error) error {
	for _, mo := range models {
		for _, ro := range runtimes {
			v, err := m.Match(mo.Spec(), ro.Spec())
			if err != nil {
				return fmt.Errorf("model %s (%s) against runtime %s (%s): %w", mo.Ref(), mo.File, ro.Ref(), ro.File, err)
			}
			if err := emit(Result{Model: RefOf(mo), Runtime: RefOf(ro), Verdict: v}); err != nil {
				return err
			}
		}
	}
	return nil
}
