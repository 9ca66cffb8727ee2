package cel

import (
	"encoding/binary"
	"encoding/json"
	"fmt"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/ome-policy/evaluator/engine/answer"
)

// A batch matches many models against the same runtimes, as `evaluate
// match` does. What the policies compute is the same as pair by pair; the
// batch only avoids computing the same thing twice:
//
//   - each runtime and entry is converted to CEL values once, for all
//     workers (ForWorker), and only the fields the policies read;
//   - each distinct entry is evaluated once per model;
//   - a validation that reads no input but the model and an entry (or a
//     runtime) is evaluated once per distinct projection of the two on the
//     fields it reads (see readSet), and its outcome reused.

// batch is what one worker keeps across the models it matches.
type batch struct {
	runtimes        []runtimeValue
	distinctEntries int
	entry, runtime  *outcomeMemo
}

// runtimeValue is a runtime converted for the CEL policies once.
type runtimeValue struct {
	spec ref.Val
	// ids numbers, per validation of the runtime policy, the runtime's
	// projection, and for a validation that reads the entry results, its
	// projection with its list of entries (equal for runtimes with equal
	// entries): the results depend on nothing else than the entries and
	// what the entry policy reads of the model.
	ids     []int32
	entries []entryValue
}

// entryValue is an entry of spec.supportedModelFormats converted once.
type entryValue struct {
	val      ref.Val
	distinct int32   // the same for equal entries
	ids      []int32 // its projection per validation of the entry policy
}

// checkOutcome is a validation's outcome, kept for reuse.
type checkOutcome struct {
	failed bool
	msg    string
}

// maxOutcomes bounds the outcomes kept per validation: past it, that
// validation's memo starts over, so memory does not grow with the number
// of pairs. 2,048 was measured the fastest on the three shapes of
// bench/run.sh: a larger memo is live heap the collector scans over and
// over (1 << 13 was 15-25% slower on the many-valued shape).
var maxOutcomes = 1 << 11

// outcomeMemo keeps the outcomes of one policy's validations across the
// models of a batch, keyed by the numbers of what each validation reads of
// the model and of the other input (an entry, or a runtime with its list
// of entries), both in one uint64, which Go's maps hash fastest.
type outcomeMemo struct {
	p *policy
	// reuse[i] is true when validation i reads no input but the model, the
	// other input, the entry results, and inputs fixed for the whole batch.
	reuse         []bool
	models, other *projections
	// readsEntries[i] is true when validation i reads the entry results.
	readsEntries []bool
	outcomes     []map[uint64]checkOutcome
	// noMessages: a failed validation's message is not evaluated, and is
	// "" (Matcher.WithoutReasons).
	noMessages bool
}

func outcomeKey(model, other int32) uint64 {
	return uint64(uint32(model))<<32 | uint64(uint32(other))
}

// newOutcomeMemo makes the memo of p's validations. entryReads is what the
// entry policy reads of the model, when p reads the entry results.
func newOutcomeMemo(p *policy, other string, entryReads *inputReads, fixed ...string) *outcomeMemo {
	o := &outcomeMemo{p: p, models: newProjections(p, "model"), other: newProjections(p, other)}
	allowed := append(fixed, "model", other)
	if entryReads != nil {
		allowed = append(allowed, "entries")
	}
	for i, c := range p.checks {
		o.reuse = append(o.reuse, c.reads.only(allowed...))
		o.outcomes = append(o.outcomes, map[uint64]checkOutcome{})
		_, entries := c.reads["entries"]
		o.readsEntries = append(o.readsEntries, entries)
		if entries && entryReads != nil {
			r := readSet{"model": entryReads}
			if own := c.reads["model"]; own != nil {
				r.union(readSet{"model": own})
			}
			o.models.reads[i] = r["model"]
		}
	}
	return o
}

// run evaluates the policy's validations as policy.run does, taking the
// outcome of a reused validation from the memo when it is there. modelIDs
// and ids are the model's and the other input's projections (see
// runtimeValue.ids); act makes the activation, only when a validation must
// be evaluated.
func (o *outcomeMemo) run(modelIDs, ids []int32, act func() *activation) ([]string, error) {
	var a *activation
	return o.p.collect(func(i int) (bool, string, error) {
		key := outcomeKey(modelIDs[i], ids[i])
		if o.reuse[i] {
			if out, found := o.outcomes[i][key]; found {
				return out.failed, out.msg, nil
			}
		}
		if a == nil {
			a = act()
		}
		failed, msg, err := o.p.checkMessage(i, a, !o.noMessages)
		if err == nil && o.reuse[i] {
			if len(o.outcomes[i]) >= maxOutcomes {
				clear(o.outcomes[i])
			}
			o.outcomes[i][key] = checkOutcome{failed: failed, msg: msg}
		}
		return failed, msg, err
	})
}

