package main

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/ome-policy/evaluator/diff"
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
		goldenCase{name: "select-rules-text", args: []string{"select", "--rules", companyRules, at("testdata/rules/prod.yaml")}, code: 1},
		goldenCase{name: "select-rules-json", args: []string{"select", "--rules", companyRules, "-o", "json", at("testdata/rules/prod.yaml")}, code: 1},
		goldenCase{name: "select-rules-policyreport", args: []string{"select", "--rules", companyRules, "-o", "policyreport", at("testdata/rules/prod.yaml")}, code: 1},
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
	require.Contains(t, r.stdout, "error [company.transformers_floor]")
	require.NotContains(t, r.stdout, ": error [company.runtime_size_range]")
	require.Contains(t, r.stdout, ": ignored error [company.runtime_size_range] ", "named, since admission still refuses it")
}

// evaluate test --rules runs a team's unit tests against its rules, with
// OME's builtins: a rule changed under its tests fails them.
func TestTestRunsOwnRulesTests(t *testing.T) {
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

// evaluate gatekeeper and evaluate kyverno write a team's rules into
// every bundle that can hold them, and refuse to write a bundle without
// one (exit 2, naming the rule and the target), unless --leave-out names
// it, which a notice then says.
func TestBundlesHoldOwnRulesOrRefuse(t *testing.T) {
	regoIDs := "company.prod_pins_runtime,company.prod_redundancy,company.runtime_size_range,company.transformers_floor"
	for _, tc := range []struct {
		name     string
		args     []string
		code     int
		stderr   []string
		files    []string // written, under the folder of --out
		notFiles []string
	}{
		{"gatekeeper, no native", []string{"gatekeeper", "--native-out", ""}, 0, nil,
			[]string{"gk/team/companyruntimesizerange/template.yaml", "gk/team/companyruntimesizerange/samples/deny/constraint.yaml",
				"gk/team/companytransformersfloor/suite.yaml", "gk/team/companyautoselectpinsframework/samples/default/constraint.yaml",
				// The rule over OME's decisions gets them from the inventory.
				"gk/team/companyprodredundancy/template.yaml"}, nil},
		{"gatekeeper and native", []string{"gatekeeper", "--native-out", "NATIVE"}, 2,
			[]string{"runtime-size-range.rego:3: rule company.runtime_size_range cannot go into the ValidatingAdmissionPolicies (--native-out): it is Rego, and only CEL runs there",
				"transformers-floor.rego:3: rule company.transformers_floor cannot go into the ValidatingAdmissionPolicies (--native-out)",
				"evaluate: nothing written: a bundle without these rules would not enforce them; --leave-out " + regoIDs},
			nil, []string{"gk", "native"}},
		{"gatekeeper and native, Rego left out of native", []string{"gatekeeper", "--native-out", "NATIVE", "--leave-out", regoIDs}, 0,
			[]string{"notice: rule company.runtime_size_range is left out of the ValidatingAdmissionPolicies (--native-out) (--leave-out): it is Rego, and only CEL runs there"},
			[]string{"gk/team/companytransformersfloor/template.yaml", "native/team-rules.yaml"}, nil},
		{"kyverno", []string{"kyverno"}, 2,
			[]string{"rule company.transformers_floor cannot go into the Kyverno bundle: it is Rego, and only CEL runs there"}, nil, []string{"gk"}},
		{"kyverno, Rego left out", []string{"kyverno", "--leave-out", regoIDs}, 0,
			[]string{"notice: rule company.transformers_floor is left out of the Kyverno bundle (--leave-out)"},
			[]string{"gk/team/company-autoselect-pins-framework.yaml"}, []string{"gk/team/company.transformers_floor.yaml"}},
		{"an unknown rule left out", []string{"kyverno", "--leave-out", "company.nothing"}, 2,
			[]string{`--leave-out: "company.nothing" is no rule of --rules`}, nil, []string{"gk"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append([]string{}, tc.args...)
			for i, a := range args {
				if a == "NATIVE" {
					args[i] = filepath.Join(dir, "native")
				}
			}
			args = append(args, "--rules", companyRules, "--out", filepath.Join(dir, "gk"))
			r := evaluate(t, 60*time.Second, "", args...)
			require.Equal(t, tc.code, r.code, r.stderr)
			for _, s := range tc.stderr {
				require.Contains(t, r.stderr, s)
			}
			for _, f := range tc.files {
				require.FileExists(t, filepath.Join(dir, f))
			}
			for _, f := range tc.notFiles {
				require.NoFileExists(t, filepath.Join(dir, f))
				require.NoDirExists(t, filepath.Join(dir, f))
			}
		})
	}
	r := evaluate(t, 60*time.Second, "", "kyverno", "--leave-out", "x", "--out", t.TempDir())
	require.Equal(t, 2, r.code)
	require.Contains(t, r.stderr, "--leave-out x: no --rules to leave out of")
}

// A rule added to a copy of OME's policies (--policies) is never left out
// without a word: lint refuses a finding of a rule that lint-rules.yaml
// does not list, and the bundles refuse a listed rule that OME's templates
// cannot enforce, pointing at --rules.
func TestPoliciesWithAnAddedRule(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, at("policies"), dir)
	lint := filepath.Join(dir, "rego", "lint.rego")
	text, err := os.ReadFile(lint)
	require.NoError(t, err)
	const wired = "array.concat(presence_findings, array.concat(size_range_findings, size_findings)),"
	require.Contains(t, string(text), wired)
	added := strings.Replace(string(text), wired, "array.concat(presence_findings, array.concat(size_range_findings, array.concat(size_findings, company_findings))),", 1) + "\n" +
		"company_findings := [{\"rule\": \"company-size\", \"severity\": \"error\", \"field\": \"spec\", \"message\": \"no modelSizeRange\"} |\n" +
		"\tinput.object.kind == \"ClusterServingRuntime\"\n\tnot input.object.spec.modelSizeRange\n]\n"
	require.NoError(t, os.WriteFile(lint, []byte(added), 0o644))

	r := evaluate(t, 60*time.Second, "", "lint", "--policies", dir, "--engine", "rego", exRuntimes)
	require.Equal(t, 2, r.code, r.stdout)
	require.Contains(t, r.stderr, `the policies give a finding of rule "company-size", which their lint-rules.yaml does not list`)

	rulesFile := filepath.Join(dir, "lint-rules.yaml")
	list, err := os.ReadFile(rulesFile)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(rulesFile, append(list, []byte("- id: company-size\n  severity: error\n  description: every runtime has a size range\n")...), 0o644))
	r = evaluate(t, 60*time.Second, "", "lint", "--policies", dir, "--engine", "rego", exRuntimes)
	require.Equal(t, 1, r.code, r.stderr)
	require.Contains(t, r.stdout, "[company-size] spec: no modelSizeRange")

	for _, args := range [][]string{{"gatekeeper", "--native-out", ""}, {"kyverno"}} {
		out := t.TempDir()
		r := evaluate(t, 60*time.Second, "", append(args, "--policies", dir, "--out", filepath.Join(out, "b"))...)
		require.Equal(t, 2, r.code, "%s: %s", args[0], r.stdout)
		require.Contains(t, r.stderr, "lint-rules.yaml: rule company-size is none of OME's, and OME's templates cannot enforce it: write it as a team's own rule")
		require.NoDirExists(t, filepath.Join(out, "b"))
	}
}

