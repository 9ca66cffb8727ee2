package rules

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ome-policy/evaluator/engine/answer"
	"github.com/ome-policy/evaluator/input"
	"github.com/ome-policy/evaluator/objects"
)

const example = "../examples/company-rules"

// object reads the one object of a YAML text, as file.yaml.
func object(t *testing.T, text string) *objects.Object {
	t.Helper()
	objs, err := input.LoadData("file.yaml", []byte(text), input.LoadOptions{})
	require.NoError(t, err)
	require.Len(t, objs, 1)
	return objs[0]
}

// write writes files (name -> text) into a new folder.
func write(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	return dir
}

func TestLoadTheExample(t *testing.T) {
	s, err := Load([]string{example}, nil)
	require.NoError(t, err)
	var got []string
	for _, r := range s.Rules {
		got = append(got, r.ID+" "+r.Language+" "+r.Severity()+" "+filepath.Base(r.File))
	}
	assert.Equal(t, []string{
		"company-autoselect-pins-framework cel warning autoselect-pins-framework.yaml",
		"company.prod_pins_runtime rego error prod-pins-runtime.rego",
		"company.prod_redundancy rego error prod-redundancy.rego",
		"company.runtime_size_range rego error runtime-size-range.rego",
		"company.transformers_floor rego error transformers-floor.rego",
	}, got)
	assert.Len(t, s.TestFiles, 4)
	assert.Len(t, s.Modules, 8)
	assert.Equal(t, []string{"../examples/company-rules/autoselect-pins-framework-cases.yaml"}, s.CaseFiles)
	assert.True(t, s.ReadsDecisions())
}

// TestRulesOverOMEsDecisions: a rule that reads OME's decisions runs only
// with them (CheckDecisions), in Rego (data.evaluate) and in CEL
// (evaluate); the others run without (Check).
func TestRulesOverOMEsDecisions(t *testing.T) {
	dir := write(t, map[string]string{
		"a.rego": "package a\n\ndeny contains sprintf(\"%d runtimes\", [count(data.evaluate.decision.runtimes)]) if input.kind == \"BaseModel\"\n",
		"b.rego": "package b\n\ndeny contains \"always\" if true\n",
		"p.yaml": vap("  matchConstraints:\n    resourceRules:\n    - {apiGroups: ['*'], apiVersions: ['*'], operations: ['*'], resources: [basemodels]}\n" +
			"  validations:\n  - {expression: 'evaluate.objects.size() < 2', messageExpression: 'string(evaluate.objects.size()) + \" objects\"'}\n"),
	})
	s, err := Load([]string{dir}, nil)
	require.NoError(t, err)
	reads := map[string]bool{}
	for _, r := range s.Rules {
		reads[r.ID] = r.Decisions
	}
	assert.Equal(t, map[string]bool{"a": true, "b": false, "p": true}, reads)
	model := object(t, "apiVersion: ome.io/v1beta1\nkind: BaseModel\nmetadata: {name: m, namespace: prod}\nspec: {}\n")
	messages := func(fs []answer.Finding) []string {
		var out []string
		for _, f := range fs {
			out = append(out, f.Rule+": "+f.Message)
		}
		return out
	}
	fs, probs := s.Check(model)
	require.Empty(t, probs)
	assert.Equal(t, []string{"b: always"}, messages(fs))
	fs, probs = s.CheckDecisions(model, View{Objects: []any{model.Value, model.Value}, Decision: map[string]any{"runtimes": []any{"x"}}})
	require.Empty(t, probs)
	assert.Equal(t, []string{"a: 1 runtimes", "p: 2 objects"}, messages(fs))
	fs, _ = s.CheckDecisions(model, View{Objects: []any{}, Decision: map[string]any{"runtimes": []any{}}})
	assert.Equal(t, []string{"a: 0 runtimes"}, messages(fs), "each object's own decision")
}

const runtimeDoc = `apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata:
  name: srt
  labels: {team: a}
spec:
  supportedModelFormats:
  - modelFramework: {name: transformers, version: "4.36.0.dev0"}
    autoSelect: true
`

