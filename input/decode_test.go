package input

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/ome-policy/evaluator/objects"
)

// writeTemp writes content to a fresh file and returns its path.
func writeTemp(t testing.TB, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	return p
}

func TestLoadMultiDocument(t *testing.T) {
	var notices bytes.Buffer
	objs, err := Load([]string{"testdata/load/multi.yaml"}, LoadOptions{Notices: &notices})
	require.NoError(t, err)
	require.Len(t, objs, 2)

	rt, m := objs[0], objs[1]
	require.Equal(t, "ClusterServingRuntime/srt-a", rt.Ref())
	require.Equal(t, "", rt.Namespace, "a cluster-scoped object has no namespace")
	require.Equal(t, 11, rt.Line)
	require.True(t, rt.IsRuntime())
	require.False(t, rt.IsModel())
	require.Equal(t, "testdata/load/multi.yaml", rt.File)
	require.Equal(t, objects.APIVersion, rt.APIVersion)
	entry := rt.Spec()["supportedModelFormats"].([]any)[0].(map[string]any)
	require.Equal(t, true, entry["autoSelect"])
	require.Equal(t, int64(2), entry["priority"])

	require.Equal(t, "BaseModel/team-a/llama", m.Ref())
	require.Equal(t, 37, m.Line)
	require.True(t, m.IsModel())
	require.Equal(t, "8B", m.Spec()["modelParameterSize"])

	require.Equal(t, ""+
		"testdata/load/multi.yaml:4: notice: skipping ConfigMap/cm (not an OME object)\n"+
		"testdata/load/multi.yaml:29: notice: skipping ServingRuntime/kserve-rt (apiVersion \"serving.kserve.io/v1alpha1\", not ome.io/v1beta1)\n"+
		"testdata/load/multi.yaml:49: notice: skipping Unknown (not an OME object)\n",
		notices.String())
}

func TestLoadList(t *testing.T) {
	var notices bytes.Buffer
	objs, err := Load([]string{"testdata/load/list.yaml"}, LoadOptions{Notices: &notices})
	require.NoError(t, err)
	var refs []string
	var lines []int
	for _, o := range objs {
		refs = append(refs, o.Ref())
		lines = append(lines, o.Line)
	}
	require.Equal(t, []string{"ClusterBaseModel/first", "ServingRuntime/team-b/nested", "InferenceService/team-a/svc"}, refs)
	require.Equal(t, []int{4, 18, 28}, lines)
	require.Equal(t, "testdata/load/list.yaml:11: notice: skipping Deployment/web (not an OME object)\n", notices.String())

	// Positions of list items are relative to the item.
	nested := objs[1]
	require.Equal(t, 27, nested.Pos.At("spec.supportedModelFormats[0].modelFramework.version").Line)
	require.Equal(t, "testdata/load/list.yaml:27: spec.supportedModelFormats[0].modelFramework.version",
		nested.Where("spec.supportedModelFormats[0].modelFramework.version"))
	require.Equal(t, map[string]any{"ome.io/deploymentMode": "RawDeployment"},
		objs[2].Value["metadata"].(map[string]any)["annotations"])
}

func TestLoadDirectoryOrder(t *testing.T) {
	objs, err := Load([]string{"testdata/load/dir", "testdata/load/dir/b.yaml"}, LoadOptions{})
	require.NoError(t, err)
	var got []string
	for _, o := range objs {
		got = append(got, o.File+" "+o.Name)
	}
	// Whole paths in lexical order ('-' sorts before '/'), notes.txt skipped;
	// a file named explicitly is read whatever it is called.
	require.Equal(t, []string{
		"testdata/load/dir/a-b.json ab",
		"testdata/load/dir/a/z.yml az",
		"testdata/load/dir/b.yaml b",
		"testdata/load/dir/b.yaml b",
	}, got)

	objs, err = Load([]string{"testdata/load/dir/notes.txt"}, LoadOptions{})
	require.NoError(t, err)
	require.Len(t, objs, 1)
}

func TestLoadStdin(t *testing.T) {
	src := "apiVersion: ome.io/v1beta1\nkind: ClusterBaseModel\nmetadata:\n  name: from-stdin\n"
	objs, err := Load([]string{"-"}, LoadOptions{Stdin: strings.NewReader(src)})
	require.NoError(t, err)
	require.Len(t, objs, 1)
	require.Equal(t, "<stdin>", objs[0].File)
	require.Equal(t, "<stdin>:4: metadata.name", objs[0].Where("metadata.name"))

	_, err = Load([]string{"-"}, LoadOptions{Stdin: strings.NewReader("spec: [\n")})
	require.ErrorContains(t, err, "<stdin>:")
}

