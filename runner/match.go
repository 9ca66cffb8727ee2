package runner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/results"
)

// The values of match's --only: the models that some runtime accepts, or
// those that none does.
const (
	OnlyCompatible   = "compatible"
	OnlyIncompatible = "incompatible"
)

// OnlyChoices are --only's values.
var OnlyChoices = []string{OnlyCompatible, OnlyIncompatible}

// MatchView is what match shows of its results: Only keeps the models of
// one verdict ("" for all); when the writer shows what selection chooses
// (results.SelectionWriter), Selector chooses it, for each model, as for an
// InferenceService of the model's namespace (of Namespace for a
// ClusterBaseModel) that names the model and no runtime.
type MatchView struct {
	Only      string
	Selector  engine.Selector
	Namespace string
}

// NamedModels keeps the models of ms named one of names (every one when
// no name is given); when ms has models and none of them is named so, an
// error says which names were looked for.
func NamedModels(ms []*objects.Object, names []string) ([]*objects.Object, error) {
	if len(names) == 0 || len(ms) == 0 {
		return ms, nil
	}
	var kept []*objects.Object
	for _, m := range ms {
		if slices.Contains(names, m.Name) {
			kept = append(kept, m)
		}
	}
	if len(kept) == 0 {
		return nil, fmt.Errorf("no model named %s", strings.Join(names, " or "))
	}
	return kept, nil
}

// Matches matches every model against the runtimes OME pairs it with and
// writes the results to w, each model's as soon as they are known, then
// the summary; each, when not nil, is called before each model's results
// are written (what the engine prepared is live then). unserved says
// whether some model has no compatible runtime.
func Matches(w results.MatchWriter, m engine.Matcher, release string, ms, rs []*objects.Object, problems []*objects.InputError, each func()) (unserved bool, err error) {
	return MatchesIn(MatchView{}, w, m, release, ms, rs, problems, each)
}

// MatchesIn is Matches, showing what view says. unserved counts every
// model matched, shown or not. Matching reads values only: the positions
// of the objects' fields, kept for messages about bad input, are dropped
// first, so that the heap the collector scans over and over is the
// engine's own.
func MatchesIn(view MatchView, w results.MatchWriter, m engine.Matcher, release string, ms, rs []*objects.Object, problems []*objects.InputError, each func()) (unserved bool, err error) {
	for _, o := range slices.Concat(ms, rs) {
		o.Pos = objects.Positions{}
	}
	if err := w.Begin(ms, rs); err != nil {
		return false, err
	}
	sw, selecting := w.(results.SelectionWriter)
	var byRef map[engine.Ref]*objects.Object
	if selecting && view.Selector != nil {
		byRef = make(map[engine.Ref]*objects.Object, len(rs))
		for _, r := range rs {
			byRef[objects.RefOf(r)] = r
		}
	}
	leftOut, err := engine.MatchObjects(m, ms, rs, func(mo *objects.Object, results []engine.Result) error {
		if each != nil {
			each()
		}
		served := false
		for _, r := range results {
			served = served || r.Compatible
		}
		unserved = unserved || !served
		switch {
		case view.Only == OnlyCompatible && !served, view.Only == OnlyIncompatible && served:
			return nil
		case !selecting:
			return w.Model(objects.RefOf(mo), results)
		}
		var selected *engine.Ref
		if served && byRef != nil {
			var err error
			if selected, err = selectFor(view, mo, results, byRef); err != nil {
				return err
			}
		}
		return sw.ModelSelected(objects.RefOf(mo), results, selected)
	})
	if err != nil {
		return false, err
	}
	return unserved, w.End(results.MatchSummary{OMEVersion: release, LeftOut: leftOut, Problems: results.Problems(problems)})
}

// selectFor is the runtime that OME's selection chooses for the model,
// among those that accept it (the others are never chosen), or nil.
func selectFor(view MatchView, mo *objects.Object, results []engine.Result, byRef map[engine.Ref]*objects.Object) (*engine.Ref, error) {
	ns := mo.Namespace
	if mo.Kind == objects.KindClusterBaseModel {
		ns = view.Namespace
	}
	cluster := []*objects.Object{mo}
	for _, r := range results {
		ro := byRef[r.Runtime]
		if !r.Compatible || ro == nil || ro.Kind == objects.KindServingRuntime && ro.Namespace != ns {
			continue
		}
		cluster = append(cluster, ro)
	}
	isvc := &objects.Object{APIVersion: "ome.io/v1beta1", Kind: objects.KindInferenceService, Namespace: ns, Name: "summary",
		Value: map[string]any{
			"apiVersion": "ome.io/v1beta1", "kind": objects.KindInferenceService,
			"metadata": map[string]any{"name": "summary", "namespace": ns},
			"spec":     map[string]any{"model": map[string]any{"name": mo.Name}, "engine": map[string]any{}},
		}}
	d, err := view.Selector.Select(isvc, cluster)
	if err != nil {
		return nil, fmt.Errorf("%s: selection: %w", mo.Ref(), err)
	}
	if !d.Admitted {
		return nil, nil
	}
	return d.Selected, nil
}
