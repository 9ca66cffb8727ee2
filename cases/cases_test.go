package cases

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ome-policy/evaluator/objects"
	"github.com/stretchr/testify/require"
)

const casesDir = "../testdata/cases/"

func TestReadCasesGolden(t *testing.T) {
	for file, want := range map[string]int{
		"sample-cases.yaml":         360,
		"sample-runtime-level.yaml": 40,
		"sample-selection.yaml":     59,
	} {
		t.Run(file, func(t *testing.T) {
			ok, err := IsCaseFile(casesDir + file)
			require.NoError(t, err)
			require.True(t, ok)
			cases, err := ReadCases(casesDir + file)
			require.NoError(t, err)
			require.Len(t, cases, want)
			for _, c := range cases {
				require.NotEmpty(t, c.Name)
				require.Equal(t, casesDir+file, c.File)
				if c.Model != nil {
					require.NotNil(t, c.Runtime)
					require.NotNil(t, c.Expect.Compatible)
					require.Nil(t, c.Expect.Admitted)
				} else {
					require.NotNil(t, c.InferenceService)
					require.NotNil(t, c.Expect.Admitted)
					require.Nil(t, c.Expect.Compatible)
				}
			}
		})
	}
}

func TestReadCasesMatchCase(t *testing.T) {
	cases, err := ReadCases(casesDir + "sample-cases.yaml")
	require.NoError(t, err)
	c := cases[0]
	require.Equal(t, `framework version: model="4.9.0" entry="V1.0.0" operator="GreaterThanOrEqual"`, c.Name)
	// The file's omeVersions, for every case that gives none.
	require.Equal(t, []string{"v1.2.2", "v0.1.5"}, c.OMEVersions)
	require.Equal(t, 2, c.OMEVersionsLine)
	require.Equal(t, 4, c.Line)

	// Defaults for what a match case leaves out, also in Value (the policies' input).
	m, r := c.Model, c.Runtime
	require.Equal(t, "ClusterBaseModel/model", m.Ref())
	require.Equal(t, "ClusterServingRuntime/runtime", r.Ref())
	require.Equal(t, objects.APIVersion, m.APIVersion)
	require.Equal(t, map[string]any{"name": "model"}, m.Value["metadata"])
	require.Equal(t, objects.KindClusterServingRuntime, r.Value["kind"])
	require.Equal(t, objects.APIVersion, r.Value["apiVersion"])

	// Lines are the case file's; paths are relative to the object.
	require.Equal(t, 5, m.Line)
	require.Equal(t, 14, r.Line)
	require.Equal(t, 12, m.Pos.At("spec.modelFramework.version").Line)
	require.Empty(t, m.Pos.At("spec.modelFramework.version").Raw, "a string's source text is its value")
	require.Equal(t, 22, r.Pos.At("spec.supportedModelFormats[0].modelFramework.version").Line)
	require.Equal(t, casesDir+"sample-cases.yaml:22: spec.supportedModelFormats[0].modelFramework.version",
		r.Where("spec.supportedModelFormats[0].modelFramework.version"))
	require.Equal(t, "V1.0.0", r.Spec()["supportedModelFormats"].([]any)[0].(map[string]any)["modelFramework"].(map[string]any)["version"])

	require.False(t, *c.Expect.Compatible)
	require.Equal(t, "model format 'mt:safetensors:1.0.0:LlamaForCausalLM:transformers:4.9.0' not in supported formats: "+
		"framework version mismatch (model=4.9.0, runtime=V1.0.0)", *c.Expect.Reason)

	cases, err = ReadCases(casesDir + "sample-runtime-level.yaml")
	require.NoError(t, err)
	require.Nil(t, cases[1].Expect.Reason, "reason is optional")
	require.True(t, *cases[1].Expect.Compatible)
}

