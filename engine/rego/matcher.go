package rego

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/topdown"

	"github.com/ome-policy/evaluator/engine/answer"
	"github.com/ome-policy/evaluator/policies/policyset"
)

// ResultsQuery is the rule the Rego engine evaluates: one verdict per runtime
// of input.runtimes for input.model.
const ResultsQuery = "data.ome.match.results"

// BatchQuery is what the Rego policy makes of the runtimes alone, the
// same for every model.
const BatchQuery = "data.ome.match.batch"

// VerdictsQuery is ResultsQuery in parts, for a model against a batch:
// each distinct entry's differences and each runtime's reason.
const VerdictsQuery = "data.ome.match.verdicts"

// TableFieldsQuery names the policy's check tables, each with the one
// model field it reads; TableQuery evaluates the table input.table.
const (
	TableFieldsQuery = "data.ome.match.table_fields"
	TableQuery       = "data.ome.match[input.table]"
)

// ModelFieldsQuery lists the model fields the verdicts depend on.
const ModelFieldsQuery = "data.ome.match.model_fields"

// RuntimeFieldsQuery lists the fields of a runtime's spec that the batch
// reads.
const RuntimeFieldsQuery = "data.ome.match.runtime_fields"

// Matcher evaluates the policy of package ome.match with the ome.*
// builtins: data.ome.match.results for a single pair, and for many models
// against the same runtimes the batch, the check tables and the verdicts.
type Matcher struct {
	query    rego.PreparedEvalQuery // RegoQuery
	batch    rego.PreparedEvalQuery // RegoBatchQuery
	verdicts rego.PreparedEvalQuery // RegoVerdictsQuery
	table    rego.PreparedEvalQuery // RegoTableQuery
	// tables are the policy's table_fields, in name order (none when the
	// policy has no table_fields).
	tables []checkTable
	// modelFields are the policy's model_fields: a model is evaluated with
	// these fields alone (all of it when the policy has no model_fields).
	modelFields []string
	// runtimeFields are the policy's runtime_fields: the batch is made of
	// runtimes with these fields alone (all of each when the policy has
	// no runtime_fields).
	runtimeFields []string
}

// checkTable is a check table of the policy and the model field it reads.
type checkTable struct {
	name, field string
	nameTerm    *ast.Term
}

// runtimeBatch is the policy's data.ome.match.batch of a list of runtimes:
// all that a query needs of them, once it is given as input.batch, so the
// runtimes themselves are not kept.
type runtimeBatch struct {
	batch ast.Value
	// lists holds, for each runtime, the keys of its entries in
	// VerdictsQuery's entries, in order (batch.lists[batch.runtimes[i].list]).
	lists [][]string
	// memo holds the tables computed so far, by table and by the JSON
	// text of the model's field ("" when the model has none); cells
	// counts their entries, to bound the memory they take.
	memo  []map[string]*ast.Term
	cells int
}

// MaxTableCells bounds the entries a worker's tables hold: past it, the
// memo starts over. It is a variable so that tests can show the verdicts do
// not depend on it. 2,048 was measured the fastest: on the many-valued
// shape of bench/run.sh the tables rarely serve another model, and a larger
// memo is live heap the collector scans over and over (1 << 15 took 26-30 s
// there against 18-19 s).
var MaxTableCells = 1 << 11

// New compiles the Rego policies of package ome.match once.
func New(set *policyset.Set) (*Matcher, error) {
	pq, err := Queries(set, []string{"ome.match"}, ResultsQuery, BatchQuery, VerdictsQuery, TableQuery, TableFieldsQuery, ModelFieldsQuery, RuntimeFieldsQuery)
	if err != nil {
		return nil, err
	}
	m := &Matcher{query: pq[0], batch: pq[1], verdicts: pq[2], table: pq[3]}
	if m.tables, err = tableFields(pq[4]); err != nil {
		return nil, err
	}
	if m.modelFields, err = fieldNames(pq[5], ModelFieldsQuery); err != nil {
		return nil, err
	}
	if m.runtimeFields, err = fieldNames(pq[6], RuntimeFieldsQuery); err != nil {
		return nil, err
	}
	return m, nil
}

