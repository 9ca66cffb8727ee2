// Package diff says what a change to a cluster's objects does to OME's
// decisions: the runtimes each model gains and loses (with OME's new
// reason), the models left with no compatible runtime, and the runtime
// OME's webhook selects for each InferenceService before and after, or its
// new refusal. The decisions are the engines' (engine.Matcher and
// engine.Selector), scoped as OME scopes them (objects.InScope). An OME
// upgrade is such a change too: the same objects, judged by the rules of
// two releases (Upgrade).
//
// Only what the change touches is evaluated again: see Compute.
package diff

import (
	"fmt"
	"reflect"
	"sort"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/objects"
)

// The ways an object, or what it decides, changed.
const (
	Added   = "added"
	Removed = "removed"
	Changed = "changed"
	// Rules: the object is the same, and OME's rules changed (Upgrade).
	Rules = "rules"
)

// The ways an InferenceService's decision changed (ServiceChange.Change).
const (
	ServiceAdded    = "added"    // a new InferenceService
	ServiceRuntime  = "runtime"  // admitted before and after, with another runtime
	ServiceRefused  = "refused"  // admitted before, refused now
	ServiceAdmitted = "admitted" // refused before, admitted now
	ServiceMessage  = "message"  // refused before and after, with another message
	ServiceScore    = "score"    // the same runtime, with another score
)

// Report is what a change does to OME's decisions. Models and
// InferenceServices list what changed, regressions first; Unmoved lists
// the objects added, removed or changed that change no decision.
type Report struct {
	Models            []ModelChange   `json:"models"`
	InferenceServices []ServiceChange `json:"inferenceServices"`
	Unmoved           []ObjectChange  `json:"unmoved"`
	// Rules are the findings of a team's own rules that the change makes
	// or clears (RuleChanges); nil when no team's rules judged the sides.
	Rules []RuleChange `json:"rules,omitempty"`
	Work  Work         `json:"evaluated"`
}

// Regressions counts the models left with no compatible runtime, the
// InferenceServices that changed runtime or are now refused, and the
// errors of a team's rules that the change makes.
func (r *Report) Regressions() int {
	n := 0
	for _, rc := range r.Rules {
		if rc.Regression {
			n++
		}
	}
	for _, m := range r.Models {
		if m.Regression {
			n++
		}
	}
	for _, s := range r.InferenceServices {
		if s.Regression {
			n++
		}
	}
	return n
}

// VerdictChanges counts the models that gain or lose a runtime (or are
// new) and the InferenceServices whose decision changed, other than in
// words: regressions among them.
func (r *Report) VerdictChanges() int {
	n := 0
	for _, m := range r.Models {
		if m.VerdictChanged() {
			n++
		}
	}
	for _, s := range r.InferenceServices {
		if s.Change != ServiceMessage {
			n++
		}
	}
	return n
}

// ReasonChanges counts the verdicts that hold in other words: the pairs of
// a model and a runtime not compatible before and after with another
// reason, and the InferenceServices refused before and after with another
// message. OME's events and refusals read differently.
func (r *Report) ReasonChanges() int {
	n := 0
	for _, m := range r.Models {
		n += len(m.Reworded)
	}
	for _, s := range r.InferenceServices {
		if s.Change == ServiceMessage {
			n++
		}
	}
	return n
}

// Changes counts every change: of verdict (regressions among them), of
// reason, and the findings of a team's rules made or cleared.
func (r *Report) Changes() int { return r.VerdictChanges() + r.ReasonChanges() + len(r.Rules) }

// Position is where a reader looks: a file and a line.
type Position struct {
	File string `json:"file"`
	Line int    `json:"line"`
}

// ObjectChange is an object that was added, removed or changed.
type ObjectChange struct {
	objects.Ref
	Change string `json:"change"`
	Position
}

