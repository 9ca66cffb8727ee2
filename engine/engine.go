// Package engine is the API over the two engines: the contracts every
// command uses (Matcher, Selector, Linter, Explainer and the answers they
// give), the choice of engine by name (cel, rego, or both, which runs the
// two and refuses to answer when they disagree), MatchObjects, which
// evaluates every model against every runtime on all cores, in order, and
// the policies' own tests (the CEL policy tester, the Rego unit tests). The
// lint run and the runner of case files are runner's.
//
// The engines themselves live in engine/cel and engine/rego; each compiles
// its language's policies and evaluates them. The answers' types live in
// engine/answer, which both engines fill and neither needs this package
// for. This package knows no policy language: it never parses CEL or Rego.
package engine

import (
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"sync"

	"github.com/ome-policy/evaluator/engine/answer"
	"github.com/ome-policy/evaluator/engine/cel"
	"github.com/ome-policy/evaluator/engine/rego"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/policies/policyset"
)

// Names of the engines.
const (
	CEL  = cel.Name
	Rego = rego.Name
	Both = "both"
)

// Names lists the engines a user can choose, in the order help shows them.
var Names = []string{CEL, Rego, Both}

// The answers the engines give (see engine/answer).
type (
	Ref              = objects.Ref
	Verdict          = answer.Verdict
	EntryResult      = answer.EntryResult
	Finding          = answer.Finding
	LintOptions      = answer.LintOptions
	Explanation      = answer.Explanation
	Tie              = answer.Tie
	EntryExplanation = answer.EntryExplanation
	Check            = answer.Check
	CheckVersions    = answer.CheckVersions
	VersionText      = answer.VersionText
	Decision         = answer.Decision
	Candidate        = answer.Candidate
	Excluded         = answer.Excluded
	Unselectable     = answer.Unselectable
	Checked          = answer.Checked
)

// Severities of lint findings, from the most to the least serious.
const (
	SeverityError   = answer.SeverityError
	SeverityWarning = answer.SeverityWarning
	SeverityInfo    = answer.SeverityInfo
)

// Severities lists the severities, from the most to the least serious.
var Severities = []string{SeverityError, SeverityWarning, SeverityInfo}

// Result is a Verdict with the two objects it is about.
type Result struct {
	Model   Ref `json:"model" yaml:"model"`
	Runtime Ref `json:"runtime" yaml:"runtime"`
	Verdict `yaml:",inline"`
}

// EngineRun is a case on one engine: whether that engine gave what the
// case expects, what it gave, and its error.
type EngineRun struct {
	Engine string
	Passed bool
	Got    any
	Err    string
}

// Matcher evaluates one model spec against one runtime spec. The specs are
// normalised values as Load returns them (Object.Spec). Implementations are
// safe for concurrent use.
type Matcher interface {
	Name() string
	Match(model, runtime map[string]any) (Verdict, error)
}

// New compiles the policies of set for the named engine: cel, rego or both.
func New(name string, set *policyset.Set) (Matcher, error) {
	ms, err := Matchers(name, set)
	if err != nil {
		return nil, err
	}
	if len(ms) == 2 {
		return &bothMatcher{cel: ms[0], rego: ms[1]}, nil
	}
	return ms[0], nil
}

// NewForDecisions is New for a caller that reads of each verdict of
// MatchObjects only whether the runtime accepts the model, as OME's
// decisions do: on CEL, an incompatible runtime's verdict then has no
// reason ("", cel.Matcher.WithoutReasons), whose text is most of a
// match's cost and allocations. Rego builds a runtime's reason with its
// verdict, and gives it.
func NewForDecisions(name string, set *policyset.Set) (Matcher, error) {
	m, err := New(name, set)
	if err != nil {
		return nil, err
	}
	if c, ok := m.(*cel.Matcher); ok {
		return c.WithoutReasons(), nil
	}
	return m, nil
}

// unknownEngine is the error for an engine name that is none of Names.
func unknownEngine(name string) error {
	return fmt.Errorf("unknown engine %q (want %s)", name, strings.Join(Names, ", "))
}

// DisagreementError is returned by the "both" engine when CEL and Rego give
// different verdicts: a bug in one of the policies.
type DisagreementError struct {
	CEL, Rego Verdict
}

func (e *DisagreementError) Error() string {
	return fmt.Sprintf("engines disagree: cel says %s; rego says %s", Describe(e.CEL), Describe(e.Rego))
}

// Describe says a verdict in a few words, for messages about disagreements.
func Describe(v Verdict) string {
	if v.Compatible {
		return fmt.Sprintf("compatible, entries %v", v.Entries)
	}
	return fmt.Sprintf("not compatible (%q), entries %v", v.Reason, v.Entries)
}

type bothMatcher struct {
	cel, rego Matcher
}

func (b *bothMatcher) Name() string { return Both }

