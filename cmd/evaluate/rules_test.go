package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

var companyRules = at("examples/company-rules")

// The golden outputs of a team's own rules.
func init() {
	goldenCases = append(goldenCases,
		goldenCase{name: "lint-rules-text", args: []string{"lint", "--rules", companyRules, exModels, exRuntimes}, code: 1},
		goldenCase{name: "lint-rules-sarif", args: []string{"lint", "--rules", companyRules, "-o", "sarif", exRuntimes}, code: 1},
		goldenCase{name: "lint-rules-list", args: []string{"lint", "--rules", companyRules, "--list-rules"}},
		goldenCase{name: "lint-rules-bad", args: []string{"lint", "--rules", at("testdata/bad/rules"), exRuntimes}, code: 2},
	)
}

// A team's rule runs in its own language whatever --engine says: its
// findings are the same on every engine, and never a disagreement.
func TestOwnRulesSameOnEveryEngine(t *testing.T) {
	cel := evaluate(t, 30*time.Second, "", "lint", "--rules", companyRules, exRuntimes)
	require.Equal(t, 1, cel.code, cel.stderr)
	require.Contains(t, cel.stdout, "[company.transformers_floor]")
	for _, e := range []string{"rego", "both"} {
		r := evaluate(t, 30*time.Second, "", "lint", "--engine", e, "--rules", companyRules, exRuntimes)
		require.Equal(t, cel.code, r.code, "engine %s: %s", e, r.stderr)
		require.Equal(t, cel.stdout, r.stdout, "engine %s", e)
	}
}

// --disable, --enable-only and the ignore annotation take a team's rule
// ids as they take OME's.
func TestOwnRulesAreFilteredAsOMEs(t *testing.T) {
	only := evaluate(t, 30*time.Second, "", "lint", "--rules", companyRules, "--enable-only", "company.transformers_floor", exRuntimes)
	require.Equal(t, 1, only.code, only.stderr)
	require.Equal(t, 1, strings.Count(only.stdout, "error ["), only.stdout)
	require.Contains(t, only.stdout, "[company.transformers_floor]")

	off := evaluate(t, 30*time.Second, "", "lint", "--rules", companyRules, "--disable", "company.transformers_floor,company.runtime_size_range", exRuntimes)
	require.Equal(t, 0, off.code, off.stdout)
	require.NotContains(t, off.stdout, "company.runtime_size_range")

	unknown := evaluate(t, 30*time.Second, "", "lint", "--disable", "company.transformers_floor", exRuntimes)
	require.Equal(t, 2, unknown.code, "without --rules, a team's id is unknown")
	require.Contains(t, unknown.stderr, `--disable: unknown rule "company.transformers_floor"`)

	annotated := `apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata:
  name: old
  annotations:
    evaluate.ome.io/ignore: company.runtime_size_range
spec:
  supportedModelFormats:
  - modelFormat: {name: safetensors}
    modelFramework: {name: transformers, version: "4.30.0"}
`
	r := evaluate(t, 30*time.Second, annotated, "lint", "--rules", companyRules, "-")
	require.Equal(t, 1, r.code, r.stderr)
	require.Contains(t, r.stdout, "[company.transformers_floor]")
	require.NotContains(t, r.stdout, "company.runtime_size_range")
}

// evaluate test --rules runs a team's unit tests against its rules, with
// OME's builtins: a rule changed under its tests fails them.
func TestTestRunsOwnRulesTests(t *testing.T) {
	r := evaluate(t, 60*time.Second, "", "test", "--rules", companyRules)
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	require.Equal(t, "6 passed, 0 failed\n", r.stdout)
	same := evaluate(t, 60*time.Second, "", "test", "--rules", companyRules, companyRules)
	require.Equal(t, r.stdout, same.stdout, "the tests of the rules' folder given twice run once")

	dir := t.TempDir()
	copyTree(t, companyRules, dir)
	floor := filepath.Join(dir, "transformers-floor.rego")
	text, err := os.ReadFile(floor)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(floor, []byte(strings.Replace(string(text), `floor := "4.40"`, `floor := "4.30"`, 1)), 0o644))
	changed := evaluate(t, 60*time.Second, "", "test", "--rules", dir)
	require.Equal(t, 1, changed.code, changed.stdout)
	require.Contains(t, changed.stdout, "FAIL "+dir+"/transformers-floor_test.rego:11: data.company.transformers_floor_test.test_older_than_the_floor_is_denied")

	without := evaluate(t, 60*time.Second, "", "test", companyRules)
	require.Equal(t, 1, without.code)
	require.Contains(t, without.stderr, "Rego that is no test, which the tests cannot see: load a team's rules with --rules")

	bad := evaluate(t, 60*time.Second, "", "test", "--rules", at("testdata/bad/rules"), companyRules)
	require.Equal(t, 2, bad.code)
	require.Contains(t, bad.stderr, "bad-rules.rego:4: deny must be a set of messages")
}