func TestLoadMissingPath(t *testing.T) {
	_, err := Load([]string{"testdata/load/multi.yaml", "testdata/load/nope.yaml"}, LoadOptions{})
	require.Equal(t, &objects.InputError{File: "testdata/load/nope.yaml", Msg: "no such file or directory"}, err)
	require.EqualError(t, err, "testdata/load/nope.yaml: no such file or directory")

	// An empty directory is not an error here; the caller decides.
	objs, err := Load([]string{t.TempDir()}, LoadOptions{})
	require.NoError(t, err)
	require.Empty(t, objs)
}

func TestLoadNormalisation(t *testing.T) {
	objs, err := Load([]string{"testdata/load/nulls.yaml"}, LoadOptions{})
	require.NoError(t, err)
	o := objs[0]
	require.Equal(t, map[string]any{"name": "nulls"}, o.Value["metadata"], "labels: ~ is unset")
	spec := o.Spec()
	require.Equal(t, map[string]any{"name": "safetensors"}, spec["modelFormat"], "version: null is unset")
	require.NotContains(t, spec, "modelFramework")
	require.Equal(t, map[string]any{
		"className": "QwenImagePipeline",
		"additionalComponents": map[string]any{
			"processor": map[string]any{},
			"image":     map[string]any{"library": "diffusers", "type": "ImageProcessor"},
		},
	}, spec["diffusionPipeline"], "vae: (empty) is unset; an additional component given as null is present")
	require.Equal(t, []any{int64(1), nil, 2.5, true, "2001-12-14", "s", int64(16), "3", float64(1)}, spec["scalars"])
	require.Equal(t, "1.0", o.Pos.At("spec.scalars[8]").Raw)
	require.Equal(t, "0x10", o.Pos.At("spec.scalars[6]").Raw)
	_, kept := o.Pos.Lookup("spec.modelFramework")
	require.False(t, kept, "no position is left for a dropped field")
}

func TestLoadMergeKeys(t *testing.T) {
	objs, err := Load([]string{"testdata/load/merge.yaml"}, LoadOptions{})
	require.NoError(t, err)
	o := objs[0]
	entries := o.Spec()["supportedModelFormats"].([]any)
	// Explicit keys win; of the merge sources, the first wins.
	require.Equal(t, map[string]any{"name": "transformers", "version": "4.50.0", "operator": "Equal", "weight": int64(2)},
		entries[0].(map[string]any)["modelFramework"])
	// An explicit null unsets a merged key; an alias is expanded.
	require.Equal(t, map[string]any{"name": "transformers", "version": "4.45.0"},
		entries[1].(map[string]any)["modelFramework"])
	require.Equal(t, map[string]any{"name": "safetensors", "version": "1.0.0"},
		entries[1].(map[string]any)["modelFormat"])

	require.Equal(t, 17, o.Pos.At("spec.supportedModelFormats[0].modelFramework.version").Line)
	require.Equal(t, 7, o.Pos.At("spec.supportedModelFormats[0].modelFramework.name").Line, "merged fields keep their source position")
	require.Equal(t, 12, o.Pos.At("spec.supportedModelFormats[0].modelFramework.weight").Line)
	_, kept := o.Pos.Lookup("spec.supportedModelFormats[1].modelFramework.operator")
	require.False(t, kept)
	require.Equal(t, 14, o.Pos.At("spec.supportedModelFormats[1].modelFormat.name").Line)
}

func TestLoadPositions(t *testing.T) {
	objs, err := Load([]string{"testdata/load/positions.yaml"}, LoadOptions{})
	require.NoError(t, err)
	o := objs[0]
	require.Equal(t, 1, o.Line)
	require.Equal(t, objects.Pos{Line: 12, Column: 18}, o.Pos.At("spec.supportedModelFormats[0].modelFramework.version"))
	require.Equal(t, 13, o.Pos.At("spec.supportedModelFormats[1].modelFramework.version").Line)
	require.Equal(t, objects.Pos{Line: 6, Column: 3}, o.Pos.At("spec.supportedModelFormats"), "a collection sits at its key")
	require.Equal(t, objects.Pos{Line: 7, Column: 7}, o.Pos.At("spec.supportedModelFormats[0]"))
	require.Equal(t, objects.Pos{Line: 4, Column: 9}, o.Pos.At("metadata.name"), "a string's source text is its value")

	for field, want := range map[string]string{
		"spec.modelSizeRange.max": "testdata/load/positions.yaml:16: spec.modelSizeRange.max",
		// Absent fields borrow the line of the nearest present parent.
		"spec.supportedModelFormats[0].modelFramework.operator": "testdata/load/positions.yaml:10: spec.supportedModelFormats[0].modelFramework.operator",
		"spec.supportedModelFormats[5].name":                    "testdata/load/positions.yaml:6: spec.supportedModelFormats[5].name",
		"nothing.here":                                          "testdata/load/positions.yaml:1: nothing.here",
		"":                                                      "testdata/load/positions.yaml:1",
	} {
		require.Equal(t, want, o.Where(field), field)
	}
}

