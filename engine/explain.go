package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
)

// VersionText is a version as written, parsed: what the explain policies
// say of it. Numbers are as written, without the v.
type VersionText struct {
	Text    string   `json:"text" yaml:"text"`
	Valid   bool     `json:"valid" yaml:"valid"`
	Problem string   `json:"problem" yaml:"problem"`
	V       bool     `json:"v" yaml:"v"`
	Parts   int      `json:"parts" yaml:"parts"`
	Numbers []string `json:"numbers" yaml:"numbers"`
	Dev     []string `json:"dev" yaml:"dev"`
	Pre     []string `json:"pre" yaml:"pre"`
	Build   []string `json:"build" yaml:"build"`
}

// CheckVersions are the two versions a format or framework check compared,
// and the entry's operator; nil where a side sets none.
type CheckVersions struct {
	Operator *string      `json:"operator" yaml:"operator"`
	Model    *VersionText `json:"model" yaml:"model"`
	Entry    *VersionText `json:"entry" yaml:"entry"`
}

// Check is one check of an entry (pipeline, architecture, quantization,
// format, framework) or of the runtime (disabled, size), in words.
type Check struct {
	Check    string         `json:"check" yaml:"check"`
	Passed   bool           `json:"passed" yaml:"passed"`
	Summary  string         `json:"summary" yaml:"summary"`
	Details  []string       `json:"details" yaml:"details"`
	Fix      string         `json:"fix" yaml:"fix"`
	Versions *CheckVersions `json:"versions" yaml:"versions"`
}

// EntryExplanation is one entry: OME's verdict and differences (from the
// match policies) and the checks that explain them.
type EntryExplanation struct {
	Index       int      `json:"index" yaml:"index"`
	Matched     bool     `json:"matched" yaml:"matched"`
	Differences []string `json:"differences" yaml:"differences"`
	Checks      []Check  `json:"checks" yaml:"checks"`
}

// Explanation is a verdict on one model and one runtime, check by check.
// Compatible and Reason are OME's, from the match policies, unchanged.
type Explanation struct {
	Model         Ref                `json:"model" yaml:"model"`
	Runtime       Ref                `json:"runtime" yaml:"runtime"`
	Compatible    bool               `json:"compatible" yaml:"compatible"`
	Reason        string             `json:"reason" yaml:"reason"`
	RuntimeChecks []Check            `json:"runtimeChecks" yaml:"runtimeChecks"`
	Entries       []EntryExplanation `json:"entries" yaml:"entries"`
	Notes         []string           `json:"notes" yaml:"notes"`
	Advice        []string           `json:"advice" yaml:"advice"`
}

// Explainer explains the verdict on one model and one runtime.
type Explainer interface {
	Name() string
	Explain(model, runtime *Object) (Explanation, error)
}

// explainParts is what the explain policies give: the runtime's checks,
// notes and advice, and each entry's checks.
type explainParts struct {
	Runtime struct {
		Checks []Check  `json:"checks"`
		Notes  []string `json:"notes"`
		Advice []string `json:"advice"`
	} `json:"runtime"`
	Entries [][]Check `json:"entries"`
}

// NewExplainer compiles the match and explain policies for the named engine.
func NewExplainer(name string, set *PolicySet) (Explainer, error) {
	switch name {
	case CEL:
		return newCELExplainer(set)
	case Rego:
		return newRegoExplainer(set)
	case Both:
		c, err := newCELExplainer(set)
		if err != nil {
			return nil, err
		}
		r, err := newRegoExplainer(set)
		if err != nil {
			return nil, err
		}
		return &bothExplainer{cel: c, rego: r}, nil
	}
	_, err := New(name, set)
	return nil, err
}

type bothExplainer struct{ cel, rego Explainer }

func (b *bothExplainer) Name() string { return Both }

func (b *bothExplainer) Explain(model, runtime *Object) (Explanation, error) {
	c, err := b.cel.Explain(model, runtime)
	if err != nil {
		return Explanation{}, fmt.Errorf("cel: %w", err)
	}
	r, err := b.rego.Explain(model, runtime)
	if err != nil {
		return Explanation{}, fmt.Errorf("rego: %w", err)
	}
	if !reflect.DeepEqual(c, r) {
		return Explanation{}, fmt.Errorf("engines disagree on the explanation of %s against %s: cel says %+v; rego says %+v", model.Ref(), runtime.Ref(), c, r)
	}
	return c, nil
}

// decodeParts converts the policies' plain values into explainParts,
// refusing any other shape.
func decodeParts(v any) (explainParts, error) {
	var p explainParts
	b, err := json.Marshal(v)
	if err != nil {
		return p, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return p, fmt.Errorf("the explain policies gave an unexpected shape: %w", err)
	}
	return p, nil
}