func (b *bothMatcher) Match(model, runtime map[string]any) (Verdict, error) {
	c, err := b.cel.Match(model, runtime)
	if err != nil {
		return Verdict{}, fmt.Errorf("cel: %w", err)
	}
	r, err := b.rego.Match(model, runtime)
	if err != nil {
		return Verdict{}, fmt.Errorf("rego: %w", err)
	}
	if !reflect.DeepEqual(c, r) {
		return Verdict{}, &DisagreementError{CEL: c, Rego: r}
	}
	return c, nil
}

// batchMatcher is a Matcher that can evaluate one model against many
// runtimes at once: the runtimes are converted to the engine's own values
// once (Prepare), then each model is matched against all of them. The
// workers share what Prepare made, which they only read: each evaluates
// with ForWorker of it, which has memos of its own.
type batchMatcher interface {
	Matcher
	Prepare(runtimes []map[string]any) (any, error)
	ForWorker(prepared any) any
	MatchModel(model map[string]any, prepared any) ([]Verdict, error)
}

// modelKeyer is a batchMatcher whose verdicts depend only on a key of the
// model: models with the same key get the same verdicts. ok is false when
// the matcher cannot tell.
type modelKeyer interface {
	ModelKey(model map[string]any) (key string, ok bool, err error)
}

// verdictMemo holds the verdicts of the models evaluated last, by model
// key, for all workers: models that agree on their key are usually close
// in a sorted list (a family of sizes), so the memo keeps the most recent
// keys only, as many as hold maxMemoVerdicts verdicts (at least one). A
// key being evaluated is in the memo too: a worker that needs it waits
// for it rather than evaluating it again.
type verdictMemo struct {
	mu     sync.Mutex
	byKey  map[string]*memoEntry
	recent []string // keys, oldest first
	keep   int
}

type memoEntry struct {
	done     chan struct{} // closed when verdicts and err are set
	verdicts []Verdict
	err      error
}

// maxMemoVerdicts bounds the verdicts a verdictMemo holds.
var maxMemoVerdicts = 1 << 12

func newVerdictMemo(runtimes int) *verdictMemo {
	return &verdictMemo{byKey: map[string]*memoEntry{}, keep: max(1, maxMemoVerdicts/max(1, runtimes))}
}

// claim returns the key's entry, and whether the caller is to evaluate it
// (and then call finish); otherwise it waits on the entry's done.
func (m *verdictMemo) claim(key string) (*memoEntry, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if e, ok := m.byKey[key]; ok {
		return e, false
	}
	e := &memoEntry{done: make(chan struct{})}
	m.byKey[key] = e
	m.recent = append(m.recent, key)
	if len(m.recent) > m.keep {
		delete(m.byKey, m.recent[0])
		m.recent = m.recent[1:]
	}
	return e, true
}

func (e *memoEntry) finish(vs []Verdict, err error) {
	e.verdicts, e.err = vs, err
	close(e.done)
}

// MatchObjects evaluates every model against the runtimes OME pairs it
// with (objects.InScope) and hands emit each model's results, in input
// order (by model, then runtime), as soon as they are known; a model that
// no runtime is paired with gets none. It returns how many pairs were left
// out for scope. Models are evaluated on all cores; results stay in order,
// and at most a few models' results are held at once. It stops at the
// first error, which names the model (and the runtime, when known).
func MatchObjects(m Matcher, models, runtimes []*objects.Object, emit func(model *objects.Object, results []Result) error) (leftOut int, err error) {
	r := newMatchRun(m, runtimes)
	slots, window, stop := r.start(models)
	defer close(stop)
	for i, mo := range models {
		d := <-slots[i]
		<-window
		if d.err != nil {
			return leftOut, d.err
		}
		results := make([]Result, 0, len(runtimes))
		for j, ro := range runtimes {
			if !objects.InScope(mo, ro) {
				leftOut++
				continue
			}
			results = append(results, Result{Model: objects.RefOf(mo), Runtime: objects.RefOf(ro), Verdict: d.verdicts[j]})
		}
		if err := emit(mo, results); err != nil {
			return leftOut, err
		}
	}
	return leftOut, nil
}

// matchRun is one MatchObjects: the matcher, what it can do beyond Match
// (evaluate a model against every runtime at once, key models), and the
// runtimes.
type matchRun struct {
	m        Matcher
	batch    batchMatcher // nil when m matches a pair at a time
	keyer    modelKeyer   // nil when m keys no models
	runtimes []*objects.Object
	specs    []map[string]any
	memo     *verdictMemo
}

// matched is the verdicts of one model against every runtime.
type matched struct {
	verdicts []Verdict
	err      error
}

func newMatchRun(m Matcher, runtimes []*objects.Object) *matchRun {
	r := &matchRun{m: m, runtimes: runtimes, specs: make([]map[string]any, len(runtimes)), memo: newVerdictMemo(len(runtimes))}
	for i, ro := range runtimes {
		r.specs[i] = ro.Spec()
	}
	if bm, ok := m.(batchMatcher); ok {
		r.batch = bm
		if k, ok := m.(modelKeyer); ok {
			r.keyer = k
		}
	}
	return r
}

