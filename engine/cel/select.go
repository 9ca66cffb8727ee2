package cel

import (
	"github.com/ome-policy/evaluator/engine/answer"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/policies/policyset"
)

type Selector struct {
	webhook *policy
}

// NewSelector compiles the CEL policies for the webhook.
func NewSelector(set *policyset.Set) (*Selector, error) {
	ps, err := compilePolicies(set, "webhook")
	if err != nil {
		return nil, err
	}
	p, err := policyWithInputs(set, ps.byName, "webhook", []string{"inferenceService", "objects"})
	if err != nil {
		return nil, err
	}
	return &Selector{webhook: p}, nil
}

func (s *Selector) Name() string { return Name }

func (s *Selector) Select(isvc *objects.Object, cluster []*objects.Object) (answer.Decision, error) {
	act := s.webhook.activation(map[string]any{"inferenceService": isvc.Value, "objects": answer.ObjectValues(cluster)})
	check, message, refused, err := s.webhook.firstFailure(act)
	if err != nil {
		return answer.Decision{}, err
	}
	d := answer.Decision{Admitted: !refused, Message: message}
	vars := map[string]any{"check": check}
	for _, name := range []string{"selection", "model", "warnings"} {
		v, err := act.variable(name)
		if err != nil {
			return answer.Decision{}, err
		}
		if vars[name], err = toNative(v); err != nil {
			return answer.Decision{}, err
		}
	}
	if sel, _ := vars["selection"].(bool); sel {
		for _, name := range []string{"selected", "ranked", "tiedWith", "tiePriority", "excluded", "unselectable", "checkedCounts"} {
			v, err := act.variable(name)
			if err != nil {
				return answer.Decision{}, err
			}
			if vars[name], err = toNative(v); err != nil {
				return answer.Decision{}, err
			}
		}
	}
	return answer.DecisionFrom(d, vars)
}