// combine puts OME's verdict and the policies' checks together, and checks
// that they tell the same story: an entry matches exactly when all its
// checks pass.
func combine(model, runtime *Object, v Verdict, p explainParts) (Explanation, error) {
	e := Explanation{
		Model: RefOf(model), Runtime: RefOf(runtime),
		Compatible: v.Compatible, Reason: v.Reason,
		RuntimeChecks: p.Runtime.Checks, Notes: p.Runtime.Notes, Advice: p.Runtime.Advice,
		Entries: []EntryExplanation{},
	}
	if len(p.Entries) != len(v.Entries) {
		return e, fmt.Errorf("the explain policies gave %d entries, the match policies %d", len(p.Entries), len(v.Entries))
	}
	for i, er := range v.Entries {
		checks := p.Entries[i]
		passed := true
		for j := range checks {
			normaliseCheck(&checks[j])
			passed = passed && checks[j].Passed
		}
		if passed != er.Matched {
			return e, fmt.Errorf("entry %d: the explain policies say its checks %s, but the match policies say it %s", i,
				map[bool]string{true: "all pass", false: "do not all pass"}[passed], map[bool]string{true: "matches", false: "does not match"}[er.Matched])
		}
		diffs := er.Differences
		if diffs == nil {
			diffs = []string{}
		}
		e.Entries = append(e.Entries, EntryExplanation{Index: i, Matched: er.Matched, Differences: diffs, Checks: checks})
	}
	for j := range e.RuntimeChecks {
		normaliseCheck(&e.RuntimeChecks[j])
	}
	for _, s := range []*[]string{&e.Notes, &e.Advice} {
		if *s == nil {
			*s = []string{}
		}
	}
	if e.RuntimeChecks == nil {
		e.RuntimeChecks = []Check{}
	}
	return e, nil
}

// normaliseCheck makes empty lists [] rather than null, so both engines
// and every output format agree.
func normaliseCheck(c *Check) {
	if c.Details == nil {
		c.Details = []string{}
	}
	if c.Versions == nil {
		return
	}
	for _, v := range []*VersionText{c.Versions.Model, c.Versions.Entry} {
		if v == nil {
			continue
		}
		for _, l := range []*[]string{&v.Numbers, &v.Dev, &v.Pre, &v.Build} {
			if *l == nil {
				*l = []string{}
			}
		}
	}
}

// --- CEL ---

type celExplainer struct {
	match          Matcher
	entry, runtime *celPolicy
}

func newCELExplainer(set *PolicySet) (*celExplainer, error) {
	ps, err := celPoliciesFor(set, "explain-entry", "explain-runtime")
	if err != nil {
		return nil, err
	}
	entry, err := policyWithInputs(set, ps.byName, "explain-entry", []string{"model", "entry"})
	if err != nil {
		return nil, err
	}
	runtime, err := policyWithInputs(set, ps.byName, "explain-runtime", []string{"model", "runtime"})
	if err != nil {
		return nil, err
	}
	return &celExplainer{match: ps.matcher, entry: entry, runtime: runtime}, nil
}

func (x *celExplainer) Name() string { return CEL }

func (x *celExplainer) Explain(model, runtime *Object) (Explanation, error) {
	ms, rs := model.Spec(), runtime.Spec()
	v, err := x.match.Match(ms, rs)
	if err != nil {
		return Explanation{}, err
	}
	out := map[string]any{}
	act := x.runtime.activation(map[string]any{"model": ms, "runtime": rs})
	rt := map[string]any{}
	for _, name := range []string{"checks", "notes", "advice"} {
		val, err := act.variable(name)
		if err != nil {
			return Explanation{}, err
		}
		if rt[name], err = celNative(val); err != nil {
			return Explanation{}, err
		}
	}
	out["runtime"] = rt
	formats, _ := rs["supportedModelFormats"].([]any)
	entries := make([]any, 0, len(formats))
	for i, e := range formats {
		entry, _ := e.(map[string]any)
		if entry == nil {
			entry = map[string]any{}
		}
		val, err := x.entry.activation(map[string]any{"model": ms, "entry": entry}).variable("checks")
		if err != nil {
			return Explanation{}, fmt.Errorf("entry %d: %w", i, err)
		}
		checks, err := celNative(val)
		if err != nil {
			return Explanation{}, fmt.Errorf("entry %d: %w", i, err)
		}
		entries = append(entries, checks)
	}
	out["entries"] = entries
	p, err := decodeParts(out)
	if err != nil {
		return Explanation{}, err
	}
	return combine(model, runtime, v, p)
}

// --- Rego ---

// RegoExplainQuery is the rule the Rego explainer evaluates, with input
// {model, runtime}.
const RegoExplainQuery = "data.ome.explain.result"

type regoExplainer struct {
	match Matcher
	query rego.PreparedEvalQuery
}

func newRegoExplainer(set *PolicySet) (*regoExplainer, error) {
	m, err := NewRego(set)
	if err != nil {
		return nil, err
	}
	pq, err := prepareRego(set, []string{"ome.explain", "ome.match"}, RegoExplainQuery)
	if err != nil {
		return nil, err
	}
	return &regoExplainer{match: m, query: pq[0]}, nil
}

func (x *regoExplainer) Name() string { return Rego }

func (x *regoExplainer) Explain(model, runtime *Object) (Explanation, error) {
	ms, rs := model.Spec(), runtime.Spec()
	v, err := x.match.Match(ms, rs)
	if err != nil {
		return Explanation{}, err
	}
	input, err := ast.InterfaceToValue(map[string]any{"model": ms, "runtime": rs})
	if err != nil {
		return Explanation{}, err
	}
	res, err := x.query.Eval(context.Background(), rego.EvalParsedInput(input))
	if err != nil {
		return Explanation{}, err
	}
	if len(res) != 1 || len(res[0].Expressions) != 1 {
		return Explanation{}, fmt.Errorf("%s is undefined for this pair", RegoExplainQuery)
	}
	p, err := decodeParts(numbersToInt(res[0].Expressions[0].Value))
	if err != nil {
		return Explanation{}, err
	}
	return combine(model, runtime, v, p)
}
