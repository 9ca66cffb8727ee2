package engine

import (
	"context"
	"fmt"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/ome-policy/evaluator/builtins"
)

// RegoQuery is the rule the Rego engine evaluates.
const RegoQuery = "data.ome.match.result"

// regoMatcher evaluates data.ome.match.result with the ome.* builtins.
type regoMatcher struct {
	query rego.PreparedEvalQuery
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

// NewRego compiles the Rego policies of set once.
func NewRego(set *PolicySet) (Matcher, error) {
	mods, err := RegoModules(set, false)
	if err != nil {
		return nil, err
	}
	opts := []func(*rego.Rego){rego.Query(RegoQuery)}
	for _, m := range mods {
		opts = append(opts, rego.ParsedModule(m))
	}
	opts = append(opts, builtins.RegoOptions()...)
	pq, err := rego.New(opts...).PrepareForEval(context.Background())
	if err != nil {
		return nil, err
	}
	return &regoMatcher{query: pq}, nil
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
	return m.matchValues(mv, rv)
}

func (m *regoMatcher) matchValues(model, runtime ast.Value) (Verdict, error) {
	input := ast.NewObject(
		ast.Item(ast.StringTerm("model"), ast.NewTerm(model)),
		ast.Item(ast.StringTerm("runtime"), ast.NewTerm(runtime)),
	)
	rs, err := m.query.Eval(context.Background(), rego.EvalParsedInput(input))
	if err != nil {
		return Verdict{}, err
	}
	if len(rs) != 1 || len(rs[0].Expressions) != 1 {
		return Verdict{}, fmt.Errorf("%s is undefined: the Rego policy gave no result for this pair", RegoQuery)
	}
	return verdictFromRego(rs[0].Expressions[0].Value)
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