func TestReadCasesSelectionCase(t *testing.T) {
	cases, err := ReadCases(casesDir + "sample-selection.yaml")
	require.NoError(t, err)
	c := cases[0]
	require.Equal(t, "selection #1", c.Name)
	require.Nil(t, c.Model)
	require.Equal(t, "InferenceService/team-a/svc", c.InferenceService.Ref())
	require.Equal(t, 5, c.InferenceService.Line)
	var refs []string
	for _, o := range c.Objects {
		refs = append(refs, o.Ref())
	}
	require.Equal(t, []string{"BaseModel/team-a/llama", "ClusterBaseModel/llama", "ClusterServingRuntime/crt-0"}, refs)
	require.Equal(t, 16, c.Objects[0].Line)
	require.Equal(t, 70, c.Objects[2].Pos.At("spec.supportedModelFormats[1].modelFramework.operator").Line)
	require.False(t, *c.Expect.Admitted)
	require.Nil(t, c.Expect.Runtime)
	require.Equal(t, "model llama is disabled", *c.Expect.Message)

	var selected int
	for _, c := range cases {
		if c.Expect.Runtime != nil {
			selected++
			require.NotEmpty(t, *c.Expect.Runtime)
		}
	}
	require.NotZero(t, selected, "some cases expect a selected runtime")
}

func TestReadCasesForms(t *testing.T) {
	// JSON, merge keys, several documents, explicit kinds.
	path := writeTemp(t, "c.json", `{"cases": [{"name": "j", "model": {"spec": {}}, "runtime": {"spec": {}}, "expect": {"compatible": false}}]}`)
	cases, err := ReadCases(path)
	require.NoError(t, err)
	require.Equal(t, "j", cases[0].Name)
	ok, err := IsCaseFile(path)
	require.NoError(t, err)
	require.True(t, ok)

	path = writeTemp(t, "c.yaml", `base: &base
  model: {spec: {modelFormat: {name: s}}}
  runtime:
    kind: ServingRuntime
    metadata: {name: rt, namespace: ns}
cases:
- <<: *base
  name: merged
  expect: {compatible: false, reason: ""}
---
cases:
- name: second
  model: {kind: BaseModel, metadata: {name: m, namespace: ns}}
  runtime: {}
  expect: {compatible: true}
`)
	cases, err = ReadCases(path)
	require.NoError(t, err)
	require.Len(t, cases, 2)
	require.Equal(t, 7, cases[0].Line)
	require.Equal(t, 2, cases[0].Model.Line)
	require.Equal(t, 2, cases[0].Model.Pos.At("spec.modelFormat.name").Line)
	require.Equal(t, "ServingRuntime/ns/rt", cases[0].Runtime.Ref())
	require.Equal(t, "", *cases[0].Expect.Reason)
	require.Equal(t, "BaseModel/ns/m", cases[1].Model.Ref())
	require.Equal(t, "ClusterServingRuntime/runtime", cases[1].Runtime.Ref())

	// An empty list of cases is a case file without cases, not an error here.
	cases, err = ReadCases(writeTemp(t, "e.yaml", "cases: []\n"))
	require.NoError(t, err)
	require.Empty(t, cases)
}

const (
	matchRest     = "  runtime: {}\n  expect: {compatible: true}\n"
	selectionHead = "cases:\n- name: s\n  inferenceService: {metadata: {name: svc}}\n  expect: {admitted: true}\n  objects:\n"
)

