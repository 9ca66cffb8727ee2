package runner

import (
	"fmt"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/policies/policyset"
)

// ScopedPairs pairs every model with every runtime OME pairs it with
// (objects.InScope); leftOut counts the pairs OME never considers.
func ScopedPairs(ms, rs []*objects.Object) (pairs [][2]*objects.Object, leftOut int) {
	for _, m := range ms {
		for _, r := range rs {
			if objects.InScope(m, r) {
				pairs = append(pairs, [2]*objects.Object{m, r})
			} else {
				leftOut++
			}
		}
	}
	return pairs, leftOut
}

// Explain compiles the explain policies of set for the engine named and
// explains each pair; refused says whether some pair is not compatible.
func Explain(engineName string, set *policyset.Set, pairs [][2]*objects.Object) (es []engine.Explanation, refused bool, err error) {
	x, err := engine.NewExplainer(engineName, set)
	if err != nil {
		return nil, false, err
	}
	for _, p := range pairs {
		m, r := p[0], p[1]
		e, err := x.Explain(m, r)
		if err != nil {
			return nil, false, fmt.Errorf("model %s (%s) against runtime %s (%s): %w", m.Ref(), m.File, r.Ref(), r.File, err)
		}
		refused = refused || !e.Compatible
		es = append(es, e)
	}
	return es, refused, nil
}

// ExplainPairs are the pairs explain explains of objs: each model named
// modelName with each runtime named runtimeName (every one, for ""), as
// OME pairs them (ScopedPairs); the notice, when there is one, says how
// many pairs OME never considers; when there is no pair, why says why
// (MissingPair).
func ExplainPairs(objs []*objects.Object, modelName, runtimeName string) (pairs [][2]*objects.Object, notice, why string) {
	named := func(is func(*objects.Object) bool, name string) []*objects.Object {
		var out []*objects.Object
		for _, o := range objs {
			if is(o) && (name == "" || o.Name == name) {
				out = append(out, o)
			}
		}
		return out
	}
	ms, rs := named((*objects.Object).IsModel, modelName), named((*objects.Object).IsRuntime, runtimeName)
	pairs, leftOut := ScopedPairs(ms, rs)
	if len(pairs) == 0 {
		why = MissingPair(len(ms), len(rs), modelName, runtimeName)
	}
	if leftOut > 0 {
		notice = fmt.Sprintf("notice: %d pair(s) left out, which OME never considers (a BaseModel and a ServingRuntime of another namespace)", leftOut)
	}
	return pairs, notice, why
}

// MissingPair says why explain has no pair, of the models and runtimes
// found (those named modelName and runtimeName, when given).
func MissingPair(models, runtimes int, modelName, runtimeName string) string {
	switch {
	case models == 0 && modelName != "":
		return fmt.Sprintf("no model named %q found", modelName)
	case models == 0:
		return "no model found (give one with -f or -m)"
	case runtimes == 0 && runtimeName != "":
		return fmt.Sprintf("no runtime named %q found", runtimeName)
	case runtimes == 0:
		return "no runtime found (give one with -f or -r)"
	}
	return "OME never pairs these models with these runtimes (a BaseModel and a ServingRuntime of another namespace)"
}

// ExplainTies gives each explanation of es whose runtime ties with others
// for its model the tie (engine.TieFinder), with the models and runtimes
// of objs as the cluster. Only a compatible runtime can tie.
func ExplainTies(engineName string, set *policyset.Set, objs []*objects.Object, es []engine.Explanation) error {
	var tf *engine.TieFinder
	for i := range es {
		if !es[i].Compatible {
			continue
		}
		if tf == nil {
			sel, err := engine.NewSelector(engineName, set)
			if err != nil {
				return err
			}
			tf = engine.NewTieFinder(sel, objs)
		}
		var err error
		if es[i].Tie, err = tf.Tie(es[i].Model, es[i].Runtime); err != nil {
			return err
		}
	}
	return nil
}