// TestRulesDocQuotesTheExample: every Rego block of docs/rules.md is
// written, as it stands, in a file of examples/company-rules, whose tests
// and runs hold it to what it says.
func TestRulesDocQuotesTheExample(t *testing.T) {
	doc, err := os.ReadFile(at("docs/rules.md"))
	require.NoError(t, err)
	files, err := filepath.Glob(filepath.Join(companyRules, "*.rego"))
	require.NoError(t, err)
	var sources []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		sources = append(sources, string(b))
	}
	blocks := strings.Split(string(doc), "```rego\n")[1:]
	require.NotEmpty(t, blocks)
	for _, b := range blocks {
		block := b[:strings.Index(b, "```")]
		found := false
		for _, s := range sources {
			found = found || strings.Contains(s, block)
		}
		require.True(t, found, "docs/rules.md quotes Rego that no file of %s holds:\n%s", companyRules, block)
	}
}

// evaluate report --rules lists a team's findings on the page with lint's:
// on models (with OME's decisions) and on InferenceServices.
func TestReportListsOwnRules(t *testing.T) {
	r := evaluate(t, 60*time.Second, "", "report", "--rules", companyRules, "-o", "json", at("testdata/rules/prod.yaml"))
	require.Equal(t, 0, r.code, r.stderr)
	var doc struct {
		Lint struct {
			Findings []jsonFinding `json:"findings"`
		} `json:"lint"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &doc))
	var got []string
	for _, f := range doc.Lint.Findings {
		if strings.HasPrefix(f.Rule, "company.") {
			got = append(got, f.Rule+" "+f.Object.Kind+" "+f.Object.Name+" "+f.Field)
		}
	}
	require.Equal(t, []string{
		"company.prod_redundancy BaseModel mistral-7b metadata.namespace",
		"company.prod_pins_runtime InferenceService chat spec.runtime.name",
	}, got)
	without := evaluate(t, 60*time.Second, "", "report", "-o", "json", at("testdata/rules/prod.yaml"))
	require.NotContains(t, without.stdout, "company.")
}

// diff --rules: a finding of a team's rule that a change makes is listed,
// and an error is a regression (exit 1) where OME's decisions alone give
// none; the finding the reverse change clears is listed, and no
// regression. A rule over OME's decisions judges each side by its own.
func TestDiffOwnRules(t *testing.T) {
	old, new := filepath.Join(t.TempDir(), "old"), filepath.Join(t.TempDir(), "new")
	copyTree(t, diffBefore, old)
	copyTree(t, diffBefore, new)
	applyChanges(t, new, []change{{"runtimes/vllm-mistral.yaml", "  modelSizeRange:\n    min: 5B\n    max: 10B\n", ""}})

	plain := evaluate(t, time.Minute, "", "diff", "-R", old, new)
	require.Equal(t, 0, plain.code, "without --rules the change is no regression: %s%s", plain.stdout, plain.stderr)
	require.NotContains(t, evaluate(t, time.Minute, "", "diff", "-R", "-o", "json", old, new).stdout, `"rules"`)

	made := evaluate(t, time.Minute, "", "diff", "-R", "--rules", companyRules, old, new)
	require.Equal(t, 1, made.code, made.stderr)
	require.Contains(t, made.stdout, "\nErrors of --rules that the change makes:\n  ClusterServingRuntime vllm-mistral\n"+
		"    + company.runtime_size_range (error, "+filepath.Join(new, "runtimes/vllm-mistral.yaml")+":5): spec: ClusterServingRuntime vllm-mistral declares no modelSizeRange: say which model sizes it serves\n")
	require.Contains(t, made.stdout, "1 regression, ")
	require.Contains(t, made.stdout, ", 1 finding of --rules made, 0 cleared;")
	require.Equal(t, 0, evaluate(t, time.Minute, "", "diff", "-R", "--rules", companyRules, "--fail-on", "never", old, new).code)

	js := evaluate(t, time.Minute, "", "diff", "-R", "--rules", companyRules, "-o", "json", old, new)
	require.Equal(t, 1, js.code, js.stderr)
	got := checkDiff(t, js.stdout, diffExpect{unmoved: []string{"changed ClusterServingRuntime/vllm-mistral"}})
	require.Len(t, got.Rules, 1, js.stdout)
	rc := got.Rules[0]
	require.Equal(t, []any{"company.runtime_size_range", "error", "vllm-mistral", diff.RuleFires, true},
		[]any{rc.Rule, rc.Severity, rc.Object.Name, rc.Change, rc.Regression})
	require.Equal(t, 1, got.Summary.Regressions)

	cleared := evaluate(t, time.Minute, "", "diff", "-R", "--rules", companyRules, "-o", "markdown", new, old)
	require.Equal(t, 0, cleared.code, cleared.stdout+cleared.stderr)
	require.Contains(t, cleared.stdout, "| Findings of --rules cleared | 1 |")
	require.Contains(t, cleared.stdout, "| `ClusterServingRuntime vllm-mistral` | `company.runtime_size_range` | error | cleared: spec: ")

	// A rule over OME's decisions: srt-llama stops serving llama-3-2-3b,
	// which prod then serves with one runtime only.
	prod := evaluate(t, time.Minute, "", "diff", "--rules", companyRules, "-o", "github", at("testdata/rules/prod.yaml"), at("testdata/rules/prod-shrunk.yaml"))
	require.Equal(t, 1, prod.code, prod.stdout+prod.stderr)
	require.Contains(t, prod.stdout, "company.prod_redundancy now fires (error): metadata.namespace: BaseModel prod/llama-3-2-3b is served by 1 runtime(s)")
	require.NotContains(t, prod.stdout, "mistral-7b is served", "a finding on both sides is no change")

	// An upgrade of OME judges the same objects: the rules' findings are
	// the same on both sides.
	up := evaluate(t, time.Minute, "", "diff", "-R", "--rules", companyRules, "--ome-version", "v0.1.5", "--to-ome-version", "v1.2.2", "-o", "json", new)
	var upgrade diffJSON
	require.NoError(t, json.Unmarshal([]byte(up.stdout), &upgrade), up.stdout+up.stderr)
	require.NotNil(t, upgrade.Rules, "the report says the rules ran")
	require.Empty(t, upgrade.Rules)

	bad := evaluate(t, time.Minute, "", "diff", "-R", "--rules", at("testdata/bad/rules"), old, new)
	require.Equal(t, 2, bad.code)
	require.Contains(t, bad.stderr, "testdata/bad/rules/")
	require.Empty(t, bad.stdout, "nothing is compared as if a bad rule were absent")
}

// A ValidatingAdmissionPolicy that reads OME's decisions goes into no
// bundle: each says why, and what to write instead.
func TestBundlesRefuseCELOverDecisions(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "two.yaml"), []byte(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: two-runtimes}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [ome.io], apiVersions: ['*'], operations: [CREATE, UPDATE], resources: [basemodels]}
  validations:
  - expression: size(evaluate.decision.runtimes) >= 2
    message: a model needs two runtimes
`), 0o644))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"gatekeeper", "--native-out", ""}, "rule two-runtimes cannot go into the Gatekeeper bundle: it reads OME's decisions (evaluate), which Gatekeeper's CEL (K8sNativeValidation) cannot take from its inventory: write it in Rego, whose template gets them"},
		{[]string{"gatekeeper", "--native-out", filepath.Join(dir, "native")}, "rule two-runtimes cannot go into the ValidatingAdmissionPolicies (--native-out): it reads OME's decisions (evaluate), and a ValidatingAdmissionPolicy reads no object but the one under review"},
		{[]string{"kyverno"}, "rule two-runtimes cannot go into the Kyverno bundle: it reads OME's decisions (evaluate), which evaluate does not write into Kyverno's CEL: write it in Rego, whose Gatekeeper template gets them"},
	} {
		r := evaluate(t, 60*time.Second, "", append(tc.args, "--rules", dir, "--out", filepath.Join(dir, "out"))...)
		require.Equal(t, 2, r.code, r.stderr)
		require.Contains(t, r.stderr, "two.yaml:1: "+tc.want)
		require.NoDirExists(t, filepath.Join(dir, "out"))
	}
}