// start evaluates the models on all cores, each into its slot, in the
// background. A model is started only when fewer than 2*workers are
// unconsumed (a receive from window frees a place), so memory stays
// bounded however many models there are; closing stop ends it.
func (r *matchRun) start(models []*objects.Object) (slots []chan matched, window, stop chan struct{}) {
	workers := max(1, min(runtime.GOMAXPROCS(0), len(models)))
	slots = make([]chan matched, len(models))
	for i := range slots {
		slots[i] = make(chan matched, 1)
	}
	window = make(chan struct{}, 2*workers)
	stop = make(chan struct{})
	next := make(chan int)
	go func() {
		defer close(next)
		for i := range models {
			select {
			case window <- struct{}{}:
			case <-stop:
				return
			}
			select {
			case next <- i:
			case <-stop:
				return
			}
		}
	}()
	// The runtimes are prepared once, for all workers: converted once,
	// they take half the memory with two workers, and the collector scans
	// them once (on the many-valued shape of bench/run.sh, 10% less time
	// than each worker preparing its own).
	var prepared any
	var prepareErr error
	if r.batch != nil && len(models) > 0 {
		prepared, prepareErr = r.batch.Prepare(r.specs)
	}
	for w := 0; w < workers; w++ {
		go func() {
			var mine any
			if r.batch != nil && prepareErr == nil {
				mine = r.batch.ForWorker(prepared)
			}
			for i := range next {
				if prepareErr != nil {
					slots[i] <- matched{nil, prepareErr}
					continue
				}
				vs, err := r.evaluate(models[i], mine)
				slots[i] <- matched{vs, err}
			}
		}()
	}
	return slots, window, stop
}

// evaluate gives one model's verdicts against every runtime: a batch
// evaluation, or a model whose key was seen lately gets the verdicts
// already made (plain Go values, which are only read); without a batch,
// a pair at a time.
func (r *matchRun) evaluate(mo *objects.Object, prepared any) ([]Verdict, error) {
	if r.batch == nil {
		vs := make([]Verdict, len(r.runtimes))
		for j, ro := range r.runtimes {
			v, err := r.m.Match(mo.Spec(), r.specs[j])
			if err != nil {
				return nil, fmt.Errorf("model %s (%s) against runtime %s (%s): %w", mo.Ref(), mo.File, ro.Ref(), ro.File, err)
			}
			vs[j] = v
		}
		return vs, nil
	}
	entry, done, err := r.remembered(mo)
	if err != nil || done != nil {
		return done, err
	}
	vs, err := r.batch.MatchModel(mo.Spec(), prepared)
	if err != nil {
		err = fmt.Errorf("model %s (%s): %w", mo.Ref(), mo.File, err)
	}
	if entry != nil {
		entry.finish(vs, err)
	}
	return vs, err
}

// remembered gives the verdicts of a model with the same key made by
// another worker (done), or the memo's entry that this worker is to fill
// (nil when the model has no key).
func (r *matchRun) remembered(mo *objects.Object) (entry *memoEntry, done []Verdict, err error) {
	if r.keyer == nil {
		return nil, nil, nil
	}
	key, ok, err := r.keyer.ModelKey(mo.Spec())
	if err != nil {
		return nil, nil, fmt.Errorf("model %s (%s): %w", mo.Ref(), mo.File, err)
	}
	if !ok {
		return nil, nil, nil
	}
	entry, mine := r.memo.claim(key)
	if mine {
		return entry, nil, nil
	}
	<-entry.done
	if entry.err == nil {
		return nil, entry.verdicts, nil
	}
	// The error names the other model: evaluate this one for its own.
	return nil, nil, nil
}

// Matchers returns the matchers of the named engine: one, or for "both"
// the CEL and the Rego matcher, which New puts together and case runners
// check each on its own.
func Matchers(name string, set *policyset.Set) ([]Matcher, error) {
	return byEngine(name, set,
		func(s *policyset.Set) (Matcher, error) { return cel.New(s) },
		func(s *policyset.Set) (Matcher, error) { return rego.New(s) })
}

// byEngine compiles one part of the named engine from set: the CEL one,
// the Rego one, or for "both" the two, CEL's first. It is the one place
// that turns an engine's name into its engines.
func byEngine[T any](name string, set *policyset.Set, fromCEL, fromRego func(*policyset.Set) (T, error)) ([]T, error) {
	var makers []func(*policyset.Set) (T, error)
	switch name {
	case CEL:
		makers = append(makers, fromCEL)
	case Rego:
		makers = append(makers, fromRego)
	case Both:
		makers = append(makers, fromCEL, fromRego)
	default:
		return nil, unknownEngine(name)
	}
	out := make([]T, 0, len(makers))
	for _, compile := range makers {
		t, err := compile(set)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}
