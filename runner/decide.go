package runner

import (
	"slices"
	"strings"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/engine/answer"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/output"
	"github.com/ome-policy/evaluator/policies/policyset"
	"github.com/ome-policy/evaluator/rules"
)

// Decider gives OME's decisions about objects as a team's rules read them
// (the decision of rules.DecisionsDocument), on the engine named, with the policies of set:
// of each model, the runtimes that accept it among those OME pairs it
// with; of each runtime, the models it accepts (each list in the order of
// kind, namespace and name); of each InferenceService,
// the webhook's verdict and the runtime it selects, with the models and
// runtimes of objs as the cluster.
//
// An object with a field of the wrong type (objects.CheckObject), which
// OME's API refuses and which lint reads to say so, has no decision and is
// in none.
func Decider(engineName string, set *policyset.Set) rules.Decide {
	return func(objs []*objects.Object) (map[*objects.Object]map[string]any, error) {
		var models, runtimes, services []*objects.Object
		for _, o := range objs {
			switch {
			case objects.CheckObject(o) != nil:
				// A field of the wrong type, which OME's API refuses (lint
				// reads such objects, to say so): no decision of OME's
				// is about it.
			case o.IsModel():
				models = append(models, o)
			case o.IsRuntime():
				runtimes = append(runtimes, o)
			case o.IsService():
				services = append(services, o)
			}
		}
		out := make(map[*objects.Object]map[string]any, len(objs))
		byRef := map[objects.Ref]*objects.Object{}
		for _, o := range runtimes {
			byRef[objects.RefOf(o)] = o
			out[o] = map[string]any{"models": []any{}}
		}
		if len(models) > 0 {
			m, err := engine.New(engineName, set)
			if err != nil {
				return nil, err
			}
			_, err = engine.MatchObjects(m, models, runtimes, func(model *objects.Object, results []engine.Result) error {
				accepting := []any{}
				for _, r := range results {
					if !r.Compatible {
						continue
					}
					accepting = append(accepting, refValue(r.Runtime))
					if rt := byRef[r.Runtime]; rt != nil {
						out[rt]["models"] = append(out[rt]["models"].([]any), refValue(objects.RefOf(model)))
					}
				}
				out[model] = map[string]any{"runtimes": accepting}
				return nil
			})
			if err != nil {
				return nil, err
			}
		}
		for _, d := range out {
			for _, key := range []string{"runtimes", "models"} {
				if refs, ok := d[key].([]any); ok {
					sortRefs(refs)
				}
			}
		}
		if len(services) > 0 {
			cluster := append(append([]*objects.Object(nil), models...), runtimes...)
			results, _, err := Selection{Engine: engineName, Set: set, Notice: func(string) {}}.Select(services, cluster)
			if err != nil {
				return nil, err
			}
			for i, r := range results {
				out[services[i]] = decisionValue(r.Decision)
			}
		}
		return out, nil
	}
}

// sortRefs puts refs (refValue's) in the order of their kind, namespace
// and name, the order in which every target gives them.
func sortRefs(refs []any) {
	key := func(r any) string {
		m := r.(map[string]any)
		return m["kind"].(string) + "/" + m["namespace"].(string) + "/" + m["name"].(string)
	}
	slices.SortStableFunc(refs, func(a, b any) int { return strings.Compare(key(a), key(b)) })
}

// refValue is a ref as the rules read it.
func refValue(r objects.Ref) map[string]any {
	return map[string]any{"kind": r.Kind, "namespace": r.Namespace, "name": r.Name}
}

// decisionValue is OME's decision about an InferenceService as the rules
// read it.
func decisionValue(d engine.Decision) map[string]any {
	v := map[string]any{"admitted": d.Admitted, "message": d.Message, "check": d.Check, "runtime": nil, "model": nil}
	if d.Selected != nil {
		v["runtime"] = refValue(*d.Selected)
	}
	if d.Model != nil {
		v["model"] = refValue(*d.Model)
	}
	return v
}

// SelectRules runs a team's own rules on each InferenceService of a
// select run, with OME's decision about it (results, in the order of
// services) for the rules that read the decisions, and puts their findings
// on its result. refused says whether a rule gave an error.
func SelectRules(own *rules.Set, services, cluster []*objects.Object, results []output.SelectResult) (refused bool, problems []*objects.InputError) {
	if own.Len() == 0 {
		return false, nil
	}
	var all []any
	if own.ReadsDecisions() {
		kept, _ := objects.Deduplicate(append(append([]*objects.Object(nil), cluster...), services...))
		all = answer.ObjectValues(kept)
	}
	for i, isvc := range services {
		fs, probs := own.Check(isvc)
		problems = append(problems, probs...)
		if own.ReadsDecisions() {
			more, probs := own.CheckDecisions(isvc, rules.View{Objects: all, Decision: decisionValue(results[i].Decision)})
			fs = append(fs, more...)
			problems = append(problems, probs...)
		}
		engine.SortFindings(fs)
		for _, f := range fs {
			refused = refused || f.Severity == engine.SeverityError
		}
		results[i].Rules = fs
	}
	return refused, problems
}
