// Package rego is the Rego engine: it compiles the Rego policies of a
// policy set (policies/rego, or a folder given with --policies) with OPA and
// the ome.* builtins, and evaluates them as the matcher, selector, linter
// and explainer, and runs their Rego unit tests with OPA's tester.
//
// It owns the queries it asks of the policies (the *Query constants) and
// the batch and memo machinery that matches many models against the same
// runtimes with the policies' own evaluation plan (match_plan.rego's batch,
// tables and model_fields). The rules themselves are in the policies; this
// package knows none of them, and nothing of CEL or of the engine package
// that chooses between engines.
package rego

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/ome-policy/evaluator/builtins/regolib"
	"github.com/ome-policy/evaluator/policies/policyset"
)

// Modules parses the Rego sources of set (tests included when tests is
// true), keyed by where they came from.
func Modules(set *policyset.Set, tests bool) (map[string]*ast.Module, error) {
	mods := map[string]*ast.Module{}
	files := set.Sources(policyset.Rego, false)
	if tests {
		files = append(files, set.Sources(policyset.Rego, true)...)
	}
	for _, f := range files {
		m, err := parseFile(set, f)
		if err != nil {
			return nil, err
		}
		mods[set.Where(f)] = m
	}
	return mods, nil
}

// parseFile parses a Rego file of set, its release's changes applied,
// named by where it came from.
func parseFile(set *policyset.Set, f policyset.File) (*ast.Module, error) {
	text, err := f.Source()
	if err != nil {
		return nil, err
	}
	return ast.ParseModuleWithOpts(set.Where(f), text, ast.ParserOptions{RegoVersion: ast.RegoV1})
}

// modulesOf parses only the policy files of the given packages, so a
// command compiles what it runs and no more. The files are parsed at the
// same time; the first error in file order is reported.
func modulesOf(set *policyset.Set, packages ...string) (map[string]*ast.Module, error) {
	var files []policyset.File
	for _, f := range set.Sources(policyset.Rego, false) {
		if slices.Contains(packages, f.Package()) {
			files = append(files, f)
		}
	}
	parsed := make([]*ast.Module, len(files))
	errs := make([]error, len(files))
	var wg sync.WaitGroup
	for i, f := range files {
		wg.Go(func() { parsed[i], errs[i] = parseFile(set, f) })
	}
	wg.Wait()
	mods := map[string]*ast.Module{}
	for i, f := range files {
		if errs[i] != nil {
			return nil, errs[i]
		}
		mods[set.Where(f)] = parsed[i]
	}
	if len(mods) == 0 {
		return nil, fmt.Errorf("policies %s: no Rego policy of package %s", set.Origin, strings.Join(packages, " or "))
	}
	return mods, nil
}

// Queries compiles queries once against the policy modules of the given
// packages, with the ome.* builtins registered: one prepared query each,
// for tools and tests that evaluate a rule of the policies directly.
func Queries(set *policyset.Set, packages []string, queries ...string) ([]rego.PreparedEvalQuery, error) {
	mods, err := modulesOf(set, packages...)
	if err != nil {
		return nil, err
	}
	// The modules compile once, with the first query; the other queries
	// reuse that compiler.
	compiler := newCompiler()
	if set.IsEmbedded() {
		compiler = compiler.WithSkipStages(checkOnlyStages...)
	}
	out := make([]rego.PreparedEvalQuery, len(queries))
	for i, q := range queries {
		opts := []func(*rego.Rego){rego.Query(q), rego.Compiler(compiler)}
		if i == 0 {
			for _, m := range mods {
				opts = append(opts, rego.ParsedModule(m))
			}
		}
		opts = append(opts, regolib.Options()...)
		if out[i], err = rego.New(opts...).PrepareForEval(context.Background()); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// newCompiler is a compiler of the policies with the ome.* builtins
// declared, every stage on.
func newCompiler() *ast.Compiler {
	decls := map[string]*ast.Builtin{}
	for _, b := range regolib.Builtins() {
		decls[b.AST().Name] = b.AST()
	}
	return ast.NewCompiler().
		WithBuiltins(decls).
		WithUseTypeCheckAnnotations(true).
		WithDefaultRegoVersion(ast.RegoV1)
}

// checkOnlyStages are the compiler's stages that only look for mistakes
// (recursion, conflicting or undefined rules and functions, unused
// imports, deprecated or unsafe builtins) and change nothing that is
// evaluated. The embedded policies skip them: they pass them, as
// TestEmbeddedPoliciesPassEveryCheck shows. Policies from a folder go
// through every stage. The type check is not among them: the type
// environment it builds tells a query that calls a function (explain's
// data.ome.explain.entry(...)) from one that tests a value, and without it
// such a query answers true (TestExplainCELCasesOnRego).
var checkOnlyStages = []ast.StageID{
	ast.StageCheckRecursion,
	ast.StageCheckRuleConflicts,
	ast.StageCheckUndefinedFuncs,
	ast.StageCheckUnusedImports,
	ast.StageCheckDeprecatedBuiltins,
	ast.StageCheckUnsafeBuiltins,
	ast.StageBuildRequiredCapabilities,
}