func TestCheckGivesEachRulesFindings(t *testing.T) {
	s, err := Load([]string{example}, nil)
	require.NoError(t, err)
	fs, probs := s.Check(object(t, runtimeDoc))
	require.Empty(t, probs)
	var got []string
	for _, f := range fs {
		got = append(got, f.Rule+" "+f.Severity+" "+f.Field+" "+f.Message)
	}
	assert.Equal(t, []string{
		"company-autoselect-pins-framework warning  srt: an entry with autoSelect pins a plain framework version, not \"4.36.0.dev0\"",
		"company.runtime_size_range error spec ClusterServingRuntime srt declares no modelSizeRange: say which model sizes it serves",
		"company.transformers_floor error spec.supportedModelFormats[0].modelFramework.version srt accepts transformers 4.36.0.dev0, older than the company's floor 4.40",
	}, got)
	for _, f := range fs {
		assert.Equal(t, "file.yaml", f.File)
		assert.Equal(t, "ClusterServingRuntime", f.Object.Kind)
	}
	assert.Equal(t, 8, fs[2].Line, "the line of the field named")
	assert.Equal(t, 6, fs[1].Line)
	assert.Equal(t, 1, fs[0].Line, "a policy names no field: the object's line")
}

// vap is a ValidatingAdmissionPolicy of the given spec lines (indented
// by two) named p.
func vap(spec string) string {
	return "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata:\n  name: p\nspec:\n" + spec
}

const runtimesOnly = `  matchConstraints:
    resourceRules:
    - {apiGroups: ["ome.io"], apiVersions: ["*"], operations: ["CREATE"], resources: ["clusterservingruntimes"]}
`