// A rule over OME's decisions beside objects with fields of the wrong type
// (lint reads them, to say so): OME decides nothing about those, and the
// run goes on, where it stopped on the matcher's error.
func TestDecisionRulesBesideIllTypedObjects(t *testing.T) {
	r := evaluate(t, time.Minute, "", "lint", "--rules", companyRules, at("testdata/lint/bad"), at("testdata/rules/prod.yaml"))
	require.Equal(t, 1, r.code, r.stderr)
	require.Contains(t, r.stdout, "[company.prod_redundancy] metadata.namespace: BaseModel prod/mistral-7b is served by 1 runtime(s)")
	require.Contains(t, r.stdout, "[wrong-type]")
}

// Exemptions are the engines' own: --exempt-namespaces and
// --label-selector go into the match of every constraint of the
// Gatekeeper bundle, every binding of the ValidatingAdmissionPolicies and
// every Kyverno policy, OME's and the team's alike; a selector the API
// cannot say, or a name that is no namespace's, is refused.
func TestExemptionsInEveryTarget(t *testing.T) {
	regoIDs := "company.prod_pins_runtime,company.prod_redundancy,company.runtime_size_range,company.transformers_floor"
	dir := t.TempDir()
	flags := []string{"--rules", companyRules, "--leave-out", regoIDs, "--exempt-namespaces", "sandbox,scratch", "-l", "evaluate.ome.io/exempt!=true,tier in (prod)"}
	r := evaluate(t, 120*time.Second, "", append([]string{"gatekeeper", "--out", filepath.Join(dir, "gk"), "--native-out", filepath.Join(dir, "native")}, flags...)...)
	require.Equal(t, 0, r.code, r.stderr)
	r = evaluate(t, 120*time.Second, "", append([]string{"kyverno", "--out", filepath.Join(dir, "kyverno")}, flags...)...)
	require.Equal(t, 0, r.code, r.stderr)
	namespaces := []any{"sandbox", "scratch"}
	selector := map[string]any{"matchExpressions": []any{
		map[string]any{"key": "evaluate.ome.io/exempt", "operator": "NotIn", "values": []any{"true"}},
		map[string]any{"key": "tier", "operator": "In", "values": []any{"prod"}},
	}}
	byNamespace := []any{map[string]any{"key": "kubernetes.io/metadata.name", "operator": "NotIn", "values": namespaces}}
	seen := map[string]int{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".yaml") || strings.Contains(p, "kyverno-test") || strings.Contains(p, "/samples/") && !strings.HasSuffix(p, "constraint.yaml") {
			return err
		}
		dec := yaml.NewDecoder(strings.NewReader(readFile(t, p)))
		for {
			var doc map[string]any
			if err := dec.Decode(&doc); err != nil {
				break
			}
			spec, _ := doc["spec"].(map[string]any)
			var match map[string]any
			switch {
			case strings.HasPrefix(fmt.Sprint(doc["apiVersion"]), "constraints.gatekeeper.sh/"):
				match, _ = spec["match"].(map[string]any)
				require.Equal(t, namespaces, match["excludedNamespaces"], p)
				require.Equal(t, selector, match["labelSelector"], p)
			case doc["kind"] == "ValidatingAdmissionPolicyBinding":
				match, _ = spec["matchResources"].(map[string]any)
			case doc["kind"] == "ValidatingPolicy":
				match, _ = spec["matchConstraints"].(map[string]any)
			default:
				continue
			}
			if doc["kind"] == "ValidatingAdmissionPolicyBinding" || doc["kind"] == "ValidatingPolicy" {
				require.Equal(t, map[string]any{"matchExpressions": byNamespace}, match["namespaceSelector"], p)
				require.Equal(t, selector, match["objectSelector"], p)
			}
			seen[fmt.Sprint(doc["kind"])]++
		}
		return nil
	}))
	// OME's two constraints of each template and the team's; OME's two
	// bindings and the team's; OME's three Kyverno policies and the team's.
	require.GreaterOrEqual(t, seen["ValidatingAdmissionPolicyBinding"], 3, "%v", seen)
	require.GreaterOrEqual(t, seen["ValidatingPolicy"], 4, "%v", seen)
	require.GreaterOrEqual(t, seen["OMEVersionLint"]+seen["OMERuntimeSelection"], 4, "%v", seen)
	require.Positive(t, seen["CompanyAutoselectPinsFramework"], "%v", seen)

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--exempt-namespaces", "kube-*"}, `--exempt-namespaces: "kube-*" is no namespace name`},
		{[]string{"-l", "size>3"}, "--label-selector: size>3: the API's label selectors have no gt"},
		{[]string{"-l", "a=b,,"}, "--label-selector: "},
	} {
		r := evaluate(t, 60*time.Second, "", append([]string{"gatekeeper", "--out", t.TempDir(), "--native-out", ""}, tc.args...)...)
		require.Equal(t, 2, r.code, "%v: %s", tc.args, r.stderr)
		require.Contains(t, r.stderr, tc.want)
	}
}