// ModelChange is a model whose compatible runtimes changed, or a new model.
type ModelChange struct {
	Model objects.Ref `json:"model"`
	// Change is Added, Changed (its spec) or "" (only runtimes changed).
	Change string `json:"change"`
	Position
	// NoRuntime: no runtime that OME pairs it with is compatible now.
	NoRuntime bool `json:"noRuntime"`
	// Regression: NoRuntime, and it had a compatible runtime before the
	// change or is new.
	Regression bool            `json:"regression"`
	Gained     []RuntimeChange `json:"gained"`
	Lost       []RuntimeChange `json:"lost"`
	// Reworded are the runtimes not compatible before and after, whose
	// reason reads differently.
	Reworded []RuntimeChange `json:"reworded"`
}

// VerdictChanged says whether the model gains or loses a runtime, or is
// new (it is in the report only for its reworded runtimes otherwise).
func (m ModelChange) VerdictChanged() bool {
	return len(m.Gained)+len(m.Lost) > 0 || m.Change == Added
}

// RuntimeChange is a runtime a model gains or loses.
type RuntimeChange struct {
	Runtime objects.Ref `json:"runtime"`
	// Change is what happened to the runtime: Added, Removed, Changed,
	// Rules (an upgrade of OME), or "" when only the model changed.
	Change string `json:"change"`
	// Reason is OME's reason text after the change ("" when compatible,
	// or when the runtime was removed); ReasonBefore before it ("" when
	// compatible, or when the runtime is new).
	Reason       string `json:"reason"`
	ReasonBefore string `json:"reasonBefore"`
	// Rule is, for an upgrade of OME, the rule that moved the verdict or
	// the reason, in one line naming its release ("v0.1.4 does not compare
	// diffusion pipelines"), when the releases' explanations tell; ""
	// otherwise.
	Rule string `json:"rule"`
	// Position is the runtime's first changed field (its line when only
	// the model changed), in its file after the change, or before it for
	// a removed runtime.
	Position
}

// Selection is OME's webhook decision on an InferenceService, on one side
// of the change.
type Selection struct {
	Admitted bool `json:"admitted"`
	// Runtime is the runtime the webhook selected; nil when it selected
	// none (a refusal, or admitted without selection: no engine, a named
	// runtime, a runner image of its own).
	Runtime *objects.Ref `json:"runtime"`
	Score   int64        `json:"score"`
	// Scope is "namespace" for a ServingRuntime, "cluster" for a
	// ClusterServingRuntime, "" without a runtime.
	Scope   string `json:"scope"`
	Message string `json:"message"`
	// Check names the check of OME's webhook that refused it ("" when
	// admitted), as `evaluate select -o json` does.
	Check string `json:"check"`
	// Position is the selected runtime's on that side.
	Position
	// excluded are the runtimes the webhook looked at and excluded, with
	// why, for the rule of an upgrade (computation.rules).
	excluded map[objects.Ref]string
}

// ServiceChange is an InferenceService whose decision changed, or a new one.
type ServiceChange struct {
	InferenceService objects.Ref `json:"inferenceService"`
	Change           string      `json:"change"`
	// Regression: it is now refused, or OME now selects another runtime.
	Regression bool `json:"regression"`
	Position
	Before *Selection `json:"before"` // nil for a new InferenceService
	After  *Selection `json:"after"`
	// Rule is, for an upgrade of OME, the rule that moved the verdict on
	// its model and the runtime selected before or after, as
	// RuntimeChange.Rule says it.
	Rule string `json:"rule"`
}

// Work says what was evaluated, against what a full evaluation of both
// sides would take: pairs of a model and a runtime, and decisions on
// InferenceServices, each side counting.
type Work struct {
	Pairs      int `json:"pairs"`
	AllPairs   int `json:"allPairs"`
	Selections int `json:"selections"`
	// AllSelections counts the InferenceServices of both sides.
	AllSelections int `json:"allSelections"`
}

