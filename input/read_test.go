package input

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ome-policy/evaluator/objects"
)

// TestReadGoesOnPastProblems reads inputs with one problem among good
// objects: each problem is reported with its file and line (and field),
// and every other object is still read.
func TestReadGoesOnPastProblems(t *testing.T) {
	runtime := func(name string) string {
		return "apiVersion: ome.io/v1beta1\nkind: ClusterServingRuntime\nmetadata:\n  name: " + name +
			"\nspec:\n  supportedModelFormats:\n  - modelFormat: {name: safetensors}\n    modelFramework: {name: transformers}\n"
	}
	tests := []struct {
		name     string
		files    map[string]string
		lenient  bool
		want     []string // the objects read, by Ref
		problems []string // each problem's Error(), $D the folder
	}{
		{
			name:  "a document that is not YAML between two good ones",
			files: map[string]string{"a.yaml": runtime("one") + "---\nkind: [\n---\n" + runtime("two")},
			want:  []string{"ClusterServingRuntime/one", "ClusterServingRuntime/two"},
			problems: []string{
				"$D/a.yaml:11: did not find expected node content",
			},
		},
		{
			name: "a Helm template",
			files: map[string]string{
				"chart.yaml": "# a chart's template\n{{- if .Values.enabled }}\n" + runtime("templated") + "{{- end }}\n",
				"plain.yaml": runtime("plain"),
			},
			want: []string{"ClusterServingRuntime/plain"},
			problems: []string{
				"$D/chart.yaml:2: this is a template ({{ ... }}), not YAML: render it first (helm template, for one) and give the output",
			},
		},
		{
			name: "a template value in the second document",
			files: map[string]string{"values.yaml": runtime("first") + "---\n" +
				strings.Replace(runtime("second"), "name: second", "name: second\n  labels:\n{{ include \"labels\" . | indent 4 }}", 1)},
			want: []string{"ClusterServingRuntime/first"},
			problems: []string{
				"$D/values.yaml:15: this is a template ({{ ... }}), not YAML: render it first (helm template, for one) and give the output",
			},
		},
		{
			name: "a field of the wrong type leaves that object out",
			files: map[string]string{"rt.yaml": runtime("good") + "---\n" +
				strings.Replace(runtime("bad"), "modelFormat: {name: safetensors}", "modelFormat: {name: safetensors, version: 1.0}", 1) +
				"---\n" + runtime("also-good")},
			want: []string{"ClusterServingRuntime/good", "ClusterServingRuntime/also-good"},
			problems: []string{
				"$D/rt.yaml:16: spec.supportedModelFormats[0].modelFormat.version: must be a string, got a number (1.0); quote it: \"1.0\"",
			},
		},
		{
			name: "leniently, the object with a wrong type is kept",
			files: map[string]string{"rt.yaml": strings.Replace(runtime("bad"), "modelFormat: {name: safetensors}",
				"modelFormat: {name: safetensors, version: 1.0}", 1)},
			lenient: true,
			want:    []string{"ClusterServingRuntime/bad"},
		},
		{
			name:     "an object without a name",
			files:    map[string]string{"a.yaml": "apiVersion: ome.io/v1beta1\nkind: ClusterServingRuntime\nspec: {}\n---\n" + runtime("named")},
			want:     []string{"ClusterServingRuntime/named"},
			problems: []string{"$D/a.yaml:1: metadata.name: is required"},
		},
		{
			name: "a typed list from the API server, whose items say no kind",
			files: map[string]string{"list.yaml": "apiVersion: ome.io/v1beta1\nkind: ClusterServingRuntimeList\nitems:\n" +
				"- metadata: {name: a}\n  spec: {supportedModelFormats: []}\n" +
				"- apiVersion: ome.io/v1beta1\n  kind: ClusterServingRuntime\n  metadata: {name: b}\n  spec: {supportedModelFormats: []}\n"},
			want: []string{"ClusterServingRuntime/a", "ClusterServingRuntime/b"},
		},
		{
			name: "kind: List of typed lists, as kubectl get -o yaml of several resources",
			files: map[string]string{"dump.yaml": "apiVersion: v1\nkind: List\nitems:\n" +
				"- apiVersion: ome.io/v1beta1\n  kind: ServingRuntimeList\n  items:\n  - metadata: {name: a, namespace: team-a}\n    spec: {supportedModelFormats: []}\n" +
				"- apiVersion: ome.io/v1beta1\n  kind: BaseModel\n  metadata: {name: m, namespace: team-a}\n  spec: {modelFormat: {name: safetensors}}\n"},
			want: []string{"ServingRuntime/team-a/a", "BaseModel/team-a/m"},
		},
		{
			name:     "a document that is a list",
			files:    map[string]string{"a.yaml": "- 1\n- 2\n---\n" + runtime("ok")},
			want:     []string{"ClusterServingRuntime/ok"},
			problems: []string{"$D/a.yaml:1: document is not an object"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			var paths []string
			for name, text := range tt.files {
				require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
			}
			paths = append(paths, dir)
			in := &Result{}
			in.Read(paths, ReadOptions{Lenient: tt.lenient})
			var got []string
			for _, o := range in.Objects {
				got = append(got, o.Ref())
			}
			require.Equal(t, tt.want, got)
			var problems []string
			for _, p := range in.Problems {
				problems = append(problems, strings.ReplaceAll(p.Error(), dir, "$D"))
			}
			require.Equal(t, tt.problems, problems)
		})
	}
}