// The rule forms of testdata/rules/corpus: evaluate select --rules gives
// each InferenceService the findings of the team's rules that evaluate
// lint --rules gives it, as the bundles enforce them (their suites hold
// them to lint's).
func TestCorpusSelectAgreesWithLint(t *testing.T) {
	dirs, err := filepath.Glob(at("testdata/rules/corpus/*/objects.yaml"))
	require.NoError(t, err)
	services := 0
	for _, objs := range dirs {
		dir := filepath.Dir(objs)
		if !strings.Contains(readFile(t, objs), "kind: InferenceService") {
			continue
		}
		lint := evaluate(t, 60*time.Second, "", "lint", "--rules", filepath.Join(dir, "rules"), "-o", "json", objs)
		var l struct {
			Findings []struct {
				Rule, Message string
				Object        struct{ Kind, Name string }
			}
		}
		require.NoError(t, json.Unmarshal([]byte(lint.stdout), &l), lint.stderr)
		want := map[string][]string{}
		for _, f := range l.Findings {
			if f.Object.Kind == "InferenceService" && strings.HasPrefix(f.Rule, "corpus.") {
				want[f.Object.Name] = append(want[f.Object.Name], f.Rule+": "+f.Message)
			}
		}
		sel := evaluate(t, 60*time.Second, "", "select", "--rules", filepath.Join(dir, "rules"), "-o", "json", objs)
		var s struct {
			Decisions []struct {
				InferenceService struct{ Name string }
				Rules            []struct{ Rule, Message string }
			}
		}
		require.NoError(t, json.Unmarshal([]byte(sel.stdout), &s), sel.stderr)
		for _, d := range s.Decisions {
			var got []string
			for _, f := range d.Rules {
				got = append(got, f.Rule+": "+f.Message)
			}
			require.ElementsMatch(t, want[d.InferenceService.Name], got, "%s: %s", dir, d.InferenceService.Name)
			services++
		}
	}
	require.GreaterOrEqual(t, services, 3)
}

