package engine

import (
	"context"
	"fmt"
	"reflect"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
)

// Candidate is a runtime the webhook could choose, with its score.
type Candidate struct {
	Ref   `yaml:",inline"`
	Score int64 `json:"score" yaml:"score"`
}

// Excluded is a runtime that is not compatible, with its first reason.
type Excluded struct {
	Ref    `yaml:",inline"`
	Reason string `json:"reason" yaml:"reason"`
}

// Checked counts the runtimes selection looked at.
type Checked struct {
	Namespaced int `json:"namespaced" yaml:"namespaced"`
	Cluster    int `json:"cluster" yaml:"cluster"`
}

// Decision is OME's webhook verdict on one InferenceService (spec section
// 10), with what selection saw. Warnings say what OME's controller would
// say of a runtime named in spec.runtime.name; they never change the verdict.
type Decision struct {
	Admitted   bool        `json:"admitted" yaml:"admitted"`
	Message    string      `json:"message" yaml:"message"`
	Selection  bool        `json:"selection" yaml:"selection"`
	Selected   *Ref        `json:"runtime" yaml:"runtime"`
	Model      *Ref        `json:"model" yaml:"model"`
	Candidates []Candidate `json:"candidates" yaml:"candidates"`
	Excluded   []Excluded  `json:"excluded" yaml:"excluded"`
	Checked    Checked     `json:"checked" yaml:"checked"`
	Warnings   []string    `json:"warnings" yaml:"warnings"`
}

// Selector decides on one InferenceService given the cluster's models and
// runtimes.
type Selector interface {
	Name() string
	Select(isvc *Object, cluster []*Object) (Decision, error)
}

// NewSelector compiles the selection policies for the named engine.
func NewSelector(name string, set *PolicySet) (Selector, error) {
	switch name {
	case CEL:
		return NewCELSelector(set)
	case Rego:
		return NewRegoSelector(set)
	case Both:
		c, err := NewCELSelector(set)
		if err != nil {
			return nil, err
		}
		r, err := NewRegoSelector(set)
		if err != nil {
			return nil, err
		}
		return &bothSelector{cel: c, rego: r}, nil
	}
	_, err := New(name, set)
	return nil, err
}

type bothSelector struct{ cel, rego Selector }

func (b *bothSelector) Name() string { return Both }

func (b *bothSelector) Select(isvc *Object, cluster []*Object) (Decision, error) {
	c, err := b.cel.Select(isvc, cluster)
	if err != nil {
		return Decision{}, fmt.Errorf("cel: %w", err)
	}
	r, err := b.rego.Select(isvc, cluster)
	if err != nil {
		return Decision{}, fmt.Errorf("rego: %w", err)
	}
	if !reflect.DeepEqual(c, r) {
		return Decision{}, fmt.Errorf("engines disagree on %s: cel says %+v; rego says %+v", isvc.Ref(), c, r)
	}
	return c, nil
}

func objectValues(objs []*Object) []any {
	out := make([]any, len(objs))
	for i, o := range objs {
		out[i] = o.Value
	}
	return out
}

// --- CEL ---

type celSelector struct {
	webhook *celPolicy
}

// NewCELSelector compiles the CEL policies for the webhook.
func NewCELSelector(set *PolicySet) (Selector, error) {
	ps, err := celPoliciesFor(set, "webhook")
	if err != nil {
		return nil, err
	}
	p, err := policyWithInputs(set, ps.byName, "webhook", []string{"inferenceService", "objects"})
	if err != nil {
		return nil, err
	}
	return &celSelector{webhook: p}, nil
}

func (s *celSelector) Name() string { return CEL }

func (s *celSelector) Select(isvc *Object, cluster []*Object) (Decision, error) {
	act := s.webhook.activation(map[string]any{"inferenceService": isvc.Value, "objects": objectValues(cluster)})
	failures, err := s.webhook.run(act)
	if err != nil {
		return Decision{}, err
	}
	d := Decision{Admitted: len(failures) == 0}
	if !d.Admitted {
		d.Message = failures[0]
	}
	vars := map[string]any{}
	for _, name := range []string{"selection", "model", "warnings"} {
		v, err := act.variable(name)
		if err != nil {
			return Decision{}, err
		}
		if vars[name], err = celNative(v); err != nil {
			return Decision{}, err
		}
	}
	if sel, _ := vars["selection"].(bool); sel {
		for _, name := range []string{"selected", "ranked", "excluded", "checkedCounts"} {
			v, err := act.variable(name)
			if err != nil {
				return Decision{}, err
			}
			if vars[name], err = celNative(v); err != nil {
				return Decision{}, err
			}
		}
	}
	return decisionFrom(d, vars)
}