// TestReadFoldersAndPaths: a folder's own files without -R, every file
// with it; a path that does not exist is a problem and the others are read.
func TestReadFoldersAndPaths(t *testing.T) {
	dir := t.TempDir()
	doc := func(name string) []byte {
		return []byte("apiVersion: ome.io/v1beta1\nkind: ClusterBaseModel\nmetadata: {name: " + name + "}\nspec: {modelFormat: {name: safetensors}}\n")
	}
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "sub", "deeper"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "top.yaml"), doc("top"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "sub", "inner.yaml"), doc("inner"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "sub", "deeper", "deep.json"), doc("deep"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not read"), 0o644))

	refs := func(in *Result) []string {
		var out []string
		for _, o := range in.Objects {
			out = append(out, o.Name)
		}
		return out
	}
	in := &Result{}
	in.Read([]string{dir}, ReadOptions{})
	require.Equal(t, []string{"top"}, refs(in))
	require.Equal(t, []string{filepath.Join(dir, "sub")}, in.Unread)
	require.Contains(t, in.UnreadNotice(), "-R reads them")

	in = &Result{}
	in.Read([]string{filepath.Join(dir, "missing.yaml"), dir}, ReadOptions{Recursive: true})
	require.Equal(t, []string{"deep", "inner", "top"}, refs(in)) // lexical order of the paths
	require.Empty(t, in.Unread)
	require.Len(t, in.Problems, 1)
	require.Equal(t, filepath.Join(dir, "missing.yaml")+": no such file or directory", in.Problems[0].Error())
}

// TestReadNamespace: a namespaced object that says no namespace is put in
// ReadOptions.Namespace, in its value too; a cluster-scoped one is not.
func TestReadNamespace(t *testing.T) {
	data := []byte("apiVersion: ome.io/v1beta1\nkind: ServingRuntime\nmetadata: {name: rt}\nspec: {}\n---\n" +
		"apiVersion: ome.io/v1beta1\nkind: ServingRuntime\nmetadata: {name: there, namespace: team-b}\nspec: {}\n---\n" +
		"apiVersion: ome.io/v1beta1\nkind: ClusterServingRuntime\nmetadata: {name: crt}\nspec: {}\n")
	in := &Result{}
	in.ReadData("in.yaml", data, ReadOptions{Namespace: "team-a"})
	require.Empty(t, in.Problems)
	require.Len(t, in.Objects, 3)
	require.Equal(t, "team-a", in.Objects[0].Namespace)
	require.Equal(t, "team-a", in.Objects[0].Value["metadata"].(map[string]any)["namespace"])
	require.Equal(t, "team-b", in.Objects[1].Namespace)
	require.Equal(t, "", in.Objects[2].Namespace)
	require.NotContains(t, in.Objects[2].Value["metadata"].(map[string]any), "namespace")
}

// TestSkipNotice counts what is not an OME object in one line.
func TestSkipNotice(t *testing.T) {
	data := []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n---\n" +
		"apiVersion: serving.kserve.io/v1alpha1\nkind: ServingRuntime\nmetadata: {name: k}\n---\nfoo: bar\n")
	in := &Result{}
	in.ReadData("in.yaml", data, ReadOptions{})
	require.Empty(t, in.Objects)
	require.Equal(t, `notice: skipped 4 document(s) that are not OME objects (1 <no kind>, 2 ConfigMap, 1 ServingRuntime of apiVersion "serving.kserve.io/v1alpha1")`, in.SkipNotice())
}

// TestSkipNoticeOfOtherKinds: OME's kinds that are not read here
// (AcceleratorClass...) and a Hugging Face config in a file of another
// name are skipped, the latter with how such a config is read.
func TestSkipNoticeOfOtherKinds(t *testing.T) {
	data := []byte("apiVersion: ome.io/v1beta1\nkind: AcceleratorClass\nmetadata: {name: a100}\n---\n" +
		"{\"architectures\": [\"LlamaForCausalLM\"], \"model_type\": \"llama\"}\n---\n" +
		"{\"_class_name\": \"FluxPipeline\", \"_diffusers_version\": \"0.30.0\"}\n---\n" +
		"{\"prompts\": {}}\n")
	in := &Result{}
	in.ReadData("llama.json", data, ReadOptions{})
	require.Empty(t, in.Problems)
	require.Empty(t, in.Objects)
	require.Equal(t, "notice: skipped 4 document(s) that are not OME objects (1 <no kind>, 1 AcceleratorClass, 2 Hugging Face config); "+
		"a Hugging Face config.json is read as a model only as <model>/config.json", in.SkipNotice())

	var notices strings.Builder
	_, err := LoadData("llama.json", data[strings.Index(string(data), "{"):], LoadOptions{Notices: &notices})
	require.NoError(t, err)
	require.Contains(t, notices.String(), "llama.json:5: notice: skipping a Hugging Face config (a Hugging Face config.json is read as a model only as <model>/config.json)\n")
}

