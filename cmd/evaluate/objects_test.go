package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// twiceDir is a folder where the runtime vllm is given twice: first
// accepting the model, then (later in the folder's order) for another
// architecture, which replaces it as on kubectl apply; and a model and an
// InferenceService of it.
func twiceDir(t *testing.T) (dir, notice string) {
	t.Helper()
	dir = t.TempDir()
	runtime := func(arch string) string {
		return "apiVersion: ome.io/v1beta1\nkind: ClusterServingRuntime\nmetadata:\n  name: vllm\nspec:\n  supportedModelFormats:\n" +
			"    - modelFormat: {name: safetensors, version: \"1.0.0\"}\n" +
			"      modelFramework: {name: transformers, version: \"4.45.0\"}\n" +
			"      modelArchitecture: " + arch + "\n      autoSelect: true\n"
	}
	files := map[string]string{
		"a-runtime.yaml": runtime("LlamaForCausalLM"),
		"b-runtime.yaml": runtime("MistralForCausalLM"),
		"model.yaml": "apiVersion: ome.io/v1beta1\nkind: ClusterBaseModel\nmetadata:\n  name: llama\nspec:\n" +
			"  modelArchitecture: LlamaForCausalLM\n  modelFormat: {name: safetensors, version: \"1.0.0\"}\n" +
			"  modelFramework: {name: transformers, version: \"4.45.0\"}\n  storage: {storageUri: \"hf://meta/llama\"}\n",
		"service.yaml": "apiVersion: ome.io/v1beta1\nkind: InferenceService\nmetadata:\n  name: chat\n  namespace: demo\n" +
			"spec:\n  model:\n    name: llama\n  engine:\n    minReplicas: 1\n",
	}
	for name, text := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	notice = filepath.Join(dir, "a-runtime.yaml") + ":1: notice: ClusterServingRuntime/vllm is given again at " +
		filepath.Join(dir, "b-runtime.yaml") + ":1; the later one replaces it, as on apply\n"
	return dir, notice
}

// Every command reads what kubectl apply would leave of its input: of two
// objects of one kind, namespace and name, the later, with the same notice
// for the earlier; every command counts that one object. lint still lints
// each document, names the later one duplicate-name, and its
// --cross-check reads what apply leaves: no runtime accepts the model.
func TestSameObjectsInEveryCommand(t *testing.T) {
	dir, notice := twiceDir(t)
	page := filepath.Join(t.TempDir(), "page.html")
	for _, tc := range []struct {
		name string
		args []string
		code int
		want func(t *testing.T, stdout, stderr string)
	}{
		{name: "match", args: []string{"match", "-f", dir, "-o", "json"}, code: 1, want: func(t *testing.T, stdout, _ string) {
			var doc struct{ Results []struct{ Compatible bool } }
			require.NoError(t, json.Unmarshal([]byte(stdout), &doc))
			require.Len(t, doc.Results, 1)
			require.False(t, doc.Results[0].Compatible)
		}},
		{name: "explain", args: []string{"explain", "-f", dir, "-o", "json"}, code: 1, want: func(t *testing.T, stdout, _ string) {
			var doc struct{ Explanations []json.RawMessage }
			require.NoError(t, json.Unmarshal([]byte(stdout), &doc), stdout)
			require.Len(t, doc.Explanations, 1)
			require.Contains(t, stdout, "MistralForCausalLM")
		}},
		{name: "select", args: []string{"select", "-f", dir}, code: 1, want: func(t *testing.T, stdout, _ string) {
			require.Contains(t, stdout, "REJECTED")
			require.Contains(t, stdout, "architecture mismatch (model=LlamaForCausalLM, runtime=MistralForCausalLM)")
		}},
		{name: "report", args: []string{"report", "-f", dir, "--out", page}, code: 0, want: func(t *testing.T, _, stderr string) {
			require.Contains(t, stderr, "1 model(s) x 1 runtime(s), 0 compatible pair(s)")
		}},
		{name: "lint", args: []string{"lint", "--cross-check", dir}, code: 0, want: func(t *testing.T, stdout, _ string) {
			require.Contains(t, stdout, "b-runtime.yaml:4: warning [duplicate-name]")
			require.Contains(t, stdout, "warning [unmatched-model] spec: no runtime given accepts this model (1 checked)")
			require.Contains(t, stdout, "4 object(s)") // each document linted: two runtimes, the model, the InferenceService
		}},
		{name: "diff", args: []string{"diff", "--to-ome-version", "v0.1.5", dir}, code: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := evaluate(t, time.Minute, "", tc.args...)
			require.Equal(t, tc.code, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			require.Equal(t, 1, strings.Count(r.stderr, notice), "stderr:\n%s", r.stderr)
			require.Equal(t, 1, strings.Count(r.stderr, "given again"), "stderr:\n%s", r.stderr)
			if tc.want != nil {
				tc.want(t, r.stdout, r.stderr)
			}
		})
	}
}

// The same objects given by two paths, or -m and -r apart from -f: the
// later still replaces the earlier.
func TestLaterObjectReplacesAcrossFlags(t *testing.T) {
	dir, _ := twiceDir(t)
	a, b := filepath.Join(dir, "a-runtime.yaml"), filepath.Join(dir, "b-runtime.yaml")
	r := evaluate(t, 30*time.Second, "", "match", "-m", filepath.Join(dir, "model.yaml"), "-r", b, "-r", a, "-o", "json")
	require.Equal(t, 0, r.code, r.stderr) // a, given last, accepts the model
	require.Contains(t, r.stderr, b+":1: notice: ClusterServingRuntime/vllm is given again at "+a+":1")
}