// item is an object on both sides of the change, or on one.
type item struct {
	ref        objects.Ref
	old, new   *objects.Object
	change     string // Added, Removed, Changed or ""
	specChange bool   // the spec differs (or the object is on one side)
	order      int    // new side's order; removed objects after, in old order
	at         Position
}

// sides pairs the objects of one sort (models, runtimes or
// InferenceServices) of the two sides by reference.
type sides struct {
	items []*item
	byRef map[objects.Ref]*item
}

func pairUp(old, new []*objects.Object) *sides {
	s := &sides{byRef: map[objects.Ref]*item{}}
	for _, o := range new {
		it := &item{ref: objects.RefOf(o), new: o, order: len(s.items)}
		s.items = append(s.items, it)
		s.byRef[it.ref] = it
	}
	for _, o := range old {
		ref := objects.RefOf(o)
		if it := s.byRef[ref]; it != nil {
			it.old = o
			continue
		}
		it := &item{ref: ref, old: o, order: len(s.items)}
		s.items = append(s.items, it)
		s.byRef[ref] = it
	}
	for _, it := range s.items {
		switch {
		case it.old == nil:
			it.change, it.specChange = Added, true
		case it.new == nil:
			it.change, it.specChange = Removed, true
		default:
			it.specChange = !reflect.DeepEqual(it.old.Spec(), it.new.Spec())
			if it.specChange || !SameObject(it.old, it.new) {
				it.change = Changed
			}
		}
		// Where to look at it: its first changed field on the new side,
		// or its line on the side it is on. The positions of the other
		// fields are not needed, and a large input's take much memory.
		switch {
		case it.new == nil:
			it.at = Position{File: it.old.File, Line: it.old.Line}
		case it.old == nil || it.change == "":
			it.at = Position{File: it.new.File, Line: it.new.Line}
		default:
			it.at = Position{File: it.new.File, Line: it.new.LineOf(FirstDifference(it.old.Value, it.new.Value))}
		}
		for _, o := range []*objects.Object{it.old, it.new} {
			if o != nil {
				o.Pos = objects.Positions{}
			}
		}
	}
	return s
}

// position is where to look at the item: its first changed field on the
// new side, or its line on the side it is on.
func (it *item) position() Position { return it.at }

// Compute compares the objects before and after a change (models,
// runtimes and InferenceServices, at most one per kind, namespace and
// name on each side) with the engines m and s.
//
// The invariant that lets it evaluate only what changed: a pair's verdict
// depends on the model's spec and the runtime's spec alone (a Matcher
// reads nothing else), and whether OME pairs them at all on their kinds
// and namespaces (objects.InScope), which a reference fixes. So a pair
// whose model and runtime have the same spec on both sides has the same
// verdict on both sides: it gains or loses nothing, and is not evaluated.
// Only these pairs are: a model whose spec changed, or that is new,
// against every runtime; every other model against the runtimes whose spec
// changed, that are new or that were removed. A model that lost a runtime
// and gained none is then held against the unchanged runtimes, a few at a
// time, until one is compatible (it keeps a runtime) or none is left (it
// has none now). Likewise an InferenceService's decision depends only on
// itself, its model (a BaseModel of its namespace or a ClusterBaseModel of
// that name) and the runtimes OME looks at for it (the ServingRuntimes of
// its namespace and every ClusterServingRuntime): it is decided again, on
// both sides, only when one of these was added, removed or changed.
//
// The result equals a full evaluation of both sides (a test holds it to
// one on random changes). Compute lets go of the objects' field positions
// (Pos) once it knows where each change is.
func Compute(m engine.Matcher, s engine.Selector, old, new []*objects.Object) (*Report, error) {
	var om, or, oi, nm, nr, ni []*objects.Object
	split := func(objs []*objects.Object, ms, rs, is *[]*objects.Object) {
		for _, o := range objs {
			switch {
			case o.IsModel():
				*ms = append(*ms, o)
			case o.IsRuntime():
				*rs = append(*rs, o)
			case o.Kind == objects.KindInferenceService:
				*is = append(*is, o)
			}
		}
	}
	split(old, &om, &or, &oi)
	split(new, &nm, &nr, &ni)
	c := &computation{
		before: Engines{M: m, S: s}, after: Engines{M: m, S: s},
		models: pairUp(om, nm), runtimes: pairUp(or, nr), services: pairUp(oi, ni),
		oldCluster: append(append([]*objects.Object{}, om...), or...),
		newCluster: append(append([]*objects.Object{}, nm...), nr...),
		report:     &Report{Models: []ModelChange{}, InferenceServices: []ServiceChange{}, Unmoved: []ObjectChange{}},
	}
	c.report.Work.AllPairs = pairsInScope(om, or) + pairsInScope(nm, nr)
	c.report.Work.AllSelections = len(oi) + len(ni)
	if err := c.modelChanges(); err != nil {
		return nil, err
	}
	if err := c.serviceChanges(); err != nil {
		return nil, err
	}
	c.unmoved()
	return c.report, nil
}