// decisionFrom fills a Decision from the policy's outputs, which both
// engines give as plain values.
func decisionFrom(d Decision, out map[string]any) (Decision, error) {
	d.Selection, _ = out["selection"].(bool)
	d.Model = refFrom(out["model"])
	d.Candidates, d.Excluded, d.Warnings = []Candidate{}, []Excluded{}, []string{}
	for _, w := range listOf(out["warnings"]) {
		s, _ := w.(string)
		d.Warnings = append(d.Warnings, s)
	}
	if !d.Selection {
		return d, nil
	}
	if d.Admitted {
		d.Selected = refFrom(out["selected"])
		if d.Selected == nil {
			return d, fmt.Errorf("the policy admitted by selection but chose no runtime")
		}
	}
	for _, c := range listOf(out["ranked"]) {
		m, _ := c.(map[string]any)
		r := refFrom(m)
		if r == nil {
			return d, fmt.Errorf("a ranked runtime is not a reference: %v", c)
		}
		d.Candidates = append(d.Candidates, Candidate{Ref: *r, Score: toInt64(m["score"])})
	}
	for _, e := range listOf(out["excluded"]) {
		m, _ := e.(map[string]any)
		r := refFrom(m)
		if r == nil {
			return d, fmt.Errorf("an excluded runtime is not a reference: %v", e)
		}
		reason, _ := m["reason"].(string)
		d.Excluded = append(d.Excluded, Excluded{Ref: *r, Reason: reason})
	}
	counts, _ := out["checkedCounts"].(map[string]any)
	d.Checked = Checked{Namespaced: int(toInt64(counts["namespaced"])), Cluster: int(toInt64(counts["cluster"]))}
	return d, nil
}

func listOf(v any) []any {
	l, _ := v.([]any)
	return l
}

func refFrom(v any) *Ref {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	r := &Ref{}
	r.Kind, _ = m["kind"].(string)
	r.Namespace, _ = m["namespace"].(string)
	r.Name, _ = m["name"].(string)
	return r
}

func toInt64(v any) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case int:
		return int64(x)
	case float64:
		return int64(x)
	}
	return 0
}

// --- Rego ---

// RegoSelectQuery is the rule the Rego selector evaluates.
const RegoSelectQuery = "data.ome.select.result"

type regoSelector struct {
	query rego.PreparedEvalQuery
}

// NewRegoSelector compiles the Rego policies for data.ome.select.result.
func NewRegoSelector(set *PolicySet) (Selector, error) {
	pq, err := prepareRego(set, []string{"ome.select", "ome.match"}, RegoSelectQuery)
	if err != nil {
		return nil, err
	}
	return &regoSelector{query: pq[0]}, nil
}

func (s *regoSelector) Name() string { return Rego }

func (s *regoSelector) Select(isvc *Object, cluster []*Object) (Decision, error) {
	input, err := ast.InterfaceToValue(map[string]any{"inferenceService": isvc.Value, "objects": objectValues(cluster)})
	if err != nil {
		return Decision{}, err
	}
	rs, err := s.query.Eval(context.Background(), rego.EvalParsedInput(input))
	if err != nil {
		return Decision{}, err
	}
	if len(rs) != 1 || len(rs[0].Expressions) != 1 {
		return Decision{}, fmt.Errorf("%s is undefined for %s", RegoSelectQuery, isvc.Ref())
	}
	out, ok := rs[0].Expressions[0].Value.(map[string]any)
	if !ok {
		return Decision{}, fmt.Errorf("%s: want an object", RegoSelectQuery)
	}
	d := Decision{}
	d.Admitted, _ = out["admitted"].(bool)
	d.Message, _ = out["message"].(string)
	norm := map[string]any{
		"selection":     out["selection"],
		"model":         out["model"],
		"warnings":      out["warnings"],
		"selected":      out["selected"],
		"ranked":        numbersToInt(out["candidates"]),
		"excluded":      out["excluded"],
		"checkedCounts": numbersToInt(out["checked"]),
	}
	return decisionFrom(d, norm)
}

// numbersToInt turns the json.Number values of Rego results into int64.
func numbersToInt(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = numbersToInt(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = numbersToInt(e)
		}
		return out
	case interface{ Int64() (int64, error) }:
		n, _ := x.Int64()
		return n
	}
	return v
}