// projections numbers the distinct projections of one input's values on
// the fields each validation of a policy reads.
type projections struct {
	reads []*inputReads // per validation; nil when it reads none of it
	seen  []map[string]int32
}

func newProjections(p *policy, input string) *projections {
	pr := &projections{}
	for _, c := range p.checks {
		pr.reads = append(pr.reads, c.reads[input])
		pr.seen = append(pr.seen, map[string]int32{})
	}
	return pr
}

// ids numbers v's projection for each validation.
func (pr *projections) ids(v map[string]any) ([]int32, error) {
	out := make([]int32, len(pr.reads))
	for i, r := range pr.reads {
		key, err := projectionKey(v, r)
		if err != nil {
			return nil, err
		}
		id, ok := pr.seen[i][key]
		if !ok {
			id = int32(len(pr.seen[i]))
			pr.seen[i][key] = id
		}
		out[i] = id
	}
	return out, nil
}

// projectionKey is the JSON text of the fields of v that r reads ("" when
// it reads none).
func projectionKey(v map[string]any, r *inputReads) (string, error) {
	if r == nil {
		return "", nil
	}
	b, err := json.Marshal(project(v, r))
	return string(b), err
}

// project keeps the fields of v that r reads.
func project(v map[string]any, r *inputReads) map[string]any {
	if r == nil {
		return map[string]any{}
	}
	if r.whole {
		return v
	}
	return pickFields(v, r.fields)
}

// pickFields is the part of v with the given fields (those it has).
func pickFields(v map[string]any, fields []string) map[string]any {
	sub := make(map[string]any, len(fields))
	for _, f := range fields {
		if x, ok := v[f]; ok {
			sub[f] = x
		}
	}
	return sub
}

// policyReads is what p's validations and their messages read of input,
// directly or through the variables they use: all that a batch evaluates.
// A variable no validation uses (the runtime policy's score and
// autoSelect, which selection reads and which read every entry of
// supportedModelFormats) is never evaluated in a batch, and what it reads
// is left out of the prepared values.
func policyReads(p *policy, input string) *inputReads {
	all := readSet{}
	for _, c := range p.checks {
		if in := c.reads[input]; in != nil {
			all.union(readSet{input: in})
		}
	}
	return all[input]
}

var emptyClasses = types.NewRefValList(types.DefaultTypeAdapter, nil)

// Prepare converts the runtimes once and numbers their projections.
func (m *Matcher) Prepare(runtimes []map[string]any) (any, error) {
	b := &batch{
		runtimes: make([]runtimeValue, len(runtimes)),
		entry:    newOutcomeMemo(m.entry, "entry", nil),
		runtime:  newOutcomeMemo(m.runtime, "runtime", policyReads(m.entry, "model"), "acceleratorClasses"),
	}
	b.runtime.noMessages = m.noReasons
	runtimeFields, entryFields := policyReads(m.runtime, "runtime"), policyReads(m.entry, "entry")
	distinct := map[string]entryValue{}
	lists := map[string]int32{}
	// For each validation that reads the entry results, the numbers of
	// the pairs of a runtime's projection and its list of entries.
	withList := make([]map[[2]int32]int32, len(m.runtime.checks))
	for k := range withList {
		withList[k] = map[[2]int32]int32{}
	}
	for i, r := range runtimes {
		ids, err := b.runtime.other.ids(r)
		if err != nil {
			return nil, err
		}
		formats, _ := r["supportedModelFormats"].([]any)
		cr := runtimeValue{spec: toCEL(project(r, runtimeFields)), ids: ids, entries: make([]entryValue, len(formats))}
		for j, e := range formats {
			entry, _ := e.(map[string]any)
			if entry == nil {
				entry = map[string]any{}
			}
			key, err := json.Marshal(entry)
			if err != nil {
				return nil, err
			}
			ce, ok := distinct[string(key)]
			if !ok {
				ids, err := b.entry.other.ids(entry)
				if err != nil {
					return nil, err
				}
				ce = entryValue{val: toCEL(project(entry, entryFields)), distinct: int32(len(distinct)), ids: ids}
				distinct[string(key)] = ce
			}
			cr.entries[j] = ce
		}
		list := make([]byte, 0, 4*len(cr.entries))
		for _, e := range cr.entries {
			list = binary.LittleEndian.AppendUint32(list, uint32(e.distinct))
		}
		id, ok := lists[string(list)]
		if !ok {
			id = int32(len(lists))
			lists[string(list)] = id
		}
		for k, reads := range b.runtime.readsEntries {
			if !reads {
				continue
			}
			pair := [2]int32{ids[k], id}
			n, ok := withList[k][pair]
			if !ok {
				n = int32(len(withList[k]))
				withList[k][pair] = n
			}
			ids[k] = n
		}
		b.runtimes[i] = cr
	}
	b.distinctEntries = len(distinct)
	return b, nil
}

