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

// ExplainQuery is the rule the Rego explainer evaluates, with input
// {model, runtime}.
const ExplainQuery = "data.ome.explain.result"

type Explainer struct {
	match *Matcher
	query rego.PreparedEvalQuery
}

func NewExplainer(set *policyset.Set) (*Explainer, error) {
	m, err := New(set)
	if err != nil {
		return nil, err
	}
	pq, err := Queries(set, []string{"ome.explain", "ome.match"}, ExplainQuery)
	if err != nil {
		return nil, err
	}
	return &Explainer{match: m, query: pq[0]}, nil
}

func (x *Explainer) Name() string { return Name }

func (x *Explainer) Explain(model, runtime *objects.Object) (answer.Explanation, error) {
	ms, rs := model.Spec(), runtime.Spec()
	v, err := x.match.Match(ms, rs)
	if err != nil {
		return answer.Explanation{}, err
	}
	input, err := ast.InterfaceToValue(map[string]any{"model": ms, "runtime": rs})
	if err != nil {
		return answer.Explanation{}, err
	}
	res, err := x.query.Eval(context.Background(), rego.EvalParsedInput(input))
	if err != nil {
		return answer.Explanation{}, err
	}
	if len(res) != 1 || len(res[0].Expressions) != 1 {
		return answer.Explanation{}, fmt.Errorf("%s is undefined for this pair", ExplainQuery)
	}
	return answer.ExplanationFrom(model, runtime, v, answer.NumbersToInt(res[0].Expressions[0].Value))
}
