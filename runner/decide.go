package runner

import (
	"slices"
	"strings"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/engine/answer"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/policies/policyset"
	"github.com/ome-policy/evaluator/results"
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
		// Each model and runtime is one ref value, which every list that
		// names it shares: the lists hold a pointer a pair, and the
		// decisions take memory in proportion to the objects, not to the
		// pairs times a ref's maps. refs are in the order of kind,
		// namespace and name, the order of every list.
		refs := sortedRefs(append(append([]*objects.Object(nil), models...), runtimes...))
		byRef := map[objects.Ref]int{}
		for i, r := range refs {
			byRef[r.ref] = i
		}
		accepted := make(map[*objects.Object][]int32, len(models)+len(runtimes))
		if len(models) > 0 {
			m, err := engine.NewForDecisions(engineName, set)
			if err != nil {
				return nil, err
			}
			_, err = engine.MatchObjects(m, models, runtimes, func(model *objects.Object, results []engine.Result) error {
				mi := int32(byRef[objects.RefOf(model)])
				list := []int32{}
				for _, r := range results {
					if !r.Compatible {
						continue
					}
					ri, known := byRef[r.Runtime]
					if !known {
						continue
					}
					list = append(list, int32(ri))
					if rt := refs[ri].obj; rt != nil {
						accepted[rt] = append(accepted[rt], mi)
					}
				}
				accepted[model] = list
				return nil
			})
			if err != nil {
				return nil, err
			}
		}
		for _, o := range runtimes {
			out[o] = map[string]any{"models": refList(refs, accepted[o])}
		}
		for _, o := range models {
			if list, decided := accepted[o]; decided {
				out[o] = map[string]any{"runtimes": refList(refs, list)}
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

// sharedRef is an object's ref, and its value as the rules read it
// (refValue), made once.
type sharedRef struct {
	ref   objects.Ref
	obj   *objects.Object
	value map[string]any
}

// sortedRefs are the refs of objs, one each (the last object of a ref),
// in the order of their kind, namespace and name: the order in which
// every target gives them.
func sortedRefs(objs []*objects.Object) []sharedRef {
	byRef := map[objects.Ref]*objects.Object{}
	for _, o := range objs {
		byRef[objects.RefOf(o)] = o
	}
	out := make([]sharedRef, 0, len(byRef))
	for r, o := range byRef {
		out = append(out, sharedRef{ref: r, obj: o, value: refValue(r)})
	}
	key := func(r objects.Ref) string { return r.Kind + "/" + r.Namespace + "/" + r.Name }
	slices.SortFunc(out, func(a, b sharedRef) int { return strings.Compare(key(a.ref), key(b.ref)) })
	return out
}

// refList is the values of the refs at the indexes of list, in the order
// of refs.
func refList(refs []sharedRef, list []int32) []any {
	slices.Sort(list)
	out := make([]any, len(list))
	for i, x := range list {
		out[i] = refs[x].value
	}
	return out
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
func SelectRules(team *rules.Set, services, cluster []*objects.Object, results []results.SelectResult) (refused bool, problems []*objects.InputError) {
	if team.Len() == 0 {
		return false, nil
	}
	var all []any
	if team.ReadsDecisions() {
		kept, _ := objects.Deduplicate(append(append([]*objects.Object(nil), cluster...), services...))
		all = answer.ObjectValues(kept)
	}
	for i, isvc := range services {
		fs, probs := team.Check(isvc)
		problems = append(problems, probs...)
		if team.ReadsDecisions() {
			more, probs := team.CheckDecisions(isvc, rules.View{Objects: all, Decision: decisionValue(results[i].Decision)})
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