// The CEL rule forms of testdata/rules/corpus through the commands a user
// types: evaluate lint --rules finds against some object of each folder
// and not another; evaluate gatekeeper (with --native-out) and evaluate
// kyverno write each rule with exit 0 and no notice (each rule refuses an
// object of --lint, so its suites and Tests test it); a rule whose call
// has no stand-in in CEL is refused by both, by name, with exit 2, and
// nothing is written.
func TestCorpusCELRulesThroughTheCommands(t *testing.T) {
	dirs, err := filepath.Glob(at("testdata/rules/corpus/cel-*"))
	require.NoError(t, err)
	require.NotEmpty(t, dirs)
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			rulesDir, objs := filepath.Join(dir, "rules"), filepath.Join(dir, "objects.yaml")
			lint := evaluate(t, 60*time.Second, "", "lint", "--rules", rulesDir, "-o", "json", objs)
			require.Contains(t, []int{0, 1}, lint.code, lint.stderr)
			var doc struct {
				Findings []struct {
					Rule   string
					Object struct{ Name string }
				}
			}
			require.NoError(t, json.Unmarshal([]byte(lint.stdout), &doc))
			refused := map[string]bool{}
			for _, f := range doc.Findings {
				if strings.HasPrefix(f.Rule, "corpus-") {
					refused[f.Object.Name] = true
				}
			}
			require.NotEmpty(t, refused, "the folder's rule finds against some object")
			out := t.TempDir()
			for _, args := range [][]string{
				{"gatekeeper", "--out", filepath.Join(out, "gk"), "--native-out", filepath.Join(out, "native")},
				{"kyverno", "--out", filepath.Join(out, "ky")},
			} {
				r := evaluate(t, 60*time.Second, "", append(args, "--rules", rulesDir, "--lint", objs)...)
				require.Equal(t, 0, r.code, r.stderr)
				require.NotContains(t, r.stderr, "notice: rule corpus-")
			}
			require.FileExists(t, filepath.Join(out, "native", "team-rules.yaml"))
			require.FileExists(t, filepath.Join(out, "ky", "team", ".kyverno-test", "kyverno-test.yaml"))
		})
	}
	// The compareTo form with a size comparison, which has no stand-in.
	src, err := os.ReadFile(at("testdata/rules/corpus/cel-compareto/rules/transformers-floor.yaml"))
	require.NoError(t, err)
	rulesDir := t.TempDir()
	text := strings.Replace(string(src), `omeVersion(f.modelFramework.version).compareTo(omeVersion("4.40.1")) >= 0)`, `omeSizeCompare(f.modelFramework.version, "4.40.1") >= 0)`, 1)
	require.NoError(t, os.WriteFile(filepath.Join(rulesDir, "floor.yaml"), []byte(text), 0o644))
	for _, cmd := range []string{"gatekeeper", "kyverno"} {
		out := filepath.Join(t.TempDir(), "out")
		r := evaluate(t, 60*time.Second, "", cmd, "--rules", rulesDir, "--out", out)
		require.Equal(t, 2, r.code, r.stderr)
		require.Contains(t, r.stderr, "floor.yaml:4: rule corpus-transformers-floor cannot go into the")
		require.Contains(t, r.stderr, "spec.validations[0].expression: calls omeSizeCompare, which has no stand-in there")
		require.NoDirExists(t, out)
	}
}
