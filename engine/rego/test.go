package rego

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/tester"
	"github.com/open-policy-agent/opa/v1/topdown"

	"github.com/ome-policy/evaluator/builtins/regolib"
	"github.com/ome-policy/evaluator/policies/policyset"
)

// TestResult is one Rego unit test (a test_ rule) and its outcome.
type TestResult struct {
	File   string
	Line   int    // where the test rule starts
	Name   string // package.rule
	Passed bool
	Detail string // why it failed; empty when it passed
	// Stopped says the test was stopped (past its time limit, or as the
	// run's context ended) before it could pass or fail.
	Stopped bool
}

// RunTests runs the test_ rules of the given Rego test files (path ->
// source) with OPA's test runner, against the policies of set and with the
// ome.* builtins registered, as `opa test` would with them: each test
// within timeout, all of them until ctx ends. Results are in file, then
// line order.
func RunTests(ctx context.Context, timeout time.Duration, set *policyset.Set, files map[string]string) ([]TestResult, error) {
	mods, err := Modules(set, false)
	if err != nil {
		return nil, err
	}
	for path, text := range files {
		m, err := ast.ParseModuleWithOpts(path, text, ast.ParserOptions{RegoVersion: ast.RegoV1})
		if err != nil {
			return nil, err
		}
		mods[path] = m
	}
	ch, err := tester.NewRunner().
		SetTimeout(timeout).
		SetDefaultRegoVersion(ast.RegoV1).
		AddCustomBuiltins(regolib.TesterBuiltins()).
		SetModules(mods).
		RaiseBuiltinErrors(true).
		RunTests(ctx, nil)
	if err != nil {
		return nil, err
	}
	var all []TestResult
	for r := range ch {
		if _, given := files[r.Location.File]; !given {
			continue
		}
		res := TestResult{File: r.Location.File, Line: r.Location.Row, Name: r.Package + "." + r.Name, Passed: !r.Fail && r.Error == nil}
		switch {
		case r.Skip:
			continue
		case r.Error != nil:
			res.Detail, res.Stopped = r.Error.Error(), topdown.IsCancel(r.Error)
		case r.Fail && r.FailedAt != nil:
			res.Detail = fmt.Sprintf("failed at %s: %s", r.FailedAt.Location, r.FailedAt)
		case r.Fail:
			res.Detail = fmt.Sprintf("%s (%s:%d) is false or undefined", r.Name, r.Location.File, r.Location.Row)
		}
		all = append(all, res)
	}
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].File != all[j].File {
			return all[i].File < all[j].File
		}
		return all[i].Line < all[j].Line
	})
	return all, nil
}
