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

// SelectQuery is the rule the Rego selector evaluates.
const SelectQuery = "data.ome.select.result"

type Selector struct {
	query rego.PreparedEvalQuery
}

// NewSelector compiles the Rego policies for data.ome.select.result.
func NewSelector(set *policyset.Set) (*Selector, error) {
	pq, err := Queries(set, []string{"ome.select", "ome.match"}, SelectQuery)
	if err != nil {
		return nil, err
	}
	return &Selector{query: pq[0]}, nil
}

func (s *Selector) Name() string { return Name }

func (s *Selector) Select(isvc *objects.Object, cluster []*objects.Object) (answer.Decision, error) {
	input, err := ast.InterfaceToValue(map[string]any{"inferenceService": isvc.Value, "objects": answer.ObjectValues(cluster)})
	if err != nil {
		return answer.Decision{}, err
	}
	rs, err := s.query.Eval(context.Background(), rego.EvalParsedInput(input))
	if err != nil {
		return answer.Decision{}, err
	}
	if len(rs) != 1 || len(rs[0].Expressions) != 1 {
		return answer.Decision{}, fmt.Errorf("%s is undefined for %s", SelectQuery, isvc.Ref())
	}
	out, ok := rs[0].Expressions[0].Value.(map[string]any)
	if !ok {
		return answer.Decision{}, fmt.Errorf("%s: want an object", SelectQuery)
	}
	d := answer.Decision{}
	d.Admitted, _ = out["admitted"].(bool)
	d.Message, _ = out["message"].(string)
	norm := map[string]any{
		"selection":     out["selection"],
		"check":         out["check"],
		"model":         out["model"],
		"warnings":      out["warnings"],
		"selected":      out["selected"],
		"ranked":        answer.NumbersToInt(out["candidates"]),
		"tiedWith":      out["tiedWith"],
		"tiePriority":   answer.NumbersToInt(out["tiePriority"]),
		"excluded":      out["excluded"],
		"unselectable":  out["unselectable"],
		"checkedCounts": answer.NumbersToInt(out["checked"]),
	}
	return answer.DecisionFrom(d, norm)
}
