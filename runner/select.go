package runner

import (
	"fmt"
	"strings"

	"github.com/ome-policy/evaluator/cases"
	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/engine/answer"
	"github.com/ome-policy/evaluator/input"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/objects/crdschema"
	"github.com/ome-policy/evaluator/policies/policyset"
	"github.com/ome-policy/evaluator/results"
	"github.com/ome-policy/evaluator/rules"
)

// SplitServices puts the InferenceServices apart from the other objects.
func SplitServices(objs []*objects.Object) (services, others []*objects.Object) {
	for _, o := range objs {
		if o.Kind == objects.KindInferenceService {
			services = append(services, o)
		} else {
			others = append(others, o)
		}
	}
	return services, others
}

// SelectionCases are the selection cases of objs (evaluate kyverno
// --test-from): each InferenceService with the other objects, expecting
// what OME's webhook does with it as Select decides it, in the words a
// case file would use. Without an InferenceService, none.
func SelectionCases(engineName string, set *policyset.Set, objs []*objects.Object) ([]cases.Case, error) {
	services, cluster := SplitServices(objs)
	results, _, err := Selection{Engine: engineName, Set: set}.Select(services, cluster)
	if err != nil {
		return nil, err
	}
	out := make([]cases.Case, len(services))
	for i, isvc := range services {
		d := results[i].Decision
		out[i] = cases.Case{File: isvc.File, Line: isvc.Line, Name: isvc.Ref(), InferenceService: isvc, Objects: cluster,
			Expect: cases.Expect{Admitted: &d.Admitted}}
		if !d.Admitted {
			out[i].Expect.Message = &d.Message
		}
	}
	return out, nil
}

// Selection is how select runs: the engine named, on the policies of set;
// with Strict, a warning about the named runtime rejects the
// InferenceService; Notice gets each notice about an InferenceService.
type Selection struct {
	Engine string
	Set    *policyset.Set
	Strict bool
	Notice func(string)
	// Team are a team's rules (LoadRules), run on each InferenceService
	// by Run; nil: none.
	Team *rules.Set
}

// Run decides on each InferenceService (Select), then runs the team's
// rules of Team on each (SelectRules). fails says whether one was rejected,
// or refused by a rule; problems are the rules' problems.
func (s Selection) Run(services, cluster []*objects.Object) (results []results.SelectResult, fails bool, problems []*objects.InputError, err error) {
	results, rejected, err := s.Select(services, cluster)
	if err != nil {
		return nil, false, nil, err
	}
	refused, problems := SelectRules(s.Team, services, cluster, results)
	return results, rejected || refused, problems, nil
}

// Select decides on each InferenceService as OME's webhook does, with the
// models and runtimes of cluster. OME decides on the objects as the
// release's API server stores them, without the fields their CRDs lack:
// each object is pruned once, and of each InferenceService the lint rules
// about what the release does not read are said in a notice. rejected says
// whether any was rejected. The objects of cluster are checked first
// (their creation times), and their notices said (input.ModelNotices).
func (s Selection) Select(services, cluster []*objects.Object) (decisions []results.SelectResult, rejected bool, err error) {
	if err := objects.CheckTimestamps(cluster); err != nil {
		return nil, false, err
	}
	for _, n := range input.ModelNotices(cluster) {
		if s.Notice != nil {
			s.Notice(n)
		}
	}
	sel, err := engine.NewSelector(s.Engine, s.Set)
	if err != nil {
		return nil, false, err
	}
	cluster = pruned(s.Set.Release, cluster)
	stored := make([]*objects.Object, len(services))
	unread := make([]bool, len(services)) // has lint something to say of it
	var lint engine.Linter
	for i, isvc := range services {
		p, lacked, err := crdschema.Pruned(isvc, s.Set.Release)
		if err != nil {
			return nil, false, err
		}
		stored[i], unread[i] = p, len(lacked) > 0 || hasDeploymentMode(isvc)
		if unread[i] && lint == nil {
			if lint, err = engine.NewLinter(s.Engine, s.Set); err != nil {
				return nil, false, err
			}
		}
	}
	for i, isvc := range services {
		if unread[i] {
			if err := s.noteUnread(lint, isvc); err != nil {
				return nil, false, err
			}
		}
		d, err := sel.Select(stored[i], cluster)
		if err != nil {
			return nil, false, fmt.Errorf("%s (%s:%d): %w", isvc.Ref(), isvc.File, isvc.Line, err)
		}
		if s.Strict && len(d.Warnings) > 0 && d.Admitted {
			d.Admitted = false
			d.Message = strings.Join(d.Warnings, "; ")
		}
		rejected = rejected || !d.Admitted
		decisions = append(decisions, results.SelectResult{InferenceService: objects.RefOf(isvc), Decision: d})
	}
	return decisions, rejected, nil
}

// selectNotices are the lint rules that select says of an InferenceService
// in a notice: what the release does not read of it.
var selectNotices = map[string]bool{answer.RuleUnreadField: true, "unknown-deployment-mode": true}

// noteUnread says in a notice each field of an InferenceService that the
// release's API server drops, and each deployment mode the release does
// not know: the findings of those lint rules.
func (s Selection) noteUnread(lint engine.Linter, isvc *objects.Object) error {
	fs, err := lint.Object(isvc)
	if err != nil {
		return err
	}
	for _, f := range fs {
		if selectNotices[f.Rule] && s.Notice != nil {
			s.Notice(fmt.Sprintf("%s: notice: %s: %s: %s", objects.FileLine(f.File, f.Line), isvc.Ref(), f.Field, f.Message))
		}
	}
	return nil
}

// hasDeploymentMode says whether the InferenceService's engine or decoder
// has the annotation ome.io/deploymentMode.
func hasDeploymentMode(isvc *objects.Object) bool {
	for _, c := range []string{"engine", "decoder"} {
		component, _ := isvc.Spec()[c].(map[string]any)
		annotations, _ := component["annotations"].(map[string]any)
		if _, ok := annotations["ome.io/deploymentMode"]; ok {
			return true
		}
	}
	return false
}

// pruned are objs as the release's API server stores them, without the
// fields their CRDs lack (crdschema.Pruned).
func pruned(release string, objs []*objects.Object) []*objects.Object {
	out := make([]*objects.Object, len(objs))
	for i, o := range objs {
		p, _, err := crdschema.Pruned(o, release)
		if err != nil {
			p = o
		}
		out[i] = p
	}
	return out
}