// fieldNames reads a list of field names that the policy gives as what
// (model_fields, runtime_fields), nil when the policy has none.
func fieldNames(query rego.PreparedEvalQuery, what string) ([]string, error) {
	rs, err := query.Eval(context.Background(), rego.EvalParsedInput(ast.NewObject()), rego.EvalGenerateJSON(keepTerm))
	if err != nil || len(rs) == 0 {
		return nil, err
	}
	list, ok := rs[0].Expressions[0].Value.(*ast.Term).Value.(*ast.Array)
	if !ok {
		return nil, fmt.Errorf("%s: want a list of field names", what)
	}
	out := []string{}
	for i := range list.Len() {
		f, ok := list.Elem(i).Value.(ast.String)
		if !ok {
			return nil, fmt.Errorf("%s[%d]: want a field name, got %v", what, i, list.Elem(i))
		}
		out = append(out, string(f))
	}
	return out, nil
}

// project is the part of model the policy reads: its model_fields.
func (m *Matcher) project(model map[string]any) map[string]any {
	return only(model, m.modelFields)
}

// only is spec with the named fields alone; all of it when fields is nil.
func only(spec map[string]any, fields []string) map[string]any {
	if fields == nil {
		return spec
	}
	sub := make(map[string]any, len(fields))
	for _, f := range fields {
		if v, ok := spec[f]; ok {
			sub[f] = v
		}
	}
	return sub
}

// ModelKey is the JSON text of the model's model_fields: models that agree
// on them get the same verdicts.
func (m *Matcher) ModelKey(model map[string]any) (string, bool, error) {
	if m.modelFields == nil {
		return "", false, nil
	}
	text, err := json.Marshal(m.project(model))
	return string(text), err == nil, err
}

// tableFields reads the policy's table_fields: {table name: model field}.
// A policy without it has no tables to share between models.
func tableFields(query rego.PreparedEvalQuery) ([]checkTable, error) {
	rs, err := query.Eval(context.Background(), rego.EvalParsedInput(ast.NewObject()), rego.EvalGenerateJSON(keepTerm))
	if err != nil || len(rs) == 0 {
		return nil, err
	}
	obj, ok := rs[0].Expressions[0].Value.(*ast.Term).Value.(ast.Object)
	if !ok {
		return nil, fmt.Errorf("%s: want an object", TableFieldsQuery)
	}
	var out []checkTable
	for _, k := range obj.Keys() {
		name, ok1 := k.Value.(ast.String)
		field, ok2 := obj.Get(k).Value.(ast.String)
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("%s: want table names mapped to field names, got %v: %v", TableFieldsQuery, k, obj.Get(k))
		}
		out = append(out, checkTable{name: string(name), field: string(field), nameTerm: k})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, nil
}

// ModelFields are the policy's model_fields, nil when it has none: models
// that agree on them get the same verdicts.
func (m *Matcher) ModelFields() []string { return m.modelFields }

// Name is the engine's name, as --engine takes it.
const Name = "rego"

// Name returns "rego".
func (m *Matcher) Name() string { return Name }

func (m *Matcher) Match(model, runtime map[string]any) (answer.Verdict, error) {
	mv, err := ast.InterfaceToValue(model)
	if err != nil {
		return answer.Verdict{}, err
	}
	rv, err := ast.InterfaceToValue(runtime)
	if err != nil {
		return answer.Verdict{}, err
	}
	vs, err := m.matchValues(m.query, ast.NewObject(
		ast.Item(ast.StringTerm("model"), ast.NewTerm(mv)),
		ast.Item(ast.StringTerm("runtimes"), ast.ArrayTerm(ast.NewTerm(rv))),
	), 1)
	if err != nil {
		return answer.Verdict{}, err
	}
	return vs[0], nil
}