// Upgrade compares the decisions of two OME releases on the same objects
// (models, runtimes and InferenceServices, at most one per kind,
// namespace and name): the runtimes each model gains and loses under the
// rules of after (the engines of the release upgraded to) against those of
// before, the models left without a runtime, and each InferenceService
// routed elsewhere, newly refused or admitted, or refused in other words
// (ServiceMessage), and the pairs whose reason reads differently. Every
// pair and every InferenceService is judged on both sides: the rules, not
// the objects, changed. With explainers, each change names the rule that
// moved it, when they tell.
func Upgrade(before, after Engines, objs []*objects.Object) (*Report, error) {
	var ms, rs, is []*objects.Object
	for _, o := range objs {
		switch {
		case o.IsModel():
			ms = append(ms, o)
		case o.IsRuntime():
			rs = append(rs, o)
		case o.Kind == objects.KindInferenceService:
			is = append(is, o)
		}
	}
	cluster := append(append([]*objects.Object{}, ms...), rs...)
	c := &computation{
		before: before, after: after,
		models: pairUp(ms, ms), runtimes: pairUp(rs, rs), services: pairUp(is, is),
		oldCluster: cluster, newCluster: cluster,
		report: &Report{Models: []ModelChange{}, InferenceServices: []ServiceChange{}, Unmoved: []ObjectChange{}},
	}
	c.report.Work.AllPairs = 2 * pairsInScope(ms, rs)
	c.report.Work.AllSelections = 2 * len(is)
	for _, it := range c.runtimes.items {
		it.change = Rules
	}
	states := make([]*modelState, len(c.models.items))
	for i, it := range c.models.items {
		states[i] = &modelState{it: it}
	}
	if err := c.changedModels(states); err != nil {
		return nil, err
	}
	c.reportModels(states)
	if err := c.decideAgain(func(*item) bool { return true }); err != nil {
		return nil, err
	}
	if err := c.rules(); err != nil {
		return nil, err
	}
	return c.report, nil
}

// pairsInScope counts the pairs OME considers.
func pairsInScope(models, runtimes []*objects.Object) int {
	n := 0
	for _, mo := range models {
		for _, ro := range runtimes {
			if objects.InScope(mo, ro) {
				n++
			}
		}
	}
	return n
}

// Engines are the engines that judge one side. For an upgrade, Release is
// the OME release whose rules they apply, and X (when set) explains a pair
// by them, which Upgrade asks what rule moved each change (Digest).
type Engines struct {
	M       engine.Matcher
	S       engine.Selector
	X       engine.Explainer
	Release string
}

type computation struct {
	before, after          Engines
	models, runtimes       *sides
	services               *sides
	oldCluster, newCluster []*objects.Object
	report                 *Report
	named                  map[objects.Ref]bool
}

// pairVerdict is the verdict on a model and the j-th runtime of a match.
type pairVerdict struct {
	j int
	engine.Verdict
}