func TestDecodeValuePrefix(t *testing.T) {
	var doc yaml.Node
	require.NoError(t, yaml.Unmarshal([]byte("a:\n  b: [1, x]\n  \"c.d\": {e: 2}\n"), &doc))
	v, pos, err := objects.DecodeValue("f.yaml", &doc, "root")
	require.NoError(t, err)
	require.Equal(t, map[string]any{"a": map[string]any{"b": []any{int64(1), "x"}, "c.d": map[string]any{"e": int64(2)}}}, v)
	require.Equal(t, 2, pos.At("root.a.b[1]").Line)
	require.Equal(t, 3, pos.At(`root.a["c.d"].e`).Line, "keys with dots are quoted in paths")
	require.Equal(t, 1, pos.At("root").Line)

	// An integer past int64 is kept as a number, its text in Raw.
	require.NoError(t, yaml.Unmarshal([]byte("n: 18446744073709551615\n"), &doc))
	v, pos, err = objects.DecodeValue("f.yaml", &doc, "")
	require.NoError(t, err)
	require.Equal(t, map[string]any{"n": float64(18446744073709551615)}, v)
	require.Equal(t, "18446744073709551615", pos.At("n").Raw)

	v, pos, err = objects.DecodeValue("f.yaml", nil, "")
	require.NoError(t, err)
	require.Nil(t, v)
	require.Empty(t, pos)
}

const (
	rtHead    = "apiVersion: ome.io/v1beta1\nkind: ClusterServingRuntime\nmetadata:\n  name: rt\nspec:\n"
	modelHead = "apiVersion: ome.io/v1beta1\nkind: ClusterBaseModel\nmetadata:\n  name: m\nspec:\n"
	isvcHead  = "apiVersion: ome.io/v1beta1\nkind: InferenceService\nmetadata:\n  name: svc\n"
)

