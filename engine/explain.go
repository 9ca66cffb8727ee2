package engine

import (
	"fmt"
	"reflect"
	"slices"

	"github.com/ome-policy/evaluator/engine/cel"
	"github.com/ome-policy/evaluator/engine/rego"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/policies/policyset"
)

// Explainer explains the verdict on one model and one runtime.
type Explainer interface {
	Name() string
	Explain(model, runtime *objects.Object) (Explanation, error)
}

// NewExplainer compiles the match and explain policies for the named engine.
func NewExplainer(name string, set *policyset.Set) (Explainer, error) {
	xs, err := byEngine(name, set,
		func(s *policyset.Set) (Explainer, error) { return cel.NewExplainer(s) },
		func(s *policyset.Set) (Explainer, error) { return rego.NewExplainer(s) })
	if err != nil {
		return nil, err
	}
	if len(xs) == 2 {
		return &bothExplainer{cel: xs[0], rego: xs[1]}, nil
	}
	return xs[0], nil
}

type bothExplainer struct{ cel, rego Explainer }

func (b *bothExplainer) Name() string { return Both }

func (b *bothExplainer) Explain(model, runtime *objects.Object) (Explanation, error) {
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

// TieFinder finds, for a model and one of the runtimes OME pairs it with,
// whether OME picks between that runtime and others by name alone: they
// tie on score and size distance at the top of its ranking (Decision's
// TiedWith). It asks the webhook policies (Selector) about an
// InferenceService of the model in a namespace where the runtime's scope
// decides, with the models and runtimes it was given as the cluster: a
// ServingRuntime's own namespace (for a ClusterBaseModel, unless a
// BaseModel of its name there takes its place), and for a
// ClusterServingRuntime the BaseModel's namespace, or for a
// ClusterBaseModel a namespace of no ServingRuntime given. Each decision
// is asked once.
type TieFinder struct {
	sel        Selector
	cluster    []*objects.Object
	models     map[Ref]*objects.Object
	taken      map[string]bool    // namespaces with a ServingRuntime
	baseModels map[[2]string]bool // namespace and name of each BaseModel
	decisions  map[[2]string]Decision
}

// NewTieFinder asks sel, with the models and runtimes of objs as the
// cluster.
func NewTieFinder(sel Selector, objs []*objects.Object) *TieFinder {
	tf := &TieFinder{sel: sel, models: map[Ref]*objects.Object{}, taken: map[string]bool{},
		baseModels: map[[2]string]bool{}, decisions: map[[2]string]Decision{}}
	for _, o := range objs {
		switch {
		case o.IsModel():
			tf.models[objects.RefOf(o)] = o
			if o.Kind == objects.KindBaseModel {
				tf.baseModels[[2]string{o.Namespace, o.Name}] = true
			}
		case o.Kind == objects.KindServingRuntime:
			tf.taken[o.Namespace] = true
		}
		if o.IsModel() || o.IsRuntime() {
			tf.cluster = append(tf.cluster, o)
		}
	}
	return tf
}

// Tie is the tie of the runtime for the model, nil when there is none.
func (tf *TieFinder) Tie(model, runtime Ref) (*Tie, error) {
	m := tf.models[model]
	if m == nil {
		return nil, nil
	}
	var ns string
	switch {
	case runtime.Kind == objects.KindServingRuntime:
		if m.Kind == objects.KindClusterBaseModel && tf.baseModels[[2]string{runtime.Namespace, m.Name}] {
			return nil, nil // OME takes the BaseModel there
		}
		ns = runtime.Namespace
	case m.Kind == objects.KindBaseModel:
		ns = m.Namespace
	default:
		ns = tf.freeNamespace(m.Name)
	}
	key := [2]string{model.Kind + "/" + model.Namespace + "/" + model.Name, ns}
	d, ok := tf.decisions[key]
	if !ok {
		var err error
		if d, err = tf.sel.Select(modelService(m, ns), tf.candidates(m)); err != nil {
			return nil, fmt.Errorf("the tie of model %s: %w", m.Ref(), err)
		}
		tf.decisions[key] = d
	}
	if d.Selected == nil || len(d.TiedWith) == 0 || len(d.Candidates) == 0 {
		return nil, nil
	}
	all := append([]Ref{*d.Selected}, d.TiedWith...)
	if !slices.Contains(all, runtime) {
		return nil, nil
	}
	t := &Tie{Selected: *d.Selected, Score: d.Candidates[0].Score, Priority: d.TiePriority, TiedWith: []Ref{}}
	for _, r := range all {
		if r != runtime {
			t.TiedWith = append(t.TiedWith, r)
		}
	}
	return t, nil
}

// candidates are the model m and the runtimes given that may be
// candidates for it: those with an entry that says autoSelect: true and
// one of the model's format name and architecture, which the entry that
// matches has. The others are not ranked, so the decision's selected
// runtime and ties are the same without them, and selection is asked of
// fewer runtimes.
func (tf *TieFinder) candidates(m *objects.Object) []*objects.Object {
	spec := m.Spec()
	format, _ := spec["modelFormat"].(map[string]any)
	out := []*objects.Object{m}
	for _, o := range tf.cluster {
		if !o.IsRuntime() {
			continue
		}
		entries, _ := o.Spec()["supportedModelFormats"].([]any)
		auto, named := false, false
		for _, x := range entries {
			e, _ := x.(map[string]any)
			auto = auto || e["autoSelect"] == true
			f, _ := e["modelFormat"].(map[string]any)
			named = named || f != nil && format != nil && f["name"] == format["name"] && e["modelArchitecture"] == spec["modelArchitecture"]
		}
		if auto && named {
			out = append(out, o)
		}
	}
	return out
}

// freeNamespace is a namespace with no ServingRuntime given and no
// BaseModel named model: where a ClusterBaseModel's InferenceService
// meets the ClusterServingRuntimes alone.
func (tf *TieFinder) freeNamespace(model string) string {
	for i := 1; ; i++ {
		ns := "default"
		if i > 1 {
			ns = fmt.Sprintf("default-%d", i)
		}
		if !tf.taken[ns] && !tf.baseModels[[2]string{ns, model}] {
			return ns
		}
	}
}

// modelService is an InferenceService of namespace ns on the model m with
// an engine that has no runner of its own, so that OME selects a runtime.
func modelService(m *objects.Object, ns string) *objects.Object {
	return &objects.Object{Kind: objects.KindInferenceService, Namespace: ns, Name: "explain", Value: map[string]any{
		"apiVersion": "ome.io/v1beta1", "kind": objects.KindInferenceService,
		"metadata": map[string]any{"name": "explain", "namespace": ns},
		"spec":     map[string]any{"model": map[string]any{"name": m.Name}, "engine": map[string]any{}},
	}}
}