// match evaluates models against runtimes with m, and hands fn each
// model's in-scope verdicts, with the model's index in models and each
// runtime's in runtimes, model by model, in order.
func (c *computation) match(m engine.Matcher, models, runtimes []*objects.Object, fn func(i int, vs []pairVerdict)) error {
	if len(models) == 0 || len(runtimes) == 0 {
		return nil
	}
	index := make(map[*objects.Object]int, len(models))
	for i, mo := range models {
		index[mo] = i
	}
	var vs []pairVerdict
	_, err := engine.MatchObjects(m, models, runtimes, func(mo *objects.Object, results []engine.Result) error {
		c.report.Work.Pairs += len(results)
		vs = vs[:0]
		k := 0
		for j, ro := range runtimes {
			if objects.InScope(mo, ro) {
				vs = append(vs, pairVerdict{j, results[k].Verdict})
				k++
			}
		}
		fn(index[mo], vs)
		return nil
	})
	return err
}

// modelState is what is known of one model's pairs after the change.
type modelState struct {
	it                     *item
	gained, lost, reworded []*item
	reasons                map[*item][2]string // a runtime's reason before and after
	servedNow              bool                // some evaluated pair is compatible now
}

// side is a pair's verdict on one side: there says whether the pair is on
// that side at all (both objects there, and in scope).
type side struct {
	there, compatible bool
	reason            string
}

func sideOf(v engine.Verdict) side { return side{true, v.Compatible, v.Reason} }

// compare records a runtime gained (compatible now, not before), lost, or
// reworded (not compatible before and after, for another reason).
func (st *modelState) compare(rt *item, was, now side) {
	switch {
	case now.compatible && !was.compatible:
		st.gained = append(st.gained, rt)
	case was.compatible && !now.compatible:
		st.lost = append(st.lost, rt)
	case was.there && now.there && !now.compatible && was.reason != now.reason:
		st.reworded = append(st.reworded, rt)
	default:
		st.servedNow = st.servedNow || now.compatible
		return
	}
	if st.reasons == nil {
		st.reasons = map[*item][2]string{}
	}
	st.reasons[rt] = [2]string{was.reason, now.reason}
	st.servedNow = st.servedNow || now.compatible
}

// modelChanges finds the runtimes each model gains and loses, and the
// models left with none.
func (c *computation) modelChanges() error {
	var delta, unchanged []*item
	for _, it := range c.runtimes.items {
		if it.specChange {
			delta = append(delta, it)
		} else {
			unchanged = append(unchanged, it)
		}
	}
	var kept, rows []*modelState // models of the same spec; changed or new models
	for _, it := range c.models.items {
		switch {
		case it.new == nil:
		case it.specChange:
			rows = append(rows, &modelState{it: it})
		default:
			kept = append(kept, &modelState{it: it})
		}
	}
	if err := c.keptModels(kept, delta); err != nil {
		return err
	}
	if err := c.changedModels(rows); err != nil {
		return err
	}
	// A model of the same spec that lost a runtime (or whose reason
	// changed) and gained none keeps one only if an unchanged runtime is
	// compatible.
	var unsure []*modelState
	for _, st := range kept {
		if len(st.lost)+len(st.reworded) > 0 && !st.servedNow {
			unsure = append(unsure, st)
		}
	}
	if err := c.holdAgainst(unsure, unchanged); err != nil {
		return err
	}
	c.reportModels(append(kept, rows...))
	return nil
}