// ForWorker is the prepared batch for one worker: the same converted
// runtimes, which are only read, and memos of its own.
func (m *Matcher) ForWorker(prepared any) any {
	b := prepared.(*batch)
	return &batch{runtimes: b.runtimes, distinctEntries: b.distinctEntries, entry: b.entry.forWorker(), runtime: b.runtime.forWorker()}
}

// forWorker is a memo of the same validations with no outcome kept: it
// numbers the other input's projections as o does (the prepared runtimes
// carry those numbers), and the models' afresh.
func (o *outcomeMemo) forWorker() *outcomeMemo {
	c := &outcomeMemo{p: o.p, reuse: o.reuse, other: o.other, readsEntries: o.readsEntries,
		models: &projections{reads: o.models.reads}, noMessages: o.noMessages}
	for range o.outcomes {
		c.outcomes = append(c.outcomes, map[uint64]checkOutcome{})
	}
	for range o.models.seen {
		c.models.seen = append(c.models.seen, map[string]int32{})
	}
	return c
}

// entryResult is one entry's result for one model, as the runtime policy
// reads it and as the verdict reports it.
type entryResult struct {
	differences []string
	val         ref.Val
}

var (
	matchedKey     = types.String("matched")
	differencesKey = types.String("differences")
)

// MatchModel evaluates one model against the prepared runtimes.
func (m *Matcher) MatchModel(model map[string]any, prepared any) ([]answer.Verdict, error) {
	b := prepared.(*batch)
	mv := toCEL(model)
	entryModel, err := b.entry.models.ids(model)
	if err != nil {
		return nil, err
	}
	runtimeModel, err := b.runtime.models.ids(model)
	if err != nil {
		return nil, err
	}
	results := make([]*entryResult, b.distinctEntries)
	shared := make([]ref.Val, len(m.runtime.vars))
	out := make([]answer.Verdict, len(b.runtimes))
	// One activation per policy serves all the evaluations of this model:
	// each takes its inputs and starts with no variable evaluated. The
	// runtimes' entry results are laid out in one slice.
	entryInputs := map[string]any{"model": mv, "entry": nil}
	entryAct := m.entry.activation(entryInputs)
	runtimeInputs := map[string]any{"model": mv, "runtime": nil, "acceleratorClasses": emptyClasses, "entries": nil}
	runtimeAct := m.runtime.sharedActivation(runtimeInputs, shared)
	all := 0
	for _, r := range b.runtimes {
		all += len(r.entries)
	}
	entryResults := make([]answer.EntryResult, all)
	var vals []ref.Val
	for i, r := range b.runtimes {
		v := answer.Verdict{Entries: entryResults[:len(r.entries):len(r.entries)]}
		entryResults = entryResults[len(r.entries):]
		vals = vals[:0]
		for j, e := range r.entries {
			res := results[e.distinct]
			if res == nil {
				diffs, err := b.entry.run(entryModel, e.ids, func() *activation {
					entryInputs["entry"] = e.val
					clear(entryAct.vals)
					return entryAct
				})
				if err != nil {
					return nil, fmt.Errorf("entry %d: %w", j, err)
				}
				if diffs == nil {
					diffs = []string{}
				}
				// The differences as CEL strings once, not at each read
				// of a runtime that has the entry.
				texts := make([]ref.Val, len(diffs))
				for k, d := range diffs {
					texts[k] = types.String(d)
				}
				res = &entryResult{differences: diffs, val: types.NewRefValMap(types.DefaultTypeAdapter, map[ref.Val]ref.Val{
					matchedKey:     types.Bool(len(diffs) == 0),
					differencesKey: types.NewRefValList(types.DefaultTypeAdapter, texts),
				})}
				results[e.distinct] = res
			}
			v.Entries[j] = answer.EntryResult{Index: j, Matched: len(res.differences) == 0, Differences: res.differences}
			vals = append(vals, res.val)
		}
		failures, err := b.runtime.run(runtimeModel, r.ids, func() *activation {
			runtimeInputs["runtime"] = r.spec
			runtimeInputs["entries"] = types.NewRefValList(types.DefaultTypeAdapter, vals)
			clear(runtimeAct.vals)
			return runtimeAct
		})
		if err != nil {
			return nil, err
		}
		v.Compatible = len(failures) == 0
		if !v.Compatible {
			v.Reason = failures[0]
		}
		out[i] = v
	}
	return out, nil
}
