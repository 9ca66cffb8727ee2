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

// regoMatcher evaluates data.ome.match.results with the ome.* builtins.
type regoMatcher struct {
	query rego.PreparedEvalQuery // RegoQuery
	batch rego.PreparedEvalQuery // RegoBatchQuery
}

// regoBatch is the policy's data.ome.match.batch of a list of runtimes:
// all that a query needs of them, once it is given as input.batch, so the
// runtimes themselves are not kept.
type regoBatch struct {
	n     int // the number of runtimes
	batch ast.Value
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
	// The modules compile once, with the first query; the other queries
	// reuse that compiler.
	decls := map[string]*ast.Builtin{}
	for _, b := range builtins.RegoBuiltins() {
		decls[b.AST().Name] = b.AST()
	}
	compiler := ast.NewCompiler().
		WithBuiltins(decls).
		WithUseTypeCheckAnnotations(true).
		WithDefaultRegoVersion(ast.RegoV1)
	out := make([]rego.PreparedEvalQuery, len(queries))
	for i, q := range queries {
		opts := []func(*rego.Rego){rego.Query(q), rego.Compiler(compiler)}
		if i == 0 {
			for _, m := range mods {
				opts = append(opts, rego.ParsedModule(m))
			}
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
	pq, err := prepareRego(set, []string{"ome.match"}, RegoQuery, RegoBatchQuery)
	if err != nil {
		return nil, err
	}
	return &regoMatcher{query: pq[0], batch: pq[1]}, nil
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
	t, err := evalTerm(query, input, RegoQuery)
	if err != nil {
		return nil, err
	}
	list, ok := t.Value.(*ast.Array)
	if !ok || list.Len() != n {
		return nil, fmt.Errorf("%s: want a list of %d verdicts, got %v", RegoQuery, n, ast.ValueName(t.Value))
	}
	out := make([]Verdict, n)
	for i := range n {
		if out[i], err = verdictFromRego(list.Elem(i).Value); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// evalTerm evaluates query (named what in errors) and returns its value as
// OPA's own term: the verdicts are read from it directly, without first
// converting the whole answer to Go maps and slices.
func evalTerm(query rego.PreparedEvalQuery, input ast.Object, what string) (*ast.Term, error) {
	rs, err := query.Eval(context.Background(), rego.EvalParsedInput(input), rego.EvalGenerateJSON(keepTerm))
	if err != nil {
		return nil, err
	}
	if len(rs) != 1 || len(rs[0].Expressions) != 1 {
		return nil, fmt.Errorf("%s is undefined: the Rego policy gave no result", what)
	}
	return rs[0].Expressions[0].Value.(*ast.Term), nil
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

// verdictFromRego checks the shape of the policy's answer and converts it.
func verdictFromRego(x ast.Value) (Verdict, error) {
	obj, ok := x.(ast.Object)
	if !ok {
		return Verdict{}, fmt.Errorf("%s: want an object, got %v", RegoQuery, ast.ValueName(x))
	}
	var v Verdict
	if v.Compatible, ok = boolOf(obj.Get(regoKeyCompatible)); !ok {
		return Verdict{}, fmt.Errorf("%s.compatible: want a bool", RegoQuery)
	}
	if v.Reason, ok = stringOf(obj.Get(regoKeyReason)); !ok {
		return Verdict{}, fmt.Errorf("%s.reason: want a string", RegoQuery)
	}
	list, ok := valueOf(obj.Get(regoKeyEntries)).(*ast.Array)
	if !ok {
		return Verdict{}, fmt.Errorf("%s.entries: want a list", RegoQuery)
	}
	v.Entries = make([]EntryResult, 0, list.Len())
	for i := range list.Len() {
		eo, ok := list.Elem(i).Value.(ast.Object)
		if !ok {
			return Verdict{}, fmt.Errorf("%s.entries[%d]: want an object, got %v", RegoQuery, i, ast.ValueName(list.Elem(i).Value))
		}
		er := EntryResult{Index: i, Differences: []string{}}
		if er.Matched, ok = boolOf(eo.Get(regoKeyMatched)); !ok {
			return Verdict{}, fmt.Errorf("%s.entries[%d].matched: want a bool", RegoQuery, i)
		}
		diffs, ok := valueOf(eo.Get(regoKeyDifferences)).(*ast.Array)
		if !ok {
			return Verdict{}, fmt.Errorf("%s.entries[%d].differences: want a list", RegoQuery, i)
		}
		for j := range diffs.Len() {
			s, ok := diffs.Elem(j).Value.(ast.String)
			if !ok {
				return Verdict{}, fmt.Errorf("%s.entries[%d].differences: want strings", RegoQuery, i)
			}
			er.Differences = append(er.Differences, string(s))
		}
		v.Entries = append(v.Entries, er)
	}
	return v, nil
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
	input := ast.NewObject(ast.Item(ast.StringTerm("runtimes"), ast.ArrayTerm(terms...)))
	t, err := evalTerm(m.batch, input, RegoBatchQuery)
	if err != nil {
		return nil, err
	}
	return &regoBatch{n: len(runtimes), batch: t.Value}, nil
}

// matchModel evaluates one model against every prepared runtime in one
// query, with the batch computed by prepare.
func (m *regoMatcher) matchModel(model map[string]any, prepared any) ([]Verdict, error) {
	mv, err := ast.InterfaceToValue(model)
	if err != nil {
		return nil, err
	}
	b := prepared.(*regoBatch)
	return m.matchValues(m.query, ast.NewObject(
		ast.Item(ast.StringTerm("model"), ast.NewTerm(mv)),
		ast.Item(ast.StringTerm("batch"), ast.NewTerm(b.batch)),
	), b.n)
}