// reportModels puts the models that gained or lost a runtime, or are new,
// into the report, those left without a runtime first.
func (c *computation) reportModels(states []*modelState) {
	var changes []ModelChange
	for _, st := range states {
		if len(st.gained) == 0 && len(st.lost) == 0 && len(st.reworded) == 0 && st.it.change != Added {
			continue
		}
		mc := ModelChange{Model: st.it.ref, Position: st.it.position(), NoRuntime: !st.servedNow,
			Gained: []RuntimeChange{}, Lost: []RuntimeChange{}, Reworded: []RuntimeChange{}}
		if st.it.specChange {
			mc.Change = st.it.change
		}
		// Lost a runtime (so it had one), or is new.
		mc.Regression = mc.NoRuntime && (len(st.lost) > 0 || st.it.change == Added)
		for _, l := range []struct {
			items []*item
			to    *[]RuntimeChange
		}{{st.gained, &mc.Gained}, {st.lost, &mc.Lost}, {st.reworded, &mc.Reworded}} {
			for _, rt := range sortItems(l.items) {
				rc := runtimeChange(rt, st.reasons[rt][1])
				rc.ReasonBefore = st.reasons[rt][0]
				*l.to = append(*l.to, rc)
			}
		}
		changes = append(changes, mc)
	}
	sort.SliceStable(changes, func(i, j int) bool {
		if changes[i].Regression != changes[j].Regression {
			return changes[i].Regression
		}
		return c.models.byRef[changes[i].Model].order < c.models.byRef[changes[j].Model].order
	})
	if changes != nil {
		c.report.Models = changes
	}
}

// keptModels compares the models whose spec did not change against the
// runtimes whose spec did (delta): each model against each runtime's copy
// before and after, in one evaluation, so that the engine's memos serve
// a copy that its matching reads the same as the other (a new image).
func (c *computation) keptModels(kept []*modelState, delta []*item) error {
	if len(kept) == 0 || len(delta) == 0 {
		return nil
	}
	var runtimes []*objects.Object
	var of []*item // the item of each of runtimes
	for _, it := range delta {
		for _, o := range []*objects.Object{it.old, it.new} {
			if o != nil {
				runtimes = append(runtimes, o)
				of = append(of, it)
			}
		}
	}
	models := make([]*objects.Object, len(kept))
	for i, st := range kept {
		models[i] = st.it.new // the same spec as before
	}
	return c.match(c.after.M, models, runtimes, func(i int, vs []pairVerdict) {
		st := kept[i]
		for k := 0; k < len(vs); k++ {
			v, it := vs[k], of[vs[k].j]
			switch {
			case runtimes[v.j] == it.new: // added
				st.compare(it, side{}, sideOf(v.Verdict))
			case it.new == nil: // removed
				st.compare(it, sideOf(v.Verdict), side{})
			default: // changed: before, then after
				k++
				st.compare(it, sideOf(v.Verdict), sideOf(vs[k].Verdict))
			}
		}
	})
}

// changedModels compares each model whose spec changed, or that is new,
// against every runtime, before and after.
func (c *computation) changedModels(rows []*modelState) error {
	if len(rows) == 0 {
		return nil
	}
	// Before: which runtimes were compatible, by the runtime's place in
	// c.runtimes.items.
	place := make(map[*item]int, len(c.runtimes.items))
	for i, it := range c.runtimes.items {
		place[it] = i
	}
	was := make([][]side, len(rows))
	var oldModels, oldRuntimes, newModels, newRuntimes []*objects.Object
	var oldRows []int
	var oldOf, newOf []*item
	for i, st := range rows {
		was[i] = make([]side, len(c.runtimes.items))
		newModels = append(newModels, st.it.new)
		if st.it.old != nil {
			oldModels, oldRows = append(oldModels, st.it.old), append(oldRows, i)
		}
	}
	for _, it := range c.runtimes.items {
		if it.old != nil {
			oldRuntimes, oldOf = append(oldRuntimes, it.old), append(oldOf, it)
		}
		if it.new != nil {
			newRuntimes, newOf = append(newRuntimes, it.new), append(newOf, it)
		}
	}
	err := c.match(c.before.M, oldModels, oldRuntimes, func(i int, vs []pairVerdict) {
		for _, v := range vs {
			was[oldRows[i]][place[oldOf[v.j]]] = sideOf(v.Verdict)
		}
	})
	if err != nil {
		return err
	}
	return c.match(c.after.M, newModels, newRuntimes, func(i int, vs []pairVerdict) {
		st := rows[i]
		for _, v := range vs {
			it := newOf[v.j]
			st.compare(it, was[i][place[it]], sideOf(v.Verdict))
			was[i][place[it]] = side{}
		}
		// What is left has no pair after: its runtime was removed (or the
		// pair is out of scope now).
		for p, w := range was[i] {
			if w.compatible {
				st.compare(c.runtimes.items[p], w, side{})
			}
		}
	})
}