func TestPolicies(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  []string // severity and message of each finding on runtimeDoc
	}{
		{"message", map[string]string{"p.yaml": vap(runtimesOnly + "  validations:\n  - {expression: 'false', message: no}\n")},
			[]string{"error no"}},
		{"passes", map[string]string{"p.yaml": vap(runtimesOnly + "  validations:\n  - {expression: 'object.metadata.name == \"srt\"', message: no}\n")},
			nil},
		{"no message: the expression", map[string]string{"p.yaml": vap(runtimesOnly + "  validations:\n  - {expression: '1 > 2'}\n")},
			[]string{"error failed expression: 1 > 2"}},
		{"messageExpression", map[string]string{"p.yaml": vap(runtimesOnly + "  validations:\n  - {expression: 'false', message: m, messageExpression: 'object.metadata.name + \" is out\"'}\n")},
			[]string{"error srt is out"}},
		{"empty messageExpression: the message", map[string]string{"p.yaml": vap(runtimesOnly + "  validations:\n  - {expression: 'false', message: m, messageExpression: '\"\"'}\n")},
			[]string{"error m"}},
		{"the ome library", map[string]string{"p.yaml": vap(runtimesOnly + "  validations:\n  - {expression: 'omeVersion(object.spec.supportedModelFormats[0].modelFramework.version).compareTo(omeVersion(\"4.40\")) >= 0', message: old}\n")},
			[]string{"error old"}},

		{"variables", map[string]string{"p.yaml": vap(runtimesOnly + "  variables:\n  - {name: n, expression: 'object.metadata.name'}\n  validations:\n  - {expression: 'variables.n != \"srt\"', message: m}\n")},
			[]string{"error m"}},
		{"matchConditions that hold", map[string]string{"p.yaml": vap(runtimesOnly + "  matchConditions:\n  - {name: a, expression: 'object.metadata.labels.team == \"a\"'}\n  validations:\n  - {expression: 'false', message: m}\n")},
			[]string{"error m"}},
		{"matchConditions that do not", map[string]string{"p.yaml": vap(runtimesOnly + "  matchConditions:\n  - {name: a, expression: 'object.metadata.labels.team == \"b\"'}\n  validations:\n  - {expression: 'false', message: m}\n")},
			nil},
		{"another kind", map[string]string{"p.yaml": vap(strings.Replace(runtimesOnly, "clusterservingruntimes", "basemodels", 1) + "  validations:\n  - {expression: 'false', message: m}\n")},
			nil},
		{"every resource, excluding none", map[string]string{"p.yaml": vap("  matchConstraints:\n    resourceRules:\n    - {apiGroups: ['*'], apiVersions: ['*'], operations: ['*'], resources: ['*']}\n  validations:\n  - {expression: 'false', message: m}\n")},
			[]string{"error m"}},
		{"excluded", map[string]string{"p.yaml": vap(runtimesOnly + "    excludeResourceRules:\n    - {apiGroups: ['*'], apiVersions: ['*'], operations: ['*'], resources: ['*'], resourceNames: [srt]}\n  validations:\n  - {expression: 'false', message: m}\n")},
			nil},
		{"a DELETE rule", map[string]string{"p.yaml": vap("  matchConstraints:\n    resourceRules:\n    - {apiGroups: ['*'], apiVersions: ['*'], operations: ['DELETE'], resources: ['*']}\n    - {apiGroups: ['*'], apiVersions: ['*'], operations: ['CREATE'], resources: ['basemodels']}\n  validations:\n  - {expression: 'false', message: m}\n")},
			nil},
		{"namespaced scope", map[string]string{"p.yaml": vap("  matchConstraints:\n    resourceRules:\n    - {apiGroups: ['*'], apiVersions: ['*'], operations: ['*'], resources: ['*'], scope: Namespaced}\n  validations:\n  - {expression: 'false', message: m}\n")},
			nil},
		{"objectSelector that matches", map[string]string{"p.yaml": vap(runtimesOnly + "    objectSelector:\n      matchExpressions: [{key: team, operator: In, values: [a, b]}]\n  validations:\n  - {expression: 'false', message: m}\n")},
			[]string{"error m"}},
		{"objectSelector that does not", map[string]string{"p.yaml": vap(runtimesOnly + "    objectSelector:\n      matchLabels: {team: b}\n  validations:\n  - {expression: 'false', message: m}\n")},
			nil},
		{"a Warn binding", map[string]string{"p.yaml": vap(runtimesOnly + "  validations:\n  - {expression: 'false', message: m}\n"),
			"b.yaml": "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\nmetadata: {name: b}\nspec: {policyName: p, validationActions: [Warn]}\n"},
			[]string{"warning m"}},
		{"an Audit binding", map[string]string{"p.yaml": vap(runtimesOnly + "  validations:\n  - {expression: 'false', message: m}\n"),
			"b.yaml": "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\nmetadata: {name: b}\nspec: {policyName: p, validationActions: [Audit]}\n"},
			[]string{"info m"}},
		{"Deny and Warn", map[string]string{"p.yaml": vap(runtimesOnly + "  validations:\n  - {expression: 'false', message: m}\n"),
			"b.yaml": "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\nmetadata: {name: b}\nspec: {policyName: p, validationActions: [Warn, Deny]}\n"},
			[]string{"error m"}},
		{"conftest's warn and deny_ sets", map[string]string{"a.rego": "package a\n\nwarn contains \"w\" if true\n\ndeny_size contains {\"msg\": \"d\"} if true\n"},
			[]string{"error d", "warning w"}},
		{"Gatekeeper's violation", map[string]string{"a.rego": "package a\n\nviolation contains {\"msg\": \"v\", \"details\": {}} if true\n"},
			[]string{"error v"}},
		{"a library package is no rule", map[string]string{"lib.rego": "package lib\n\nname(o) := o.metadata.name\n",
			"a.rego": "package a\n\nimport data.lib\n\ndeny contains lib.name(input) if true\n"},
			[]string{"error srt"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Load([]string{write(t, tc.files)}, nil)
			require.NoError(t, err)
			fs, probs := s.Check(object(t, runtimeDoc))
			require.Empty(t, probs)
			var got []string
			for _, f := range fs {
				got = append(got, f.Severity+" "+f.Message)
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

// A rule that fails on an object is a problem that names the rule, the
// object and the error, whatever the language: a builtin that fails in
// Rego (strict builtin errors: never an undefined read as no finding), a
// CEL expression that fails. A CEL policy fails the object too, as the
// API server refuses it, unless its failurePolicy is Ignore.
func TestAFailingRuleIsAProblem(t *testing.T) {
	for _, tc := range []struct {
		name     string
		files    map[string]string
		findings []string
		problems []string
	}{
		{"CEL: an error fails closed", map[string]string{"p.yaml": vap(runtimesOnly + "  validations:\n  - {expression: 'object.spec.nothing == 1', message: m}\n")},
			[]string{"error expression 'object.spec.nothing == 1' resulted in error: no such key: nothing"},
			[]string{"p.yaml:10: rule p failed on ClusterServingRuntime/srt (file.yaml:1): expression 'object.spec.nothing == 1': no such key: nothing"}},
		{"CEL: an error with failurePolicy Ignore", map[string]string{"p.yaml": vap(runtimesOnly + "  failurePolicy: Ignore\n  validations:\n  - {expression: 'object.spec.nothing == 1', message: m}\n")},
			nil,
			[]string{"p.yaml:11: rule p failed on ClusterServingRuntime/srt (file.yaml:1): expression 'object.spec.nothing == 1': no such key: nothing"}},
		{"Rego: a builtin that fails", map[string]string{"a.rego": "package a\n\ndeny contains \"x\" if {\n  to_number(input.metadata.name) > 1\n}\n"},
			nil,
			[]string{"a.rego:4: rule a failed on ClusterServingRuntime/srt (file.yaml:1): to_number: strconv.ParseFloat: parsing \"srt\": invalid syntax"}},
		{"Rego: the other rules still judge", map[string]string{"a.rego": "package a\n\ndeny contains \"x\" if {\n  to_number(input.metadata.name) > 1\n}\n",
			"b.rego": "package b\n\nwarn contains \"b\" if true\n"},
			[]string{"warning b"},
			[]string{"a.rego:4: rule a failed on ClusterServingRuntime/srt (file.yaml:1): to_number: strconv.ParseFloat: parsing \"srt\": invalid syntax"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := write(t, tc.files)
			s, err := Load([]string{dir}, nil)
			require.NoError(t, err)
			for range 2 { // and so on each object after it
				fs, probs := s.Check(object(t, runtimeDoc))
				var got, gotProbs []string
				for _, f := range fs {
					got = append(got, f.Severity+" "+f.Message)
				}
				for _, p := range probs {
					gotProbs = append(gotProbs, strings.ReplaceAll(p.Error(), dir+string(filepath.Separator), ""))
				}
				assert.Equal(t, tc.findings, got)
				assert.Equal(t, tc.problems, gotProbs)
			}
		})
	}
}

// TestBadRulesAreNamed: every rule that cannot run is a problem with its
// file and line, all of them at once; none is left out as if absent.
func TestBadRulesAreNamed(t *testing.T) {
	binding := "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\nmetadata: {name: b}\nspec: {policyName: %s, validationActions: [%s]}\n"
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"a Rego syntax error", map[string]string{"a.rego": "package a\n\ndeny contains msg if {\n  msg :=\n}\n"},
			[]string{"a.rego:5: unexpected } token"}},
		{"an unknown builtin", map[string]string{"a.rego": "package a\n\ndeny contains msg if {\n  msg := ome.version.nope(input.x)\n}\n"},
			[]string{"a.rego:4: undefined function ome.version.nope"}},
		{"a deny that is not a set", map[string]string{"a.rego": "package a\n\ndeny := \"x\"\n"},
			[]string{"a.rego:3: deny must be a set of messages: write `deny contains msg if { ... }`"}},
		{"a warn that is a boolean", map[string]string{"a.rego": "package a\n\nwarn if true\n"},
			[]string{"a.rego:3: warn must be a set of messages: write `warn contains msg if { ... }`"}},
		{"CEL that does not compile", map[string]string{"p.yaml": vap(runtimesOnly + "  validations:\n  - {expression: 'object.spec.find(\"a\")'}\n")},
			[]string{"p.yaml:10: spec.validations[0].expression: does not compile: undeclared reference to 'find' (in container '') (column 17)"}},
		{"CEL that is no boolean", map[string]string{"p.yaml": vap(runtimesOnly + "  validations:\n  - {expression: '1'}\n")},
			[]string{"p.yaml:10: spec.validations[0].expression: must give a bool, not a int"}},
		{"no validations", map[string]string{"p.yaml": vap(runtimesOnly)},
			[]string{"p.yaml:5: spec.validations: a rule's policy needs validations: they are what it checks"}},
		{"no OME kind", map[string]string{"p.yaml": vap("  matchConstraints:\n    resourceRules:\n    - {apiGroups: [apps], apiVersions: ['*'], operations: ['*'], resources: [deployments]}\n  validations:\n  - {expression: 'true'}\n")},
			[]string{"p.yaml:7: spec.matchConstraints.resourceRules: selects none of the kinds evaluate reads (basemodels, clusterbasemodels, servingruntimes, clusterservingruntimes, inferenceservices of ome.io, on CREATE or UPDATE)"}},
		{"a namespaceSelector", map[string]string{"p.yaml": vap(runtimesOnly + "    namespaceSelector: {matchLabels: {env: prod}}\n  validations:\n  - {expression: 'true'}\n")},
			[]string{"p.yaml:9: spec.matchConstraints.namespaceSelector: a namespaceSelector reads the labels of Namespaces, which evaluate does not read: select by the object (objectSelector, or a matchCondition on object.metadata.namespace)"}},
		{"parameters", map[string]string{"p.yaml": vap(runtimesOnly + "  paramKind: {apiVersion: v1, kind: ConfigMap}\n  validations:\n  - {expression: 'true'}\n")},
			[]string{"p.yaml:9: spec.paramKind: parameters are not supported: write the values into the policy"}},
		{"a binding of no policy", map[string]string{"p.yaml": vap(runtimesOnly + "  validations:\n  - {expression: 'true'}\n"), "b.yaml": strings.ReplaceAll(binding, "%s", "x")},
			[]string{"b.yaml:4: spec.validationActions[0]: a string (\"x\") is not a validation action (Deny, Warn or Audit)"}},
		{"a binding of another policy", map[string]string{"p.yaml": vap(runtimesOnly + "  validations:\n  - {expression: 'true'}\n"), "b.yaml": fmt.Sprintf(binding, "x", "Deny")},
			[]string{"b.yaml:4: spec.policyName: no ValidatingAdmissionPolicy \"x\" among the rules"}},
		{"a beta policy", map[string]string{"p.yaml": strings.Replace(vap(runtimesOnly+"  validations:\n  - {expression: 'true'}\n"), "/v1", "/v1beta1", 1)},
			[]string{"p.yaml:1: apiVersion: ValidatingAdmissionPolicy of \"admissionregistration.k8s.io/v1beta1\": write it as admissionregistration.k8s.io/v1"}},
		{"another kind", map[string]string{"c.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"},
			[]string{"c.yaml:1: kind: not a rule: ConfigMap (a rules folder holds Rego files, ValidatingAdmissionPolicies with their bindings, and case lists)"}},
		{"an id twice", map[string]string{"a.rego": "package p\n\ndeny contains \"a\" if true\n", "p.yaml": vap(runtimesOnly + "  validations:\n  - {expression: 'true'}\n"),
			"q.yaml": strings.Replace(vap(runtimesOnly+"  validations:\n  - {expression: 'true'}\n"), "name: p", "name: p.x", 1), "b.rego": "package p.x\n\ndeny contains \"b\" if true\n"},
			[]string{"p.yaml:1: rule p is also written at a.rego:1: a rule's id names one rule", "q.yaml:1: rule p.x is also written at b.rego:1: a rule's id names one rule"}},
		{"OME's id", map[string]string{"p.yaml": strings.Replace(vap(runtimesOnly+"  validations:\n  - {expression: 'true'}\n"), "name: p", "name: crd-schema", 1)},
			[]string{"p.yaml:1: rule crd-schema takes the id of one of OME's rules (evaluate lint --list-rules lists them): rename it"}},
		{"every problem at once", map[string]string{"a.rego": "package a\n\ndeny := 1\n", "z.rego": "package z\n\nwarn if {\n", "p.yaml": vap(runtimesOnly + "  validations:\n  - {expression: '1'}\n")},
			[]string{"a.rego:3: deny must be a set of messages: write `deny contains msg if { ... }`", "p.yaml:10: spec.validations[0].expression: must give a bool, not a int", "z.rego:4: unexpected eof token"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := write(t, tc.files)
			_, err := Load([]string{dir}, []string{"crd-schema"})
			var probs Problems
			require.ErrorAs(t, err, &probs)
			var got []string
			for _, p := range probs {
				got = append(got, strings.ReplaceAll(p.Error(), dir+string(filepath.Separator), ""))
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestARuleThatGivesNoMessageIsAProblem(t *testing.T) {
	s, err := Load([]string{write(t, map[string]string{"a.rego": "package a\n\ndeny contains 3 if true\n\ndeny contains \"fine\" if true\n"})}, nil)
	require.NoError(t, err)
	fs, probs := s.Check(object(t, runtimeDoc))
	require.Len(t, fs, 1, "the other messages still count")
	require.Len(t, probs, 1)
	assert.Contains(t, probs[0].Error(), "a.rego:1: rule a: deny holds something else than a message (a string, or an object with msg and an optional field), for ClusterServingRuntime/srt")
}

func TestLoadNamesWhatIsNotThere(t *testing.T) {
	_, err := Load([]string{"no-such-folder", write(t, map[string]string{"notes.txt": "x"}), ""}, nil)
	var probs Problems
	require.ErrorAs(t, err, &probs)
	require.Len(t, probs, 3)
	assert.Equal(t, "--rules: an empty path: give a folder or a file of rules", probs[0].Error())
	assert.Contains(t, probs[1].Error(), ": no rules here: no .rego file and no ValidatingAdmissionPolicy")
	assert.Equal(t, "no-such-folder: no such file or folder", probs[2].Error())
}

// The sandbox refuses, as the rules are read, each call of a builtin that
// reaches the network or the host or answers differently from run to
// run, in the rules and in their tests, with its file and line; lint may
// allow one by name, a bundle never.
func TestSandboxRefusesAtLoad(t *testing.T) {
	files := map[string]string{
		"a.rego":      "package a\n\ndeny contains msg if {\n\tmsg := sprintf(\"%d\", [time.now_ns()])\n}\n",
		"b.rego":      "package b\n\nwarn contains \"w\" if {\n\thttp.send({\"method\": \"GET\", \"url\": \"http://127.0.0.1:1\"}, resp)\n\tresp.status_code == 200\n}\n",
		"b_test.rego": "package b_test\n\ntest_up if net.lookup_ip_addr(\"example.com\")\n",
	}
	dir := write(t, files)
	_, err := Load([]string{dir}, nil)
	var probs Problems
	require.ErrorAs(t, err, &probs)
	var got []string
	for _, p := range probs {
		got = append(got, strings.ReplaceAll(p.Error(), dir+string(filepath.Separator), ""))
	}
	assert.Equal(t, []string{
		"a.rego:4: calls time.now_ns, which answers differently from run to run (the clock): rules run in a sandbox that refuses it (docs/rules.md); evaluate lint --allow-builtin time.now_ns lets lint call it, no bundle does",
		"b.rego:4: calls http.send, which reaches the network: rules run in a sandbox that refuses it (docs/rules.md); evaluate lint --allow-builtin http.send lets lint call it, no bundle does",
		"b_test.rego:3: calls net.lookup_ip_addr, which reaches the network (DNS): rules run in a sandbox that refuses it (docs/rules.md); evaluate lint --allow-builtin net.lookup_ip_addr lets lint call it, no bundle does",
	}, got)

	clock := write(t, map[string]string{"a.rego": files["a.rego"]})
	s, err := LoadWith([]string{clock}, nil, Sandbox{Allow: []string{"time.now_ns"}})
	require.NoError(t, err)
	fs, probs := s.Check(object(t, runtimeDoc))
	require.Empty(t, probs)
	require.Len(t, fs, 1)
	_, err = LoadWith([]string{clock}, nil, Sandbox{Allow: []string{"time.now_ns"}, ForBundles: true})
	require.ErrorAs(t, err, &probs)
	assert.Contains(t, probs[0].Msg, "a bundle never holds such a rule")
	_, err = LoadWith([]string{clock}, nil, Sandbox{Allow: []string{"trace"}})
	require.ErrorContains(t, err, "--allow-builtin: trace is none of the builtins the sandbox refuses")

	// Every builtin OPA marks non-deterministic is refused, and said why.
	for _, b := range Refused() {
		assert.NotEqual(t, "OPA marks non-deterministic", refusedReason(b), "%s: say what it reaches", b)
	}
	assert.Contains(t, Refused(), "http.send")
}

// A rule past its time or memory limit on an object is stopped, named
// with the object, and not run on the objects after it; the other rules
// still judge every object. A CEL expression is stopped past Kubernetes'
// cost limit, and one whose least cost is over it is refused as it is
// read.
func TestLimits(t *testing.T) {
	dir := write(t, map[string]string{
		"slow.rego": "package slow\n\ndeny contains \"n\" if {\n\tcount([x | some i in numbers.range(1, 5000); some j in numbers.range(1, 5000); x := i * j]) > 1\n}\n",
		"fine.rego": "package fine\n\nwarn contains \"w\" if true\n",
	})
	s, err := LoadWith([]string{dir}, nil, Sandbox{Timeout: 50 * time.Millisecond})
	require.NoError(t, err)
	for i := range 3 {
		start := time.Now()
		fs, probs := s.Check(object(t, runtimeDoc))
		require.Len(t, fs, 1, "the other rule still judges")
		if i == 0 {
			require.Len(t, probs, 1)
			assert.Equal(t, "rule slow on ClusterServingRuntime/srt (file.yaml:1): stopped at the time limit of 50ms (--rule-timeout); it is not run on the objects after it", probs[0].Msg)
		} else {
			require.Empty(t, probs, "stopped once")
			assert.Less(t, time.Since(start), time.Second)
		}
	}

	grow := write(t, map[string]string{"grow.rego": "package grow\n\ndeny contains \"n\" if count(numbers.range(0, 100000000)) > 1\n"})
	s, err = LoadWith([]string{grow}, nil, Sandbox{Memory: 32 << 20})
	require.NoError(t, err)
	_, probs := s.Check(object(t, runtimeDoc))
	require.Len(t, probs, 1)
	assert.Contains(t, probs[0].Msg, "stopped at the memory limit of 32Mi (--rule-memory)")

	nested := write(t, map[string]string{"p.yaml": vap(runtimesOnly + "  validations:\n  - {expression: '[1,2,3,4,5,6,7,8,9,10].all(a, lists.range(1000).all(b, lists.range(1000).all(c, a + b + c > 0)))'}\n")})
	_, err = Load([]string{nested}, nil)
	var refused Problems
	require.ErrorAs(t, err, &refused)
	assert.Contains(t, refused[0].Msg, "its estimated cost is ")
	assert.Contains(t, refused[0].Msg, "over Kubernetes' limit of 1000000 per expression")

	// Iterating over the object is not refused: its cost is the object's.
	byObject := write(t, map[string]string{"p.yaml": vap(runtimesOnly + "  validations:\n  - {expression: 'lists.range(size(object.spec.supportedModelFormats)).all(i, object.spec.supportedModelFormats[i].all(k, k != \"\"))'}\n")})
	s, err = Load([]string{byObject}, nil)
	require.NoError(t, err)
	_, probs = s.Check(object(t, runtimeDoc))
	require.Empty(t, probs)
}