// matchValues evaluates one model against n runtimes in one query.
func (m *Matcher) matchValues(query rego.PreparedEvalQuery, input ast.Object, n int) ([]answer.Verdict, error) {
	t, err := evalTerm(query, input, ResultsQuery)
	if err != nil {
		return nil, err
	}
	list, ok := t.Value.(*ast.Array)
	if !ok || list.Len() != n {
		return nil, fmt.Errorf("%s: want a list of %d verdicts, got %v", ResultsQuery, n, ast.ValueName(t.Value))
	}
	out := make([]answer.Verdict, n)
	for i := range n {
		if out[i], err = verdictFrom(list.Elem(i).Value); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// evalTerm evaluates query (named what in errors) and returns its value as
// OPA's own term: the verdicts are read from it directly, without first
// converting the whole answer to Go maps and slices.
func evalTerm(query rego.PreparedEvalQuery, input ast.Object, what string) (*ast.Term, error) {
	rs, err := query.Eval(context.Background(), rego.EvalParsedInput(input), rego.EvalGenerateJSON(keepTerm),
		rego.EvalVirtualCache(newRuleCache()))
	if err != nil {
		return nil, err
	}
	if len(rs) != 1 || len(rs[0].Expressions) != 1 {
		return nil, fmt.Errorf("%s is undefined: the Rego policy gave no result", what)
	}
	return rs[0].Expressions[0].Value.(*ast.Term), nil
}

// ruleCache is the virtual cache of the matcher's queries: it keeps the
// value of each rule, as OPA's does, but not the result of each function
// call, which OPA's keeps too, keyed by the call's arguments. The plan
// already calls each check once per distinct value (its tables), so such a
// result is seldom asked for again, and keeping it cost hashing its
// arguments and storing it on every call: on the catalog, 5% of the Rego
// engine's time and 9% of its allocations. Functions have no side effects,
// so what a query gives does not change.
type ruleCache struct{ topdown.VirtualCache }

func newRuleCache() ruleCache { return ruleCache{topdown.NewVirtualCache()} }

// isCall reports whether a cache key is a function call's: its first term
// is the function's reference, where a rule's key starts with data.
func isCall(key ast.Ref) bool {
	_, fn := key[0].Value.(ast.Ref)
	return fn
}

func (c ruleCache) Get(key ast.Ref) (*ast.Term, bool) {
	if isCall(key) {
		return nil, false
	}
	return c.VirtualCache.Get(key)
}

func (c ruleCache) Put(key ast.Ref, value *ast.Term) {
	if !isCall(key) {
		c.VirtualCache.Put(key, value)
	}
}

// The keys of a verdict and of its entries.
var (
	regoKeyCompatible  = ast.StringTerm("compatible")
	regoKeyReason      = ast.StringTerm("reason")
	regoKeyEntries     = ast.StringTerm("entries")
	regoKeyMatched     = ast.StringTerm("matched")
	regoKeyDifferences = ast.StringTerm("differences")
)

func keepTerm(t *ast.Term, _ *rego.EvalContext) (any, error) { return t, nil }

// verdictFrom checks the shape of the policy's answer and converts it.
func verdictFrom(x ast.Value) (answer.Verdict, error) {
	obj, ok := x.(ast.Object)
	if !ok {
		return answer.Verdict{}, fmt.Errorf("%s: want an object, got %v", ResultsQuery, ast.ValueName(x))
	}
	var v answer.Verdict
	if v.Compatible, ok = boolOf(obj.Get(regoKeyCompatible)); !ok {
		return answer.Verdict{}, fmt.Errorf("%s.compatible: want a bool", ResultsQuery)
	}
	if v.Reason, ok = stringOf(obj.Get(regoKeyReason)); !ok {
		return answer.Verdict{}, fmt.Errorf("%s.reason: want a string", ResultsQuery)
	}
	list, ok := valueOf(obj.Get(regoKeyEntries)).(*ast.Array)
	if !ok {
		return answer.Verdict{}, fmt.Errorf("%s.entries: want a list", ResultsQuery)
	}
	v.Entries = make([]answer.EntryResult, list.Len())
	for i := range list.Len() {
		er, err := entryFrom(list.Elem(i), func() string { return fmt.Sprintf("%s.entries[%d]", ResultsQuery, i) })
		if err != nil {
			return answer.Verdict{}, err
		}
		er.Index = i
		v.Entries[i] = er
	}
	return v, nil
}

// entryFrom checks and converts an entry's verdict, {"matched",
// "differences"}, named where() in errors; its Index is left to the
// caller.
func entryFrom(t *ast.Term, where func() string) (answer.EntryResult, error) {
	eo, ok := valueOf(t).(ast.Object)
	if !ok {
		return answer.EntryResult{}, fmt.Errorf("%s: want an object, got %v", where(), ast.ValueName(valueOf(t)))
	}
	var er answer.EntryResult
	if er.Matched, ok = boolOf(eo.Get(regoKeyMatched)); !ok {
		return answer.EntryResult{}, fmt.Errorf("%s.matched: want a bool", where())
	}
	var err error
	if er.Differences, err = differencesFrom(eo.Get(regoKeyDifferences), func() string { return where() + ".differences" }); err != nil {
		return answer.EntryResult{}, err
	}
	return er, nil
}

// differencesFrom checks and converts an entry's differences, a list
// of strings named where() in errors.
func differencesFrom(t *ast.Term, where func() string) ([]string, error) {
	diffs, ok := valueOf(t).(*ast.Array)
	if !ok {
		return nil, fmt.Errorf("%s: want a list, got %v", where(), ast.ValueName(valueOf(t)))
	}
	out := make([]string, diffs.Len())
	for j := range out {
		s, ok := diffs.Elem(j).Value.(ast.String)
		if !ok {
			return nil, fmt.Errorf("%s[%d]: want a string", where(), j)
		}
		out[j] = string(s)
	}
	return out, nil
}

func valueOf(t *ast.Term) ast.Value {
	if t == nil {
		return nil
	}
	return t.Value
}

func boolOf(t *ast.Term) (bool, bool) {
	b, ok := valueOf(t).(ast.Boolean)
	return bool(b), ok
}

func stringOf(t *ast.Term) (string, bool) {
	s, ok := valueOf(t).(ast.String)
	return string(s), ok
}

// Prepare converts the runtime specs (their runtime_fields) to Rego values
// once, and evaluates the policy's data.ome.match.batch of them once for
// all models.
func (m *Matcher) Prepare(runtimes []map[string]any) (any, error) {
	terms := make([]*ast.Term, len(runtimes))
	for i, r := range runtimes {
		v, err := ast.InterfaceToValue(only(r, m.runtimeFields))
		if err != nil {
			return nil, err
		}
		terms[i] = ast.NewTerm(v)
	}
	input := ast.NewObject(ast.Item(ast.StringTerm("runtimes"), ast.ArrayTerm(terms...)))
	t, err := evalTerm(m.batch, input, BatchQuery)
	if err != nil {
		return nil, err
	}
	lists, err := batchLists(t.Value, len(runtimes))
	if err != nil {
		return nil, err
	}
	return &runtimeBatch{batch: t.Value, lists: lists, memo: make([]map[string]*ast.Term, len(m.tables))}, nil
}

// ForWorker is the prepared batch for one worker: the same batch
// value, which queries only read (OPA's values are safe to read at the
// same time: an object sorts its keys under a sync.Once), and tables of
// its own.
func (m *Matcher) ForWorker(prepared any) any {
	b := prepared.(*runtimeBatch)
	return &runtimeBatch{batch: b.batch, lists: b.lists, memo: make([]map[string]*ast.Term, len(m.tables))}
}

// modelTables returns the policy's tables for model: each evaluated with
// the model's field alone, once per distinct value of that field in a
// worker, as table_fields allows.
func (m *Matcher) modelTables(model map[string]any, b *runtimeBatch) (ast.Object, error) {
	out := ast.NewObject()
	for i, tb := range m.tables {
		alone := map[string]any{}
		key := ""
		if v, ok := model[tb.field]; ok {
			alone[tb.field] = v
			text, err := json.Marshal(v)
			if err != nil {
				return nil, err
			}
			key = string(text)
		}
		t, ok := b.memo[i][key]
		if !ok {
			av, err := ast.InterfaceToValue(alone)
			if err != nil {
				return nil, err
			}
			what := TableQuery + " (" + tb.name + ")"
			if t, err = evalTerm(m.table, ast.NewObject(
				ast.Item(ast.StringTerm("table"), tb.nameTerm),
				ast.Item(ast.StringTerm("model"), ast.NewTerm(av)),
				ast.Item(ast.StringTerm("batch"), ast.NewTerm(b.batch)),
			), what); err != nil {
				return nil, err
			}
			cells := 1
			if obj, ok := t.Value.(ast.Object); ok {
				cells += obj.Len()
			}
			if b.cells+cells > MaxTableCells {
				for j := range b.memo {
					b.memo[j] = nil
				}
				b.cells = 0
			}
			if b.memo[i] == nil {
				b.memo[i] = map[string]*ast.Term{}
			}
			b.memo[i][key] = t
			b.cells += cells
		}
		out.Insert(tb.nameTerm, t)
	}
	return out, nil
}

// batchLists reads, from a batch of n runtimes, each runtime's entry keys.
func batchLists(batch ast.Value, n int) ([][]string, error) {
	const what = BatchQuery
	obj, ok := batch.(ast.Object)
	if !ok {
		return nil, fmt.Errorf("%s: want an object, got %v", what, ast.ValueName(batch))
	}
	lists, ok := valueOf(obj.Get(ast.StringTerm("lists"))).(ast.Object)
	if !ok {
		return nil, fmt.Errorf("%s.lists: want an object", what)
	}
	runtimes, ok := valueOf(obj.Get(ast.StringTerm("runtimes"))).(*ast.Array)
	if !ok || runtimes.Len() != n {
		return nil, fmt.Errorf("%s.runtimes: want a list of %d runtimes", what, n)
	}
	out := make([][]string, n)
	keys := map[string][]string{}
	for i := range n {
		r, ok := runtimes.Elem(i).Value.(ast.Object)
		if !ok {
			return nil, fmt.Errorf("%s.runtimes[%d]: want an object", what, i)
		}
		lk, ok := stringOf(r.Get(ast.StringTerm("list")))
		if !ok {
			return nil, fmt.Errorf("%s.runtimes[%d].list: want a string", what, i)
		}
		if ks, seen := keys[lk]; seen {
			out[i] = ks
			continue
		}
		l, ok := valueOf(lists.Get(ast.StringTerm(lk))).(*ast.Array)
		if !ok {
			return nil, fmt.Errorf("%s.lists[%q]: want a list", what, lk)
		}
		ks := make([]string, l.Len())
		for j := range ks {
			k, ok := l.Elem(j).Value.(ast.String)
			if !ok {
				return nil, fmt.Errorf("%s.lists[%q][%d]: want a string", what, lk, j)
			}
			ks[j] = string(k)
		}
		keys[lk], out[i] = ks, ks
	}
	return out, nil
}

// MatchModel evaluates one model against every prepared runtime in one
// query of VerdictsQuery, with the batch computed by prepare. Each
// runtime's entries are its list's entries, each distinct entry converted
// once; an entry matched when it has no differences, and a runtime is
// compatible when its reason is "" (as data.ome.match.results has it).
func (m *Matcher) MatchModel(model map[string]any, prepared any) ([]answer.Verdict, error) {
	const what = VerdictsQuery
	model = m.project(model)
	mv, err := ast.InterfaceToValue(model)
	if err != nil {
		return nil, err
	}
	b := prepared.(*runtimeBatch)
	input := ast.NewObject(
		ast.Item(ast.StringTerm("model"), ast.NewTerm(mv)),
		ast.Item(ast.StringTerm("batch"), ast.NewTerm(b.batch)),
	)
	if len(m.tables) > 0 {
		tables, err := m.modelTables(model, b)
		if err != nil {
			return nil, err
		}
		input.Insert(ast.StringTerm("tables"), ast.NewTerm(tables))
	}
	t, err := evalTerm(m.verdicts, input, what)
	if err != nil {
		return nil, err
	}
	obj, ok := t.Value.(ast.Object)
	if !ok {
		return nil, fmt.Errorf("%s: want an object, got %v", what, ast.ValueName(t.Value))
	}
	entries, ok := valueOf(obj.Get(ast.StringTerm("entries"))).(ast.Object)
	if !ok {
		return nil, fmt.Errorf("%s.entries: want an object", what)
	}
	reasons, ok := valueOf(obj.Get(ast.StringTerm("reasons"))).(*ast.Array)
	if !ok || reasons.Len() != len(b.lists) {
		return nil, fmt.Errorf("%s.reasons: want a list of %d reasons", what, len(b.lists))
	}
	converted := map[string]answer.EntryResult{}
	out := make([]answer.Verdict, len(b.lists))
	for i, keys := range b.lists {
		reason, ok := reasons.Elem(i).Value.(ast.String)
		if !ok {
			return nil, fmt.Errorf("%s.reasons[%d]: want a string", what, i)
		}
		v := answer.Verdict{Compatible: reason == "", Reason: string(reason), Entries: make([]answer.EntryResult, len(keys))}
		for j, k := range keys {
			er, seen := converted[k]
			if !seen {
				at := func() string { return fmt.Sprintf("%s.entries[%q]", what, k) }
				if er.Differences, err = differencesFrom(entries.Get(ast.StringTerm(k)), at); err != nil {
					return nil, err
				}
				er.Matched = len(er.Differences) == 0
				converted[k] = er
			}
			er.Index = j
			v.Entries[j] = er
		}
		out[i] = v
	}
	return out, nil
}