func pick(it *item, old bool) *objects.Object {
	if old {
		return it.old
	}
	return it.new
}

func runtimeChange(it *item, reason string) RuntimeChange {
	return RuntimeChange{Runtime: it.ref, Change: it.change, Reason: reason, Position: it.position()}
}

// sortItems orders runtimes as the input gives them: the new side's order,
// then the removed ones.
func sortItems(items []*item) []*item {
	sort.SliceStable(items, func(i, j int) bool { return items[i].order < items[j].order })
	return items
}

// firstChunk is how many unchanged runtimes holdAgainst tries first; it
// doubles each round.
const firstChunk = 32

// holdAgainst evaluates the models against the runtimes, a chunk at a
// time, until each has a compatible one or none is left. A model served
// by one gets servedNow.
func (c *computation) holdAgainst(states []*modelState, runtimes []*item) error {
	chunk := firstChunk
	for start := 0; start < len(runtimes) && len(states) > 0; start += chunk {
		end := min(len(runtimes), start+chunk)
		rs := make([]*objects.Object, 0, end-start)
		for _, it := range runtimes[start:end] {
			rs = append(rs, it.new)
		}
		ms := make([]*objects.Object, len(states))
		for i, st := range states {
			ms[i] = st.it.new
		}
		err := c.match(c.after.M, ms, rs, func(i int, vs []pairVerdict) {
			for _, v := range vs {
				states[i].servedNow = states[i].servedNow || v.Compatible
			}
		})
		if err != nil {
			return err
		}
		left := states[:0]
		for _, st := range states {
			if !st.servedNow {
				left = append(left, st)
			}
		}
		states = left
		chunk *= 2
	}
	return nil
}

// serviceChanges decides again on each InferenceService whose inputs changed.
func (c *computation) serviceChanges() error {
	changedModels := map[objects.Ref]bool{}
	for _, it := range c.models.items {
		if it.change != "" {
			changedModels[it.ref] = true
		}
	}
	namespaces, clusterRuntimes := map[string]bool{}, false
	for _, it := range c.runtimes.items {
		if it.change == "" {
			continue
		}
		if it.ref.Kind == objects.KindClusterServingRuntime {
			clusterRuntimes = true
		} else {
			namespaces[it.ref.Namespace] = true
		}
	}
	touched := func(isvc *objects.Object) bool {
		if isvc == nil {
			return false
		}
		ns, model := isvc.Namespace, ModelName(isvc)
		return clusterRuntimes || namespaces[ns] ||
			changedModels[objects.Ref{Kind: objects.KindBaseModel, Namespace: ns, Name: model}] ||
			changedModels[objects.Ref{Kind: objects.KindClusterBaseModel, Name: model}]
	}
	return c.decideAgain(func(it *item) bool { return it.change != "" || touched(it.old) || touched(it.new) })
}

// decideAgain decides, on both sides, on each InferenceService of the new
// side for which again says so, and puts those whose decision changed
// into the report, regressions first.
func (c *computation) decideAgain(again func(*item) bool) error {
	var changes []ServiceChange
	for _, it := range c.services.items {
		if it.new == nil || !again(it) {
			continue
		}
		after, err := c.decide(c.after.S, it.new, c.newCluster)
		if err != nil {
			return err
		}
		sc := ServiceChange{InferenceService: it.ref, Position: it.position(), After: after}
		if it.old == nil {
			sc.Change, sc.Regression = ServiceAdded, !after.Admitted
		} else {
			before, err := c.decide(c.before.S, it.old, c.oldCluster)
			if err != nil {
				return err
			}
			sc.Before = before
			sc.Change, sc.Regression = compare(before, after)
			if sc.Change == "" {
				continue
			}
		}
		changes = append(changes, sc)
	}
	sort.SliceStable(changes, func(i, j int) bool { return changes[i].Regression && !changes[j].Regression })
	if changes != nil {
		c.report.InferenceServices = changes
	}
	return nil
}

