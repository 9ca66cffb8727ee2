package engine

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/ome-policy/evaluator/builtins"
)

// RegoQuery is the rule the Rego engine evaluates: one verdict per runtime
// of input.runtimes for input.model.
const RegoQuery = "data.ome.match.results"

// RegoBatchQuery is what the Rego policy makes of the runtimes alone, the
// same for every model.
const RegoBatchQuery = "data.ome.match.batch"

// regoBatchedQuery is RegoQuery with data.ome.match.batch given, computed
// once (RegoBatchQuery) for the runtimes of many queries.
const regoBatchedQuery = RegoQuery + " with data.ome.match.batch as input.batch"

// regoMatcher evaluates data.ome.match.results with the ome.* builtins.
type regoMatcher struct {
	query   rego.PreparedEvalQuery // RegoQuery
	batch   rego.PreparedEvalQuery // RegoBatchQuery
	batched rego.PreparedEvalQuery // regoBatchedQuery
}

// regoBatch is a batch of runtimes as Rego values, with the policy's
// data.ome.match.batch of them.
type regoBatch struct {
	runtimes *ast.Array
	batch    ast.Value
}

// RegoModules parses the Rego sources of set (tests included when tests is
// true), keyed by where they came from.
func RegoModules(set *PolicySet, tests bool) (map[string]*ast.Module, error) {
	mods := map[string]*ast.Module{}
	files := set.Sources(Rego, false)
	if tests {
		files = append(files, set.Sources(Rego, true)...)
	}
	for _, f := range files {
		where := set.Where(f)
		m, err := ast.ParseModuleWithOpts(where, f.Text, ast.ParserOptions{RegoVersion: ast.RegoV1})
		if err != nil {
			return nil, err
		}
		mods[where] = m
	}
	return mods, nil
}

// packageLine finds a Rego file's package declaration.
var packageLine = regexp.MustCompile(`(?m)^package\s+([\w.]+)`)

// regoModulesOf parses only the policy files of the given packages, so a
// command compiles what it runs and no more.
func regoModulesOf(set *PolicySet, packages ...string) (map[string]*ast.Module, error) {
	mods := map[string]*ast.Module{}
	for _, f := range set.Sources(Rego, false) {
		m := packageLine.FindStringSubmatch(f.Text)
		if m == nil || !contains(packages, m[1]) {
			continue
		}
		where := set.Where(f)
		mod, err := ast.ParseModuleWithOpts(where, f.Text, ast.ParserOptions{RegoVersion: ast.RegoV1})
		if err != nil {
			return nil, err
		}
		mods[where] = mod
	}
	if len(mods) == 0 {
		return nil, fmt.Errorf("policies %s: no Rego policy of package %s", set.Origin, strings.Join(packages, " or "))
	}
	return mods, nil
}

