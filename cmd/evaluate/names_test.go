package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// apiRefusal is what the API server says of a name that is no DNS-1123
// subdomain (k8s.io/apimachinery's validation), for a kind and a name.
func apiRefusal(kind, name string) string {
	return kind + `.ome.io "` + name + `" is invalid: metadata.name: Invalid value: "` + name + `": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', ` +
		`and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`
}

// A model or runtime whose name the API server refuses is said, in the
// API server's words, by every command that reads it: a model folder
// named llama3_2_3b, a runtime in YAML.
func TestNameTheAPIServerRefuses(t *testing.T) {
	folder := at("testdata/examples/model-folders/llama3_2_3b/config.json")
	folderNotice := folder + ":1: notice: the API server refuses ClusterBaseModel/llama3_2_3b: " + apiRefusal("ClusterBaseModel", "llama3_2_3b") + `; "llama3-2-3b" is a name it takes` + "\n"
	for _, args := range [][]string{
		{"match", "-m", at("testdata/examples/model-folders"), "-r", exRuntimes},
		{"lint", "-m", at("testdata/examples/model-folders")},
		{"explain", "-m", at("testdata/examples/model-folders"), "-r", exRuntimes},
		// diff --base reads copies of the files, named as the user gave them.
		{"diff", "--base", "HEAD", at("testdata/examples/model-folders")},
	} {
		r := evaluate(t, time.Minute, "", args...)
		require.Contains(t, r.stderr, folderNotice, args)
		// Both sides of the diff name the file so.
		require.Equal(t, map[bool]int{true: 2, false: 1}[args[0] == "diff"], strings.Count(r.stderr, "refuses"), args)
		require.Equal(t, strings.Count(r.stderr, "refuses"), strings.Count(r.stderr, folderNotice), args)
	}

	runtime := "apiVersion: ome.io/v1beta1\nkind: ClusterServingRuntime\nmetadata:\n  name: vLLM_Llama\nspec:\n  supportedModelFormats:\n    - modelFormat: {name: safetensors}\n"
	r := evaluate(t, time.Minute, runtime, "lint", "-")
	require.Contains(t, r.stderr, "<stdin>:4: notice: the API server refuses ClusterServingRuntime/vLLM_Llama: "+apiRefusal("ClusterServingRuntime", "vLLM_Llama")+`; "vllm-llama" is a name it takes`+"\n")

	// Many: the first in full, the others in one line.
	r = evaluate(t, time.Minute, "", "match", "-m", at("testdata/catalog/models"), "-r", exRuntimes)
	require.Contains(t, r.stderr, "notice: the API server refuses 57 more name(s) that are not DNS-1123 subdomains: ClusterBaseModel/bge_large, ClusterBaseModel/chatglm3_6b, "+
		"ClusterBaseModel/clip_vision_model, ClusterBaseModel/command_r_35b, ClusterBaseModel/dbrx_132b and 52 more\n")
	require.Equal(t, 1, strings.Count(r.stderr, "Invalid value"))

	// Names it takes are not said.
	r = evaluate(t, time.Minute, "", "lint", exRuntimes, exModels)
	require.NotContains(t, r.stderr, "refuses")
}

// A model folder has no size: match and select say which runtimes' size
// ranges are therefore not checked for it, where any runtime OME pairs it
// with has one; without such a runtime, nothing is said.
func TestFolderModelWithoutSize(t *testing.T) {
	dir := t.TempDir()
	copyFiles(t, at("testdata/examples/model-folders/llama3_2_3b"), filepath.Join(dir, "llama-3b"))
	model := filepath.Join(dir, "llama-3b", "config.json")
	notice := model + ":1: notice: ClusterBaseModel/llama-3b has no size: OME estimates one from the model's weights, which a model folder's config does not give, " +
		"so the modelSizeRange of 3 runtime(s) (srt-llama-3-2-3b-instruct, srt-mistral-7b-instruct, vllm-llama-3-2-3b-instruct) is not checked here, and OME may decide otherwise in a cluster; " +
		"a model in YAML with spec.modelParameterSize is checked\n"
	r := evaluate(t, time.Minute, "", "match", "-m", dir, "-r", exRuntimes)
	require.Equal(t, notice, r.stderr)

	isvc := writeFile(t, t.TempDir(), "isvc.yaml", "apiVersion: ome.io/v1beta1\nkind: InferenceService\nmetadata:\n  name: chat\n  namespace: demo\nspec:\n  model:\n    name: llama-3b\n  engine: {}\n")
	r = evaluate(t, time.Minute, "", "select", "-m", dir, "-r", exRuntimes, "-f", isvc)
	require.Contains(t, r.stderr, notice)

	unranged := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(unranged, "rt.yaml"), []byte("apiVersion: ome.io/v1beta1\nkind: ClusterServingRuntime\nmetadata:\n  name: any\nspec:\n  supportedModelFormats:\n    - modelFormat: {name: safetensors}\n      modelFramework: {name: transformers}\n"), 0o644))
	r = evaluate(t, time.Minute, "", "match", "-m", dir, "-r", unranged)
	require.Empty(t, r.stderr)

	// Many model folders: one notice.
	copyFiles(t, at("testdata/examples/model-folders/llama3_2_3b"), filepath.Join(dir, "llama-3b-again"))
	copyFiles(t, at("testdata/examples/model-folders/llama3_2_3b"), filepath.Join(dir, "llama-3b-more"))
	copyFiles(t, at("testdata/examples/model-folders/llama3_2_3b"), filepath.Join(dir, "llama-3b-most"))
	r = evaluate(t, time.Minute, "", "match", "-m", dir, "-r", exRuntimes)
	require.Equal(t, "notice: 4 model folders have no size (ClusterBaseModel/llama-3b, ClusterBaseModel/llama-3b-again, ClusterBaseModel/llama-3b-more and 1 more): OME estimates one", r.stderr[:strings.Index(r.stderr, " from")])
	require.Equal(t, 1, strings.Count(r.stderr, "\n"))
}