func TestReadCasesErrors(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"empty file", "", `$F: not a case file: needs a top-level cases list`},
		{"not a mapping", "- a\n", `$F:1: cases: not a case file: needs a top-level cases list`},
		{"no cases", "foo: 1\n", `$F:1: cases: not a case file: needs a top-level cases list`},
		{"cases not a list", "cases: x\n", `$F:1: cases: must be a list of cases, got a string ("x")`},
		{"not YAML", "cases: [\n", `$F:2: did not find expected node content`},
		{"binary", "cases:\x00", `$F: not a YAML or JSON file (binary data)`},
		{"case not an object", "cases:\n- x\n", `$F:2: cases[0]: a case must be an object, got a string ("x")`},
		{"no name", "cases:\n- model: {}\n", `$F:2: cases[0].name: every case needs a name`},
		{"name not a string", "cases:\n- name: 5\n", `$F:2: cases[0].name: must be a non-empty string, got a number (5)`},
		{"second case without name", "cases:\n- name: a\n  model: {}\n" + matchRest + "- {}\n", `$F:6: cases[1].name: every case needs a name`},
		{"duplicate name", "cases:\n- name: a\n  model: {}\n" + matchRest + "- name: a\n", `$F:6: case "a": name: duplicate case name (first at line 2)`},
		{"duplicate name across documents", "cases:\n- name: a\n  model: {}\n" + matchRest + "---\ncases:\n- name: a\n",
			`$F:8: case "a": name: duplicate case name (first at line 2)`},
		{"neither", "cases:\n- name: a\n  expect: {}\n",
			`$F:2: case "a": must be a match case (model, runtime, expect.compatible), a selection case (inferenceService, objects, expect.admitted), a CEL policy case (celPolicy, input, expect.failures) or a rule case (rule, object, optional objects, expect.findings)`},
		{"both", "cases:\n- name: a\n  model: {}\n  objects: []\n",
			`$F:2: case "a": mixes the fields of different sorts of case; a case is a match case (model, runtime, expect.compatible), a selection case (inferenceService, objects, expect.admitted), a CEL policy case (celPolicy, input, expect.failures) or a rule case (rule, object, optional objects, expect.findings)`},
		{"both in expect", "cases:\n- name: a\n  model: {}\n" + matchRest[:len(matchRest)-2] + ", admitted: true}\n",
			`$F:2: case "a": mixes the fields of different sorts of case; a case is a match case (model, runtime, expect.compatible), a selection case (inferenceService, objects, expect.admitted), a CEL policy case (celPolicy, input, expect.failures) or a rule case (rule, object, optional objects, expect.findings)`},
		{"no runtime", "cases:\n- name: a\n  model: {}\n  expect: {compatible: true}\n", `$F:2: case "a": runtime: is required in a match case`},
		{"no expect", "cases:\n- name: a\n  model: {}\n  runtime: {}\n", `$F:2: case "a": expect: is required in a match case`},
		{"omeVersions empty", "cases:\n- name: a\n  omeVersions: []\n  model: {}\n" + matchRest,
			`$F:3: case "a": omeVersions: must be a non-empty list of OME releases (such as v0.1.4), got a list`},
		{"omeVersions not a release", "cases:\n- name: a\n  omeVersions: [v0.1.4, latest]\n  model: {}\n" + matchRest,
			`$F:3: case "a": omeVersions[1]: must be an OME release such as v0.1.4, got a string ("latest")`},
		{"omeVersions twice", "cases:\n- name: a\n  omeVersions: [v0.1.4, 0.1.4]\n  model: {}\n" + matchRest,
			`$F:3: case "a": omeVersions[1]: names v0.1.4 twice`},
		{"file omeVersions not a list", "omeVersions: v0.1.4\ncases:\n- name: a\n  model: {}\n" + matchRest,
			`$F:1: omeVersions: must be a non-empty list of OME releases (such as v0.1.4), got a string ("v0.1.4")`},
		{"no compatible", "cases:\n- name: a\n  model: {}\n  runtime: {}\n  expect: {reason: x}\n", `$F:5: case "a": expect.compatible: is required in a match case`},
		{"expect not an object", "cases:\n- name: a\n  model: {}\n  runtime: {}\n  expect: x\n", `$F:5: case "a": expect: must be an object, got a string ("x")`},
		{"unknown expectation", "cases:\n- name: a\n  model: {}\n  runtime: {}\n  expect: {compatible: true, reasn: x}\n",
			`$F:5: case "a": expect.reasn: unknown expectation (known: compatible, reason, admitted, runtime, message, failures, variables, findings)`},
		{"compatible not a bool", "cases:\n- name: a\n  model: {}\n  runtime: {}\n  expect:\n    compatible: \"yes\"\n",
			`$F:6: case "a": expect.compatible: must be true or false, got a string ("yes")`},
		{"reason not a string", "cases:\n- name: a\n  model: {}\n  runtime: {}\n  expect:\n    compatible: false\n    reason: 5\n",
			`$F:7: case "a": expect.reason: must be a string, got a number (5)`},
		{"model not an object", "cases:\n- name: a\n  model: x\n" + matchRest, `$F:3: case "a": model: must be a model object, got a string ("x")`},
		{"rule case without object", "cases:\n- name: a\n  rule: r\n  expect: {findings: []}\n", `$F:2: case "a": object: is required in a rule case`},
		{"rule case without findings", "cases:\n- name: a\n  rule: r\n  object: {kind: ClusterServingRuntime, metadata: {name: x}, spec: {}}\n  expect: {}\n",
			`$F:5: case "a": expect.findings: is required in a rule case`},
		{"rule case findings not a list", "cases:\n- name: a\n  rule: r\n  object: {kind: ClusterServingRuntime, metadata: {name: x}, spec: {}}\n  expect: {findings: x}\n",
			`$F:5: case "a": expect.findings: must be a list of messages ([] for none), got a string ("x")`},
		{"rule case object without a kind", "cases:\n- name: a\n  rule: r\n  object: {metadata: {name: x}}\n  expect: {findings: []}\n",
			`$F:4: case "a": object.kind: is required (BaseModel, ClusterBaseModel, ServingRuntime, ClusterServingRuntime or InferenceService)`},
		{"rule case rule not a string", "cases:\n- name: a\n  rule: 3\n  object: {}\n  expect: {findings: []}\n",
			`$F:3: case "a": rule: must be the id of a team's rule (its Rego package or its policy's name), got a number (3)`},
		{"model failing checks", "cases:\n- name: a\n  model:\n    spec:\n      modelFormat: {name: s, version: 1.0}\n" + matchRest,
			`$F:5: case "a": model.spec.modelFormat.version: must be a string, got a number (1.0); quote it: "1.0"`},
		{"runtime failing checks", "cases:\n- name: a\n  model: {}\n  runtime:\n    spec:\n      supportedModelFormats: x\n  expect: {compatible: true}\n",
			`$F:6: case "a": runtime.spec.supportedModelFormats: must be a list, got a string ("x")`},
		{"model as runtime", "cases:\n- name: a\n  model: {}\n  runtime: {kind: BaseModel}\n  expect: {compatible: true}\n",
			`$F:4: case "a": runtime.kind: BaseModel is a model, but a runtime is expected here (ServingRuntime or ClusterServingRuntime)`},
		{"runtime as model", "cases:\n- name: a\n  model: {kind: ClusterServingRuntime}\n" + matchRest,
			`$F:3: case "a": model.kind: ClusterServingRuntime is a runtime, but a model is expected here (BaseModel or ClusterBaseModel)`},
		{"other kind", "cases:\n- name: a\n  model: {kind: Deployment}\n" + matchRest,
			`$F:3: case "a": model.kind: must be BaseModel or ClusterBaseModel, got a string ("Deployment")`},
		{"other apiVersion", "cases:\n- name: a\n  model: {apiVersion: v1}\n" + matchRest,
			`$F:3: case "a": model.apiVersion: must be ome.io/v1beta1, got a string ("v1")`},
		{"bad name", "cases:\n- name: a\n  model: {metadata: {name: 5}}\n" + matchRest,
			`$F:3: case "a": model.metadata.name: must be a non-empty string, got a number (5)`},
		// Selection cases.
		{"no objects", "cases:\n- name: s\n  inferenceService: {}\n  expect: {admitted: true}\n", `$F:2: case "s": objects: is required in a selection case`},
		{"no admitted", "cases:\n- name: s\n  inferenceService: {}\n  objects: []\n  expect: {message: m}\n", `$F:5: case "s": expect.admitted: is required in a selection case`},
		{"admitted not a bool", "cases:\n- name: s\n  inferenceService: {metadata: {name: x}}\n  objects: []\n  expect: {admitted: \"no\"}\n",
			`$F:5: case "s": expect.admitted: must be true or false, got a string ("no")`},
		{"runtime not a string", "cases:\n- name: s\n  inferenceService: {metadata: {name: x}}\n  objects: []\n  expect: {admitted: true, runtime: [a]}\n",
			`$F:5: case "s": expect.runtime: must be a string, got a list`},
		{"message not a string", "cases:\n- name: s\n  inferenceService: {metadata: {name: x}}\n  objects: []\n  expect: {admitted: false, message: {}}\n",
			`$F:5: case "s": expect.message: must be a string, got an object`},
		{"service not an object", "cases:\n- name: s\n  inferenceService: x\n  objects: []\n  expect: {admitted: true}\n",
			`$F:3: case "s": inferenceService: must be an inference service object, got a string ("x")`},
		{"service of another kind", "cases:\n- name: s\n  inferenceService: {kind: BaseModel, metadata: {name: x}}\n  objects: []\n  expect: {admitted: true}\n",
			`$F:3: case "s": inferenceService.kind: BaseModel is a model, but an inference service is expected here (InferenceService)`},
		{"service without name", "cases:\n- name: s\n  inferenceService: {spec: {}}\n  objects: []\n  expect: {admitted: true}\n",
			`$F:3: case "s": inferenceService.metadata.name: is required`},
		{"service failing checks", "cases:\n- name: s\n  inferenceService:\n    metadata: {name: x}\n    spec: {model: llama}\n  objects: []\n  expect: {admitted: true}\n",
			`$F:5: case "s": inferenceService.spec.model: must be an object with name, got a string ("llama")`},
		{"objects not a list", "cases:\n- name: s\n  inferenceService: {metadata: {name: x}}\n  objects: x\n  expect: {admitted: true}\n",
			`$F:4: case "s": objects: must be a list, got a string ("x")`},
		{"object not an object", selectionHead + "  - x\n", `$F:6: case "s": objects[0]: must be a model or runtime object, got a string ("x")`},
		{"object without kind", selectionHead + "  - metadata: {name: x}\n",
			`$F:6: case "s": objects[0].kind: is required (BaseModel, ClusterBaseModel, ServingRuntime or ClusterServingRuntime)`},
		{"object of another kind", selectionHead + "  - {kind: InferenceService, metadata: {name: x}}\n",
			`$F:6: case "s": objects[0].kind: InferenceService is an inference service, but a model or runtime is expected here (BaseModel, ClusterBaseModel, ServingRuntime or ClusterServingRuntime)`},
		{"object without name", selectionHead + "  - kind: BaseModel\n", `$F:6: case "s": objects[0].metadata.name: is required`},
		{"object failing checks", selectionHead + "  - {kind: BaseModel, metadata: {name: m}}\n  - kind: ServingRuntime\n    metadata: {name: r}\n    spec:\n      supportedModelFormats:\n      - modelFramework: {version: 4.0}\n",
			`$F:11: case "s": objects[1].spec.supportedModelFormats[0].modelFramework.version: must be a string, got a number (4.0); quote it: "4.0"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeTemp(t, "cases.yaml", tc.src)
			cases, err := ReadCases(path)
			require.Nil(t, cases)
			require.IsType(t, &objects.InputError{}, err)
			require.EqualError(t, err, strings.ReplaceAll(tc.want, "$F", path))
		})
	}

	_, err := ReadCases("testdata/nope.yaml")
	require.EqualError(t, err, "testdata/nope.yaml: no such file or directory")
}

func TestIsCaseFile(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      bool
		wantErr   string
	}{
		{"cases", "cases: []\n", true, ""},
		{"after an empty document", "---\n# nothing\n---\ncases:\n- name: a\n", true, ""},
		{"JSON", `{"x": 1, "cases": []}`, true, ""},
		{"objects", "apiVersion: ome.io/v1beta1\nkind: BaseModel\n", false, ""},
		{"nested cases", "spec:\n  cases: []\n", false, ""},
		{"in a later document", "kind: X\n---\ncases: []\n", false, ""},
		{"list", "- cases\n", false, ""},
		{"broken", "cases: [\n", false, "did not find expected node content"},
		{"binary", "cases: []\x00", false, "binary data"},
		{"empty", "", false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := IsCaseFile(writeTemp(t, "f.yaml", tc.src))
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
	dir := t.TempDir()
	_, err := IsCaseFile(filepath.Join(dir, "nope.yaml"))
	require.ErrorContains(t, err, "no such file")
	_, err = IsCaseFile(dir)
	require.Error(t, err)
	got, err := IsCaseFile(writeTemp(t, "objects.yaml", "apiVersion: ome.io/v1beta1\nkind: BaseModel\nmetadata: {name: a}\n---\napiVersion: ome.io/v1beta1\nkind: ClusterServingRuntime\nmetadata: {name: r}\n"))
	require.NoError(t, err)
	require.False(t, got)
}

// writeTemp writes content to a fresh file and returns its path.
func writeTemp(t testing.TB, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	return p
}

func TestOMEVersions(t *testing.T) {
	const file = "omeVersions: [0.1.5, v1.2.2]\ncases:\n" +
		"- name: file's\n  model: {}\n  runtime: {}\n  expect: {compatible: true}\n" +
		"- name: own\n  omeVersions: [v0.1.4]\n  model: {}\n  runtime: {}\n  expect: {compatible: true}\n"
	list, err := ParseCases("c.yaml", []byte(file))
	require.NoError(t, err)
	require.Equal(t, []string{"v0.1.5", "v1.2.2"}, list[0].OMEVersions)
	require.Equal(t, 1, list[0].OMEVersionsLine)
	require.Equal(t, []string{"v0.1.4"}, list[1].OMEVersions)
	require.Equal(t, 8, list[1].OMEVersionsLine)
	require.True(t, list[0].HoldsFor("v1.2.2"))
	require.False(t, list[0].HoldsFor("v0.1.4"))
	require.Len(t, ForRelease(list, "v0.1.4"), 1)

	require.NoError(t, CheckReleases(list, []string{"v1.2.2", "v0.1.5", "v0.1.4"}))
	err = CheckReleases(list, []string{"v1.2.2", "v0.1.5"})
	require.EqualError(t, err, `c.yaml:8: case "own": omeVersions: names v0.1.4, which is not an OME release the policies state (v1.2.2, v0.1.5)`)
	err = CheckReleases(list, []string{"v1.2.2", "v0.1.4"})
	require.EqualError(t, err, `c.yaml:1: omeVersions: names v0.1.5, which is not an OME release the policies state (v1.2.2, v0.1.4)`,
		"the file's omeVersions is said at its own line, not as the first case's")
	_, err = ParseCases("e.yaml", []byte("# the releases\nomeVersions: [1]\ncases:\n- name: a\n  model: {}\n  runtime: {}\n  expect: {compatible: true}\n"))
	require.EqualError(t, err, `e.yaml:2: omeVersions[0]: must be an OME release such as v0.1.4, got a number (1)`)
	all, err := ParseCases("d.yaml", []byte("cases:\n- name: a\n  model: {}\n  runtime: {}\n  expect: {compatible: true}\n"))
	require.NoError(t, err)
	require.Nil(t, all[0].OMEVersions, "no omeVersions: every release")
	require.True(t, all[0].HoldsFor("v0.1.4"))
}