// decide runs the webhook on one side with s. The selected runtime's
// position is where to look at it after the change (before it, when it was
// removed).
func (c *computation) decide(s engine.Selector, isvc *objects.Object, cluster []*objects.Object) (*Selection, error) {
	c.report.Work.Selections++
	d, err := s.Select(isvc, cluster)
	if err != nil {
		return nil, fmt.Errorf("%s (%s:%d): %w", isvc.Ref(), isvc.File, isvc.Line, err)
	}
	return SelectionOf(d, c.runtimes.position), nil
}

// position is where to look at an object of the sides.
func (s *sides) position(ref objects.Ref) Position {
	if it := s.byRef[ref]; it != nil {
		return it.position()
	}
	return Position{}
}

// SelectionOf is a webhook decision as a diff shows it; at gives the
// position of the selected runtime.
func SelectionOf(d engine.Decision, at func(objects.Ref) Position) *Selection {
	s := &Selection{Admitted: d.Admitted, Message: d.Message, Check: d.Check}
	for _, e := range d.Excluded {
		if s.excluded == nil {
			s.excluded = map[objects.Ref]string{}
		}
		s.excluded[e.Ref] = e.Reason
	}
	if d.Admitted && d.Selected != nil {
		ref := *d.Selected
		s.Runtime = &ref
		s.Scope = "cluster"
		if ref.Kind == objects.KindServingRuntime {
			s.Scope = "namespace"
		}
		for _, cand := range d.Candidates {
			if cand.Ref == ref {
				s.Score = cand.Score
			}
		}
		s.Position = at(ref)
	}
	return s
}

// compare says how an InferenceService's decision changed ("" when it did
// not), and whether that is a regression.
func compare(before, after *Selection) (string, bool) {
	sameRuntime := reflect.DeepEqual(before.Runtime, after.Runtime)
	switch {
	case before.Admitted && !after.Admitted:
		return ServiceRefused, true
	case !before.Admitted && after.Admitted:
		return ServiceAdmitted, false
	case before.Admitted && !sameRuntime:
		return ServiceRuntime, true
	case before.Admitted && before.Score != after.Score:
		return ServiceScore, false
	case !before.Admitted && before.Message != after.Message:
		return ServiceMessage, false
	}
	return "", false
}

// unmoved lists the objects added, removed or changed that no entry of
// the report names.
func (c *computation) unmoved() {
	named := map[objects.Ref]bool{}
	for _, m := range c.report.Models {
		named[m.Model] = true
		for _, l := range [][]RuntimeChange{m.Gained, m.Lost} {
			for _, r := range l {
				named[r.Runtime] = true
			}
		}
	}
	for _, s := range c.report.InferenceServices {
		named[s.InferenceService] = true
		for _, sel := range []*Selection{s.Before, s.After} {
			if sel != nil && sel.Runtime != nil {
				named[*sel.Runtime] = true
			}
		}
	}
	for _, group := range []*sides{c.models, c.runtimes, c.services} {
		for _, it := range group.items {
			if it.change != "" && !named[it.ref] {
				c.report.Unmoved = append(c.report.Unmoved, ObjectChange{Ref: it.ref, Change: it.change, Position: it.position()})
			}
		}
	}
}

// ModelName is the model an InferenceService names (spec.model.name).
func ModelName(isvc *objects.Object) string {
	model, _ := isvc.Spec()["model"].(map[string]any)
	name, _ := model["name"].(string)
	return name
}