func TestLoadErrors(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		// Versions YAML reads as something else than a string.
		{"float framework version", rtHead + "  supportedModelFormats:\n  - modelFormat:\n      name: safetensors\n      version: \"1.0.0\"\n    modelFramework:\n      name: transformers\n      version: 4.0\n",
			`$F:12: spec.supportedModelFormats[0].modelFramework.version: must be a string, got a number (4.0); quote it: "4.0"`},
		{"float model version", modelHead + "  modelFormat:\n    name: safetensors\n    version: 1.0\n",
			`$F:8: spec.modelFormat.version: must be a string, got a number (1.0); quote it: "1.0"`},
		{"int version", modelHead + "  modelFramework: {name: t, version: 4}\n",
			`$F:6: spec.modelFramework.version: must be a string, got a number (4); quote it: "4"`},
		{"bool version", rtHead + "  supportedModelFormats:\n  - {modelFramework: {name: t, version: true}}\n",
			`$F:7: spec.supportedModelFormats[0].modelFramework.version: must be a string, got a boolean (true); quote it: "true"`},
		{"list version", modelHead + "  modelFormat: {name: s, version: [1]}\n", `$F:6: spec.modelFormat.version: must be a string, got a list`},
		{"object version", modelHead + "  modelFormat: {name: s, version: {a: 1}}\n", `$F:6: spec.modelFormat.version: must be a string, got an object`},
		{"entry version", rtHead + "  supportedModelFormats:\n  - version: 1.10\n",
			`$F:7: spec.supportedModelFormats[0].version: must be a string, got a number (1.10); quote it: "1.10"`},
		// Model spec.
		{"model format string", modelHead + "  modelFormat: safetensors\n",
			`$F:6: spec.modelFormat: must be an object with name and version, got a string ("safetensors")`},
		{"model format name", modelHead + "  modelFormat: {name: [a]}\n", `$F:6: spec.modelFormat.name: must be a string, got a list`},
		{"model format operator", modelHead + "  modelFormat: {operator: 1}\n", `$F:6: spec.modelFormat.operator: must be a string, got a number (1); quote it: "1"`},
		{"model format weight", modelHead + "  modelFormat: {weight: 1.5}\n", `$F:6: spec.modelFormat.weight: must be an integer, got a number (1.5)`},
		{"model architecture", modelHead + "  modelArchitecture: {a: b}\n", `$F:6: spec.modelArchitecture: must be a string, got an object`},
		{"model quantization", modelHead + "  quantization: 8\n", `$F:6: spec.quantization: must be a string, got a number (8); quote it: "8"`},
		{"model size", modelHead + "  modelParameterSize: 7\n", `$F:6: spec.modelParameterSize: must be a string, got a number (7); quote it: "7"`},
		{"model type", modelHead + "  modelType: false\n", `$F:6: spec.modelType: must be a string, got a boolean (false); quote it: "false"`},
		{"model disabled", modelHead + "  disabled: \"no\"\n", `$F:6: spec.disabled: must be true or false, got a string ("no")`},
		{"model spec list", modelHead + "  - a\n", `$F:5: spec: must be an object, got a list`},
		{"pipeline string", modelHead + "  diffusionPipeline: x\n", `$F:6: spec.diffusionPipeline: must be an object, got a string ("x")`},
		{"pipeline class", modelHead + "  diffusionPipeline: {className: 1}\n", `$F:6: spec.diffusionPipeline.className: must be a string, got a number (1); quote it: "1"`},
		{"pipeline component", modelHead + "  diffusionPipeline:\n    scheduler: x\n",
			`$F:7: spec.diffusionPipeline.scheduler: must be an object with library and type, got a string ("x")`},
		{"pipeline component type", modelHead + "  diffusionPipeline:\n    vae: {library: d, type: [x]}\n", `$F:7: spec.diffusionPipeline.vae.type: must be a string, got a list`},
		{"additional components list", modelHead + "  diffusionPipeline: {additionalComponents: [a]}\n",
			`$F:6: spec.diffusionPipeline.additionalComponents: must be an object, got a list`},
		{"additional component library", modelHead + "  diffusionPipeline:\n    additionalComponents:\n      proc: {library: 1}\n",
			`$F:8: spec.diffusionPipeline.additionalComponents.proc.library: must be a string, got a number (1); quote it: "1"`},
		{"additional component string", modelHead + "  diffusionPipeline:\n    additionalComponents:\n      proc: x\n",
			`$F:8: spec.diffusionPipeline.additionalComponents.proc: must be an object with library and type, got a string ("x")`},
		{"first error in field order", modelHead + "  modelFramework: {version: 1}\n  modelFormat: {version: 2}\n",
			`$F:7: spec.modelFormat.version: must be a string, got a number (2); quote it: "2"`},
		// Runtime spec.
		{"formats not a list", rtHead + "  supportedModelFormats: notalist\n", `$F:6: spec.supportedModelFormats: must be a list, got a string ("notalist")`},
		{"entry not an object", rtHead + "  supportedModelFormats: [x]\n", `$F:6: spec.supportedModelFormats[0]: must be an object, got a string ("x")`},
		{"entry null", rtHead + "  supportedModelFormats: [~]\n", `$F:6: spec.supportedModelFormats[0]: must be an object, got null`},
		{"entry name", rtHead + "  supportedModelFormats:\n  - name: 3\n", `$F:7: spec.supportedModelFormats[0].name: must be a string, got a number (3); quote it: "3"`},
		{"entry model type", rtHead + "  supportedModelFormats:\n  - modelType: [a]\n", `$F:7: spec.supportedModelFormats[0].modelType: must be a string, got a list`},
		{"entry architecture", rtHead + "  supportedModelFormats:\n  - modelArchitecture: 1\n", `$F:7: spec.supportedModelFormats[0].modelArchitecture: must be a string, got a number (1); quote it: "1"`},
		{"entry quantization", rtHead + "  supportedModelFormats:\n  - quantization: {}\n", `$F:7: spec.supportedModelFormats[0].quantization: must be a string, got an object`},
		{"entry format string", rtHead + "  supportedModelFormats:\n  - modelFormat: safetensors\n",
			`$F:7: spec.supportedModelFormats[0].modelFormat: must be an object with name and version, got a string ("safetensors")`},
		{"entry framework weight", rtHead + "  supportedModelFormats:\n  - modelFramework: {name: t, weight: \"2\"}\n",
			`$F:7: spec.supportedModelFormats[0].modelFramework.weight: must be an integer, got a string ("2")`},
		{"entry pipeline", rtHead + "  supportedModelFormats:\n  - diffusionPipeline: {tokenizer: {library: 1}}\n",
			`$F:7: spec.supportedModelFormats[0].diffusionPipeline.tokenizer.library: must be a string, got a number (1); quote it: "1"`},
		{"entry autoSelect", rtHead + "  supportedModelFormats:\n  - autoSelect: \"yes\"\n",
			`$F:7: spec.supportedModelFormats[0].autoSelect: must be true or false, got a string ("yes")`},
		{"entry priority", rtHead + "  supportedModelFormats:\n  - priority: 1.5\n", `$F:7: spec.supportedModelFormats[0].priority: must be an integer, got a number (1.5)`},
		{"runtime disabled", rtHead + "  disabled: 1\n", `$F:6: spec.disabled: must be true or false, got a number (1)`},
		{"size range string", rtHead + "  modelSizeRange: 7B\n", `$F:6: spec.modelSizeRange: must be an object with min and max, got a string ("7B")`},
		{"size range min", rtHead + "  modelSizeRange: {min: 1, max: 7B}\n", `$F:6: spec.modelSizeRange.min: must be a string, got a number (1); quote it: "1"`},
		{"size range max", rtHead + "  modelSizeRange:\n    max: true\n", `$F:7: spec.modelSizeRange.max: must be a string, got a boolean (true); quote it: "true"`},
		{"accelerators list", rtHead + "  acceleratorRequirements: [a]\n", `$F:6: spec.acceleratorRequirements: must be an object with acceleratorClasses, got a list`},
		{"accelerator classes string", rtHead + "  acceleratorRequirements: {acceleratorClasses: a100}\n",
			`$F:6: spec.acceleratorRequirements.acceleratorClasses: must be a list, got a string ("a100")`},
		{"accelerator class number", rtHead + "  acceleratorRequirements:\n    acceleratorClasses:\n    - a100\n    - 3\n",
			`$F:9: spec.acceleratorRequirements.acceleratorClasses[1]: must be a string, got a number (3); quote it: "3"`},
		// InferenceService and metadata.
		{"isvc spec string", isvcHead + "spec: x\n", `$F:5: spec: must be an object, got a string ("x")`},
		{"isvc model string", isvcHead + "spec:\n  model: llama\n", `$F:6: spec.model: must be an object with name, got a string ("llama")`},
		{"isvc model name", isvcHead + "spec:\n  model: {name: [x]}\n", `$F:6: spec.model.name: must be a string, got a list`},
		{"isvc runtime name", isvcHead + "spec:\n  runtime: {name: 5}\n", `$F:6: spec.runtime.name: must be a string, got a number (5); quote it: "5"`},
		{"isvc runtime string", isvcHead + "spec:\n  runtime: x\n", `$F:6: spec.runtime: must be an object with name, got a string ("x")`},
		{"isvc engine", isvcHead + "spec:\n  engine: []\n", `$F:6: spec.engine: must be an object, got a list`},
		{"isvc decoder", isvcHead + "spec:\n  decoder: x\n", `$F:6: spec.decoder: must be an object, got a string ("x")`},
		{"isvc accelerator override", isvcHead + "spec:\n  engine:\n    acceleratorOverride: {acceleratorClass: 1}\n",
			`$F:7: spec.engine.acceleratorOverride.acceleratorClass: must be a string, got a number (1); quote it: "1"`},
		{"isvc accelerator selector", isvcHead + "spec:\n  acceleratorSelector: a100\n",
			`$F:6: spec.acceleratorSelector: must be an object with acceleratorClass, got a string ("a100")`},
		{"isvc keda threshold", isvcHead + "spec:\n  kedaConfig: {scalingThreshold: 80}\n",
			`$F:6: spec.kedaConfig.scalingThreshold: must be a string, got a number (80); quote it: "80"`},
		{"namespace", isvcHead + "  namespace: 5\n", `$F:5: metadata.namespace: must be a string, got a number (5); quote it: "5"`},
		{"annotations list", isvcHead + "  annotations: [a]\n", `$F:5: metadata.annotations: must be an object, got a list`},
		{"annotation value", isvcHead + "  annotations:\n    ome.io/x: true\n",
			`$F:6: metadata.annotations["ome.io/x"]: must be a string, got a boolean (true); quote it: "true"`},
		{"label value", "apiVersion: ome.io/v1beta1\nkind: ClusterBaseModel\nmetadata:\n  name: m\n  labels:\n    tier: 1\n",
			`$F:6: metadata.labels.tier: must be a string, got a number (1); quote it: "1"`},
		{"name missing", "apiVersion: ome.io/v1beta1\nkind: ClusterBaseModel\nmetadata: {}\nspec: {}\n", `$F:1: metadata.name: is required`},
		{"metadata not an object", "apiVersion: ome.io/v1beta1\nkind: ClusterBaseModel\nmetadata: x\n", `$F:1: metadata.name: is required`},
		{"name number", "apiVersion: ome.io/v1beta1\nkind: BaseModel\nmetadata:\n  name: 5\n", `$F:1: metadata.name: must be a non-empty string, got a number (5)`},
		{"name empty", "apiVersion: ome.io/v1beta1\nkind: BaseModel\nmetadata:\n  name: \"\"\n", `$F:1: metadata.name: must be a non-empty string, got a string ("")`},
		{"name missing in later document", "kind: ConfigMap\n---\n\napiVersion: ome.io/v1beta1\nkind: ServingRuntime\n", `$F:4: metadata.name: is required`},
		// Lists.
		{"list items not a list", "apiVersion: v1\nkind: List\nitems: x\n", `$F:3: items: must be a list, got a string ("x")`},
		{"list item not an object", "apiVersion: v1\nkind: List\nitems:\n- a\n", `$F:4: items[0]: must be an object, got a string ("a")`},
		{"list item field", "apiVersion: v1\nkind: List\nitems:\n- apiVersion: ome.io/v1beta1\n  kind: ClusterBaseModel\n  metadata: {name: m}\n  spec: {modelFormat: {version: 1.0}}\n",
			`$F:7: spec.modelFormat.version: must be a string, got a number (1.0); quote it: "1.0"`},
		// Decoding.
		{"int key", modelHead + "  1: x\n", `$F:6: spec: mapping keys must be strings, got a number (1); quote it: "1"`},
		{"bool key", "true: x\n", `$F:1: mapping keys must be strings, got a boolean (true); quote it: "true"`},
		{"list key", modelHead + "  ? [a]\n  : x\n", `$F:6: spec: mapping keys must be strings, got a list`},
		{"duplicate key", modelHead + "  modelType: a\n  modelType: b\n", `$F:7: spec.modelType: duplicate key (first at line 6)`},
		// Past 16 keys, the keys met are also kept in a map.
		{"duplicate key among many", modelHead + "  k01: 1\n  k02: 1\n  k03: 1\n  k04: 1\n  k05: 1\n  k06: 1\n  k07: 1\n  k08: 1\n" +
			"  k09: 1\n  k10: 1\n  k11: 1\n  k12: 1\n  k13: 1\n  k14: 1\n  k15: 1\n  k16: 1\n  k17: 1\n  k03: 2\n",
			`$F:23: spec.k03: duplicate key (first at line 8)`},
		{"duplicate key after many", modelHead + "  k01: 1\n  k02: 1\n  k03: 1\n  k04: 1\n  k05: 1\n  k06: 1\n  k07: 1\n  k08: 1\n" +
			"  k09: 1\n  k10: 1\n  k11: 1\n  k12: 1\n  k13: 1\n  k14: 1\n  k15: 1\n  k16: 1\n  k17: 1\n  k17: 2\n",
			`$F:23: spec.k17: duplicate key (first at line 22)`},
		{"bad merge", modelHead + "  <<: x\n", `$F:6: spec: a merge key (<<) needs an object or a list of objects`},
		{"bad merge item", modelHead + "  <<: [x]\n", `$F:6: spec: a merge key (<<) needs an object or a list of objects`},
		{"bad int", modelHead + "  x: !!int foo\n", "$F:6: spec.x: cannot decode !!str `foo` as a !!int"},
		{"syntax error", "a: b\n  c: d\n", `$F:2: mapping values are not allowed in this context`},
		// The line where the parser met the problem (the end, after line
		// 3), and the line where what it was reading ('[') starts.
		{"syntax error later", "a: b\n---\nc: [d\n", `$F:4: did not find expected ',' or ']' (while reading from line 3)`},
		// The bad indentation is on line 5 (the parser's own line), in the
		// list that starts on line 3.
		{"bad indentation", "a:\n  b:\n    - name: x\n      version: \"1\"\n     autoSelect: true\n",
			`$F:5: did not find expected '-' indicator (while reading from line 3)`},
		{"bad indentation of a key", "a: 1\nb:\n  - x\n c: 2\n", `$F:4: did not find expected key`},
		// A quoted string without its end: the end of the file, and the line the string starts on.
		{"unclosed quote", "a: 1\nb: \"abc\n  def\nc: d\n", `$F:5: found unexpected end of stream (while reading from line 2)`},
		// Unknown kinds of ome.io/v1beta1: the API server refuses them.
		{"misspelled kind", "apiVersion: ome.io/v1beta1\nkind: ClusterServingRuntimes\nmetadata: {name: x}\n",
			`$F:2: kind: ome.io/v1beta1 has no kind "ClusterServingRuntimes": the API server refuses it (no matches for kind); did you mean ClusterServingRuntime?`},
		{"kind in lower case", "apiVersion: ome.io/v1beta1\nkind: inferenceservice\nmetadata: {name: x}\n",
			`$F:2: kind: ome.io/v1beta1 has no kind "inferenceservice": the API server refuses it (no matches for kind); did you mean InferenceService?`},
		{"kind far from any", "apiVersion: ome.io/v1beta1\nkind: Widget\nmetadata: {name: x}\n",
			`$F:2: kind: ome.io/v1beta1 has no kind "Widget": the API server refuses it (no matches for kind)`},
		{"no kind", "apiVersion: ome.io/v1beta1\nmetadata: {name: x}\n",
			`$F:1: kind: is required: the API server refuses an object without a kind`},
		{"misspelled kind in a typed list", "apiVersion: ome.io/v1beta1\nkind: BaseModelsList\nitems:\n- metadata: {name: x}\n",
			`$F:4: kind: ome.io/v1beta1 has no kind "BaseModels": the API server refuses it (no matches for kind); did you mean BaseModel?`},
		{"unknown anchor", "a: *nope\n", `$F:1: unknown anchor 'nope' referenced`},
		{"scalar document", "just text\n", `$F:1: document is not an object`},
		{"list document", "kind: X\n---\n- a\n- b\n", `$F:3: document is not an object`},
		{"NUL byte", "kind: X\x00\n", `$F: not a YAML or JSON file (binary data)`},
		{"invalid UTF-8", "kind: \xff\xfe\n", `$F: not a YAML or JSON file (binary data)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeTemp(t, "in.yaml", tc.src)
			objs, err := Load([]string{path}, LoadOptions{})
			require.Nil(t, objs)
			require.IsType(t, &objects.InputError{}, err)
			require.EqualError(t, err, strings.ReplaceAll(tc.want, "$F", path))
		})
	}
}

func TestLoadStopsAtFirstFile(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.yaml"), []byte(modelHead+"  quantization: 1\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "b.yaml"), []byte("a: [\n"), 0o644))
	_, err := Load([]string{dir}, LoadOptions{})
	require.ErrorContains(t, err, "a.yaml:6: spec.quantization:")
}

func TestLoadLenient(t *testing.T) {
	src := modelHead + "  modelFormat:\n    name: safetensors\n    version: 1.0\n  disabled: \"no\"\n"
	path := writeTemp(t, "m.yaml", src)
	objs, err := Load([]string{path}, LoadOptions{Lenient: true})
	require.NoError(t, err)
	require.Equal(t, float64(1), objs[0].Spec()["modelFormat"].(map[string]any)["version"])
	require.Equal(t, "1.0", objs[0].Pos.At("spec.modelFormat.version").Raw)
	require.Equal(t, path+":8: spec.modelFormat.version", objs[0].Where("spec.modelFormat.version"))

	// A spec of the wrong type is kept as it is; Spec() still gives a map.
	objs, err = Load([]string{writeTemp(t, "s.yaml", modelHead+"  - a\n")}, LoadOptions{Lenient: true})
	require.NoError(t, err)
	require.Equal(t, map[string]any{}, objs[0].Spec())

	// Names and YAML are still required.
	_, err = Load([]string{writeTemp(t, "n.yaml", "apiVersion: ome.io/v1beta1\nkind: BaseModel\n")}, LoadOptions{Lenient: true})
	require.ErrorContains(t, err, "metadata.name: is required")
	_, err = Load([]string{writeTemp(t, "y.yaml", "a: [\n")}, LoadOptions{Lenient: true})
	require.ErrorContains(t, err, "did not find expected")
}

// nest returns a flow list nested n levels deep.
func nest(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }

// bomb returns a document whose aliases expand to about 10^levels nodes.
func bomb(levels int) string {
	var b strings.Builder
	b.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < levels; i++ {
		p := fmt.Sprintf("*a%d", i-1)
		fmt.Fprintf(&b, "a%d: &a%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(p+", ", 10), ", "))
	}
	return b.String()
}

func TestDecodeBounds(t *testing.T) {
	decode := func(src string) (any, error) {
		var doc yaml.Node
		require.NoError(t, yaml.Unmarshal([]byte(src), &doc))
		v, _, err := objects.DecodeValue("f.yaml", &doc, "")
		return v, err
	}
	_, err := decode(nest(100))
	require.NoError(t, err, "100 levels are fine")
	_, err = decode(nest(101))
	require.EqualError(t, err, "f.yaml:1: nesting deeper than 100 levels")
	_, err = decode("a:\n  b: " + nest(99) + "\n")
	require.EqualError(t, err, "f.yaml:2: nesting deeper than 100 levels", "the mappings count too")
	// Depth reached through an alias counts where the alias is used.
	_, err = decode("a: &x " + nest(60) + "\nb: [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[*x]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]\n")
	require.ErrorContains(t, err, "nesting deeper than 100 levels")
	_, err = decode("a: &x [*x]\n")
	require.EqualError(t, err, "f.yaml:1: nesting deeper than 100 levels", "an alias cycle nests without end")

	v, err := decode(bomb(5)) // about 111,000 nodes
	require.NoError(t, err)
	require.Len(t, v.(map[string]any)["a4"], 10)
	_, err = decode(bomb(7)) // about 11 million nodes
	require.ErrorContains(t, err, "document expands to more than 1000000 nodes (YAML alias bomb?)")

	// Through Load too, with the file named.
	path := writeTemp(t, "bomb.yaml", bomb(9))
	_, err = Load([]string{path}, LoadOptions{Lenient: true})
	require.ErrorContains(t, err, path+":")
	require.ErrorContains(t, err, "(YAML alias bomb?)")
	path = writeTemp(t, "deep.yaml", "spec:\n  x: "+nest(200)+"\n")
	_, err = Load([]string{path}, LoadOptions{Lenient: true})
	require.EqualError(t, err, path+":2: nesting deeper than 100 levels")
	// yaml.v3's own limit still applies far beyond ours.
	_, err = Load([]string{writeTemp(t, "deeper.yaml", nest(20000))}, LoadOptions{})
	require.ErrorContains(t, err, "exceeded max depth")
}

func TestLoadSizeBound(t *testing.T) {
	// A sparse file just over the bound: refused before it is read.
	path := filepath.Join(t.TempDir(), "big.yaml")
	f, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(64<<20+1))
	require.NoError(t, f.Close())
	_, err = Load([]string{path}, LoadOptions{})
	require.EqualError(t, err, path+": file is larger than 64 MiB")

	// Standard input has no size to ask for: it is read up to the bound.
	big := io.LimitReader(repeatReader('#'), 64<<20+1)
	_, err = Load([]string{"-"}, LoadOptions{Stdin: big})
	require.EqualError(t, err, "<stdin>: file is larger than 64 MiB")
}

type repeatReader byte

func (r repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

func FuzzDecode(f *testing.F) {
	for _, name := range []string{"multi.yaml", "list.yaml", "positions.yaml", "merge.yaml", "nulls.yaml", "dir/a-b.json"} {
		data, err := os.ReadFile(filepath.Join("testdata/load", name))
		require.NoError(f, err)
		f.Add(data)
	}
	f.Add([]byte(bomb(3)))
	f.Add([]byte("a: &x [*x]\n"))
	f.Add([]byte(rtHead + "  supportedModelFormats: [{modelFramework: {version: 1.0}}]\n"))
	f.Add([]byte("apiVersion: v1\nkind: List\nitems: [{kind: List, items: [~]}]\n"))
	f.Add([]byte("<<: {a: 1}\n? [b]\n: c\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, lenient := range []bool{false, true} {
			objs, err := Load([]string{"-"}, LoadOptions{Stdin: bytes.NewReader(data), Lenient: lenient, Notices: io.Discard})
			if err != nil {
				require.Nil(t, objs)
				require.IsType(t, &objects.InputError{}, err)
				// A recovered panic would hide a bug from the fuzzer.
				require.NotContains(t, err.Error(), "internal error")
				continue
			}
			for _, o := range objs {
				require.NotEmpty(t, o.Name)
				require.True(t, objects.IsOMEKind(o.Kind))
				require.NotNil(t, o.Spec())
				if !lenient {
					require.NoError(t, objects.CheckObject(o))
				}
			}
		}
	})
}

// BenchmarkLoadCatalog reads OME's runtime catalog (207 files) and its
// models (Hugging Face config.json folders), as `evaluate match` does.
func BenchmarkLoadCatalog(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Load([]string{"../testdata/catalog/runtimes"}, LoadOptions{}); err != nil {
			b.Fatal(err)
		}
		if _, err := Load([]string{"../testdata/catalog/models"}, LoadOptions{ModelFolders: true}); err != nil {
			b.Fatal(err)
		}
	}
}

// countingReader counts what is read of r.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// Reading stops at the bound whatever the input: a line that never ends
// (standard input without a newline) is read up to the bound and no
// further, and a file that is no regular file (a device, a named pipe) is
// refused before it is opened.
func TestReadingStopsAtTheBound(t *testing.T) {
	// Far past the bound: an endless line stops at it.
	endless := &countingReader{r: io.LimitReader(repeatReader('a'), 1<<30)}
	_, err := Load([]string{"-"}, LoadOptions{Stdin: endless})
	require.EqualError(t, err, "<stdin>: file is larger than 64 MiB")
	require.LessOrEqual(t, endless.n, int64(64<<20+128<<10), "read past the bound")

	dir := t.TempDir()
	require.NoError(t, os.Symlink("/dev/zero", filepath.Join(dir, "zero.yaml")))
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "pipe.yaml"), 0o644))
	in := &Result{}
	in.Read([]string{dir}, ReadOptions{})
	var got []string
	for _, p := range in.Problems {
		got = append(got, strings.TrimPrefix(p.Error(), dir+"/"))
	}
	require.Equal(t, []string{
		"pipe.yaml: not a regular file (a named pipe): give a file, or - to read standard input",
		"zero.yaml: not a regular file (a character device): give a file, or - to read standard input",
	}, got)
	_, _, err = ReadInput(filepath.Join(dir, "zero.yaml"), nil)
	require.ErrorContains(t, err, "not a regular file (a character device)")
	_, err = ReadFile(filepath.Join(dir, "pipe.yaml"))
	require.ErrorContains(t, err, "not a regular file (a named pipe)")
}

// An alias counts what it expands to: a long string that many aliases
// repeat stays under the node bound, yet is refused by the bound on the
// text, which is the size of the largest file.
func TestAliasesCountTheirText(t *testing.T) {
	long := strings.Repeat("x", 1<<20)
	doc := func(aliases int) string {
		return "a: &a " + long + "\nb: [" + strings.TrimSuffix(strings.Repeat("*a, ", aliases), ", ") + "]\n"
	}
	_, err := Load([]string{writeTemp(t, "fine.yaml", doc(60))}, LoadOptions{Lenient: true})
	require.NoError(t, err, "60 MiB of text, under the bound")
	path := writeTemp(t, "bomb.yaml", doc(70))
	_, err = Load([]string{path}, LoadOptions{Lenient: true})
	require.EqualError(t, err, path+":2: document expands to more than 64 MiB of text, its aliases repeating what they name (YAML alias bomb?)")
}