// Bad input as the API server would see it, through the commands: an
// unknown kind of ome.io/v1beta1 is an error with file, line and the kind
// meant, after the other objects' results (exit 2); OME's other kinds and
// other groups' are notices; a YAML syntax error is on the parser's line;
// a file that cannot be opened has no line.
func TestBadInputAsTheAPIServerSees(t *testing.T) {
	typo := bad("misspelled-kind.yaml")
	kindError := typo + `:5: kind: ome.io/v1beta1 has no kind "ClusterServingRuntimes": the API server refuses it (no matches for kind); did you mean ClusterServingRuntime?`
	indent := bad("bad-indentation.yaml")
	indentError := indent + ":10: did not find expected '-' indicator (while reading from line 9)"
	missing := bad("nonexist.yaml")
	for _, tc := range []struct {
		name   string
		args   []string
		stdout []string // in standard output
		stderr []string // in standard error
	}{
		{name: "match: misspelled kind", args: []string{"match", "-f", typo, "-r", exRuntimes},
			stdout: []string{"1 model(s), 0 with no compatible runtime"},
			stderr: []string{"notice: skipped 1 document(s) that are not OME objects (1 AcceleratorClass)", "evaluate: " + kindError}},
		{name: "select: misspelled kind", args: []string{"select", "-f", typo, "-f", at("testdata/examples/select"), "-f", exRuntimes, "-o", "json"},
			stdout: []string{`"line": 5,`, `"field": "kind",`, `"message": "ome.io/v1beta1 has no kind \"ClusterServingRuntimes\": the API server refuses it (no matches for kind); did you mean ClusterServingRuntime?"`},
			stderr: []string{"evaluate: " + kindError}},
		{name: "lint: misspelled kind", args: []string{"lint", typo},
			stdout: []string{strings.Replace(kindError, ":5: kind: ", ":5: error [input-error] kind: ", 1)}},
		{name: "explain: misspelled kind", args: []string{"explain", "-f", typo, "-r", exRuntimes + "/vllm-llama-3-2-3b-instruct.yaml"},
			stdout: []string{"verdict: compatible"}, stderr: []string{"evaluate: " + kindError}},
		{name: "lint: bad indentation", args: []string{"lint", indent, lintClean},
			stdout: []string{strings.Replace(indentError, ":10: ", ":10: error [input-error] ", 1)}},
		{name: "match: bad indentation", args: []string{"match", "-f", indent, "-m", exModels, "-r", exRuntimes},
			stdout: []string{"model(s)"}, stderr: []string{"evaluate: " + indentError}},
		{name: "lint: missing file", args: []string{"lint", missing, lintClean},
			stdout: []string{missing + ": error [input-error] no such file or directory\n"}},
		{name: "match: missing file", args: []string{"match", "-f", missing, "-m", exModels, "-r", exRuntimes},
			stdout: []string{"model(s)"}, stderr: []string{"evaluate: " + missing + ": no such file or directory\n"}},
		{name: "diff: missing file", args: []string{"diff", missing, exRuntimes},
			stderr: []string{"evaluate: " + missing + ": no such file or directory\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := evaluate(t, time.Minute, "", tc.args...)
			require.Equal(t, 2, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			for _, s := range tc.stdout {
				require.Contains(t, r.stdout, s)
			}
			for _, s := range tc.stderr {
				require.Contains(t, r.stderr, s)
			}
			require.NotContains(t, r.stdout+r.stderr, ":0:")
		})
	}
}

// A Hugging Face config in a file of another name than config.json is no
// model; the notice says how such a config is read. In a folder of its
// own as config.json, it is a model.
func TestHuggingFaceConfigNotice(t *testing.T) {
	dir := t.TempDir()
	config := `{"architectures": ["LlamaForCausalLM"], "model_type": "llama", "transformers_version": "4.45.0.dev0"}`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "llama.json"), []byte(config), 0o644))
	want := "notice: skipped 1 document(s) that are not OME objects (1 Hugging Face config); " +
		"a Hugging Face config.json is read as a model only as <model>/config.json\n"
	for _, args := range [][]string{
		{"match", "-f", dir, "-r", exRuntimes},
		{"match", "-m", dir, "-r", exRuntimes},
		{"lint", dir},
		{"select", "-f", dir},
	} {
		r := evaluate(t, 30*time.Second, "", args...)
		require.Contains(t, r.stderr, want, "%v", args)
	}

	require.NoError(t, os.Mkdir(filepath.Join(dir, "llama"), 0o755))
	require.NoError(t, os.Rename(filepath.Join(dir, "llama.json"), filepath.Join(dir, "llama", "config.json")))
	r := evaluate(t, 30*time.Second, "", "match", "-m", dir, "-r", exRuntimes)
	require.Equal(t, 0, r.code, r.stderr)
	require.NotContains(t, r.stderr, "Hugging Face")
	require.Contains(t, r.stdout, "ClusterBaseModel llama\n")
}