// prepareRego compiles queries once against the policy modules of the given
// packages, with the ome.* builtins registered: one prepared query each.
func prepareRego(set *PolicySet, packages []string, queries ...string) ([]rego.PreparedEvalQuery, error) {
	mods, err := regoModulesOf(set, packages...)
	if err != nil {
		return nil, err
	}
	out := make([]rego.PreparedEvalQuery, len(queries))
	for i, q := range queries {
		opts := []func(*rego.Rego){rego.Query(q)}
		for _, m := range mods {
			opts = append(opts, rego.ParsedModule(m))
		}
		opts = append(opts, builtins.RegoOptions()...)
		if out[i], err = rego.New(opts...).PrepareForEval(context.Background()); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// NewRego compiles the Rego policies of package ome.match once.
func NewRego(set *PolicySet) (Matcher, error) {
	pq, err := prepareRego(set, []string{"ome.match"}, RegoQuery, RegoBatchQuery, regoBatchedQuery)
	if err != nil {
		return nil, err
	}
	return &regoMatcher{query: pq[0], batch: pq[1], batched: pq[2]}, nil
}

func (m *regoMatcher) Name() string { return Rego }

func (m *regoMatcher) Match(model, runtime map[string]any) (Verdict, error) {
	mv, err := ast.InterfaceToValue(model)
	if err != nil {
		return Verdict{}, err
	}
	rv, err := ast.InterfaceToValue(runtime)
	if err != nil {
		return Verdict{}, err
	}
	vs, err := m.matchValues(m.query, ast.NewObject(
		ast.Item(ast.StringTerm("model"), ast.NewTerm(mv)),
		ast.Item(ast.StringTerm("runtimes"), ast.ArrayTerm(ast.NewTerm(rv))),
	), 1)
	if err != nil {
		return Verdict{}, err
	}
	return vs[0], nil
}

// matchValues evaluates one model against n runtimes in one query.
func (m *regoMatcher) matchValues(query rego.PreparedEvalQuery, input ast.Object, n int) ([]Verdict, error) {
	rs, err := query.Eval(context.Background(), rego.EvalParsedInput(input))
	if err != nil {
		return nil, err
	}
	if len(rs) != 1 || len(rs[0].Expressions) != 1 {
		return nil, fmt.Errorf("%s is undefined: the Rego policy gave no result", RegoQuery)
	}
	list, ok := rs[0].Expressions[0].Value.([]any)
	if !ok || len(list) != n {
		return nil, fmt.Errorf("%s: want a list of %d verdicts, got %T", RegoQuery, n, rs[0].Expressions[0].Value)
	}
	out := make([]Verdict, n)
	for i, x := range list {
		if out[i], err = verdictFromRego(x); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// verdictFromRego checks the shape of the policy's answer and converts it.
func verdictFromRego(x any) (Verdict, error) {
	obj, ok := x.(map[string]any)
	if !ok {
		return Verdict{}, fmt.Errorf("%s: want an object, got %T", RegoQuery, x)
	}
	var v Verdict
	if v.Compatible, ok = obj["compatible"].(bool); !ok {
		return Verdict{}, fmt.Errorf("%s.compatible: want a bool, got %T", RegoQuery, obj["compatible"])
	}
	if v.Reason, ok = obj["reason"].(string); !ok {
		return Verdict{}, fmt.Errorf("%s.reason: want a string, got %T", RegoQuery, obj["reason"])
	}
	list, ok := obj["entries"].([]any)
	if !ok {
		return Verdict{}, fmt.Errorf("%s.entries: want a list, got %T", RegoQuery, obj["entries"])
	}
	v.Entries = make([]EntryResult, 0, len(list))
	for i, e := range list {
		eo, ok := e.(map[string]any)
		if !ok {
			return Verdict{}, fmt.Errorf("%s.entries[%d]: want an object, got %T", RegoQuery, i, e)
		}
		er := EntryResult{Index: i, Differences: []string{}}
		if er.Matched, ok = eo["matched"].(bool); !ok {
			return Verdict{}, fmt.Errorf("%s.entries[%d].matched: want a bool", RegoQuery, i)
		}
		diffs, ok := eo["differences"].([]any)
		if !ok {
			return Verdict{}, fmt.Errorf("%s.entries[%d].differences: want a list", RegoQuery, i)
		}
		for _, d := range diffs {
			s, ok := d.(string)
			if !ok {
				return Verdict{}, fmt.Errorf("%s.entries[%d].differences: want strings", RegoQuery, i)
			}
			er.Differences = append(er.Differences, s)
		}
		v.Entries = append(v.Entries, er)
	}
	return v, nil
}

// prepare converts the runtime specs to Rego values once, and evaluates
// the policy's data.ome.match.batch of them once for all models.
func (m *regoMatcher) prepare(runtimes []map[string]any) (any, error) {
	terms := make([]*ast.Term, len(runtimes))
	for i, r := range runtimes {
		v, err := ast.InterfaceToValue(r)
		if err != nil {
			return nil, err
		}
		terms[i] = ast.NewTerm(v)
	}
	b := &regoBatch{runtimes: ast.NewArray(terms...)}
	input := ast.NewObject(ast.Item(ast.StringTerm("runtimes"), ast.NewTerm(b.runtimes)))
	rs, err := m.batch.Eval(context.Background(), rego.EvalParsedInput(input))
	if err != nil {
		return nil, err
	}
	if len(rs) != 1 || len(rs[0].Expressions) != 1 {
		return nil, fmt.Errorf("%s is undefined: the Rego policy gave no result", RegoBatchQuery)
	}
	if b.batch, err = ast.InterfaceToValue(rs[0].Expressions[0].Value); err != nil {
		return nil, err
	}
	return b, nil
}

// matchModel evaluates one model against every prepared runtime in one
// query, with the batch computed by prepare.
func (m *regoMatcher) matchModel(model map[string]any, prepared any) ([]Verdict, error) {
	mv, err := ast.InterfaceToValue(model)
	if err != nil {
		return nil, err
	}
	b := prepared.(*regoBatch)
	return m.matchValues(m.batched, ast.NewObject(
		ast.Item(ast.StringTerm("model"), ast.NewTerm(mv)),
		ast.Item(ast.StringTerm("runtimes"), ast.NewTerm(b.runtimes)),
		ast.Item(ast.StringTerm("batch"), ast.NewTerm(b.batch)),
	), b.runtimes.Len())
}
