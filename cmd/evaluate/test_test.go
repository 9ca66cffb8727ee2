package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// evaluate test --rules runs a team's unit tests against its rules, with
// OME's builtins: a rule changed under its tests fails them.
func TestTestRunsTeamRulesTests(t *testing.T) {
	r := evaluate(t, 60*time.Second, "", "test", "--rules", companyRules)
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	require.Equal(t, "16 passed, 0 failed\n", r.stdout)
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

	cases := filepath.Join(dir, "autoselect-pins-framework-cases.yaml")
	text, err = os.ReadFile(cases)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(cases, []byte(strings.Replace(string(text), "not none", "not nothing", 1)), 0o644))
	changed = evaluate(t, 60*time.Second, "", "test", "--rules", dir)
	require.Equal(t, 1, changed.code, changed.stdout)
	require.Contains(t, changed.stdout, "an autoSelect entry without a framework version is warned [cel; OME v1.2.2]")
	require.Contains(t, changed.stdout, "detail: rule company-autoselect-pins-framework gives other messages than the case expects")

	without := evaluate(t, 60*time.Second, "", "test", companyRules)
	require.Equal(t, 2, without.code, "a rule case without --rules")
	require.Contains(t, without.stderr, "tests rule company-autoselect-pins-framework: give the team's rules with --rules")
	regoOnly := evaluate(t, 60*time.Second, "", "test", filepath.Join(companyRules, "transformers-floor_test.rego"))
	require.Equal(t, 1, regoOnly.code)
	require.Contains(t, regoOnly.stderr, "Rego that is no test, which the tests cannot see: load a team's rules with --rules")

	bad := evaluate(t, 60*time.Second, "", "test", "--rules", at("testdata/bad/rules"), companyRules)
	require.Equal(t, 2, bad.code)
	require.Contains(t, bad.stderr, "bad-rules.rego:4: deny must be a set of messages")
	// A folder of rules without tests, one of which does not parse: the
	// rule's error, not a folder without tests.
	broken := t.TempDir()
	writeFile(t, broken, "x.rego", "package x\n\ndeny contains \"a\" if {\n")
	r = evaluate(t, 60*time.Second, "", "test", "--rules", broken)
	require.Equal(t, 2, r.code)
	require.Equal(t, "evaluate: "+filepath.Join(broken, "x.rego")+":4: unexpected eof token\n", r.stderr)

	// A rule case of a rule over OME's decisions carries them: of its
	// object beside its objects.
	decisions := t.TempDir()
	copyTree(t, at("testdata/rules/corpus/rego-decisions/rules"), decisions)
	writeFile(t, decisions, "cases.yaml", `cases:
- name: a model of corp served by one runtime
  rule: corpus.decision_inline
  object:
    kind: BaseModel
    metadata: {name: llama, namespace: corp}
    spec:
      modelFormat: {name: safetensors, version: "1.0.0"}
      modelFramework: {name: transformers, version: "4.46.0"}
  objects:
  - kind: ServingRuntime
    metadata: {name: vllm, namespace: corp}
    spec:
      supportedModelFormats:
      - modelFormat: {name: safetensors, version: "1.0.0"}
        modelFramework: {name: transformers, version: "4.46.0"}
  expect:
    findings: ["llama is served by 1 runtime(s): corp needs two"]
- name: a model of corp alone
  rule: corpus.decision_inline
  object:
    kind: BaseModel
    metadata: {name: llama, namespace: corp}
    spec:
      modelFormat: {name: safetensors, version: "1.0.0"}
  expect:
    findings: ["llama is served by 0 runtime(s): corp needs two"]
`)
	r = evaluate(t, 60*time.Second, "", "test", "--rules", decisions)
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	require.Equal(t, "2 passed, 0 failed\n", r.stdout)
}