// TestReadReplaces: of the objects of one kind, namespace and name, the
// one read last replaces the others, as on kubectl apply, across reads,
// files and Take; objects of another kind or namespace are others.
func TestReadReplaces(t *testing.T) {
	doc := func(kind, ns, name, size string) string {
		return "apiVersion: ome.io/v1beta1\nkind: " + kind + "\nmetadata: {name: " + name + ", namespace: " + ns + "}\n" +
			"spec: {modelSizeRange: {min: " + size + ", max: " + size + "}}\n"
	}
	first := doc("ClusterServingRuntime", "", "rt", "1B") + "---\n" + doc("ServingRuntime", "a", "rt", "2B") + "---\n" +
		doc("ServingRuntime", "b", "rt", "3B")
	second := doc("ClusterServingRuntime", "", "rt", "4B") + "---\n" + doc("ServingRuntime", "a", "rt", "5B")
	for _, visit := range []bool{false, true} {
		in := &Result{}
		var visited []string
		if visit {
			in.Visit = func(o *objects.Object) { visited = append(visited, o.Ref()) }
		}
		in.ReadData("first.yaml", []byte(first), ReadOptions{})
		in.ReadData("second.yaml", []byte(second), ReadOptions{})
		late := &objects.Object{Kind: objects.KindServingRuntime, Namespace: "b", Name: "rt", File: "cluster", Line: 3,
			Value: map[string]any{"spec": map[string]any{"modelSizeRange": map[string]any{"min": "6B", "max": "6B"}}}}
		in.Take(late)
		in.Done()
		require.Equal(t, []string{
			"first.yaml:1: notice: ClusterServingRuntime/rt is given again at second.yaml:1; the later one replaces it, as on apply",
			"first.yaml:6: notice: ServingRuntime/a/rt is given again at second.yaml:6; the later one replaces it, as on apply",
			"first.yaml:11: notice: ServingRuntime/b/rt is given again at cluster:3; the later one replaces it, as on apply",
		}, in.Notices())
		if visit {
			// A visitor is handed every object; the read says which were replaced.
			require.Len(t, visited, 6)
			require.Empty(t, in.Objects)
			continue
		}
		var got []string
		for _, o := range in.Objects {
			got = append(got, fmt.Sprintf("%s %s:%d %v", o.Ref(), o.File, o.Line, o.Spec()["modelSizeRange"].(map[string]any)["min"]))
		}
		require.Equal(t, []string{
			"ClusterServingRuntime/rt second.yaml:1 4B",
			"ServingRuntime/a/rt second.yaml:6 5B",
			"ServingRuntime/b/rt cluster:3 6B",
		}, got)
	}
}

// TestHelmSource: only a "# Source:" comment before a document's content
// names its file, and only on standard input.
func TestHelmSource(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{"---\n# Source: chart/templates/rt.yaml\nkind: X\n", "chart/templates/rt.yaml"},
		{"\n# a comment\n# Source:  chart/x.yaml \nkind: X\n", "chart/x.yaml"},
		{"kind: X\n# Source: chart/late.yaml\n", ""},
		{"---\nkind: X\n", ""},
	} {
		require.Equal(t, tc.want, objects.HelmSource([]byte(tc.doc)), tc.doc)
	}
	doc := "# Source: chart/rt.yaml\napiVersion: ome.io/v1beta1\nkind: ClusterBaseModel\nmetadata: {name: m}\nspec: {modelFormat: {name: safetensors}}\n"
	in := &Result{}
	in.Read([]string{"-"}, ReadOptions{Stdin: strings.NewReader(doc)})
	require.Len(t, in.Objects, 1)
	require.Equal(t, "chart/rt.yaml (stdin):2", in.Objects[0].File+":"+strconv.Itoa(in.Objects[0].Line))
	require.Equal(t, "chart/rt.yaml (stdin:2)", objects.FileLine(in.Objects[0].File, in.Objects[0].Line))
	file := filepath.Join(t.TempDir(), "rendered.yaml")
	require.NoError(t, os.WriteFile(file, []byte(doc), 0o644))
	in = &Result{}
	in.Read([]string{file}, ReadOptions{})
	require.Equal(t, file, in.Objects[0].File)
}
