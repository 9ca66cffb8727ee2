package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestMatchSummaryAndFilters: -o summary writes one line per model (how
// many of its runtimes accept it, and the one OME's selection would
// choose, or none); --model-name and --only keep some models, in every
// format, and the exit code still counts every model matched.
func TestMatchSummaryAndFilters(t *testing.T) {
	unserved := bad("unserved-model.yaml")
	const header = "MODEL                                        COMPATIBLE  SELECTED\n"
	cases := []struct {
		name   string
		args   []string
		code   int
		stdout string
	}{
		{name: "summary", args: []string{"match", "-o", "summary", "-m", exModels, "-r", exRuntimes},
			stdout: header +
				"BaseModel llama-demo/llama-3-2-3b-instruct   2/4         ClusterServingRuntime vllm-llama-3-2-3b-instruct\n" +
				"ClusterBaseModel llama-3-2-3b-instruct-4-46  1/4         ClusterServingRuntime llama-transformers-up-to-4-46\n" +
				"ClusterBaseModel mistral-7b-instruct         1/4         none\n" +
				"\n3 model(s), 0 with no compatible runtime\n"},
		{name: "summary of the unserved only", args: []string{"match", "-o", "summary", "--only", "incompatible", "-m", exModels, "-m", unserved, "-r", exRuntimes},
			code: 1,
			stdout: header +
				"ClusterBaseModel onnx-model                  0/4         none\n" +
				"\n1 model(s), 1 with no compatible runtime\n"},
		{name: "the served only still exit 1 for the unserved", args: []string{"match", "-o", "summary", "--only", "compatible", "--model-name", "onnx-model,mistral-7b-instruct", "-m", exModels, "-m", unserved, "-r", exRuntimes},
			code: 1,
			stdout: "MODEL                                 COMPATIBLE  SELECTED\n" +
				"ClusterBaseModel mistral-7b-instruct  1/4         none\n" +
				"\n1 model(s), 0 with no compatible runtime\n"},
		{name: "selection among the runtimes that accept the model", args: []string{"match", "-o", "summary", at("testdata/select/unselectable.yaml")},
			stdout: "MODEL                   COMPATIBLE  SELECTED\n" +
				"ClusterBaseModel llama  3/3         ClusterServingRuntime vllm\n" +
				"\n1 model(s), 0 with no compatible runtime\n"},
		{name: "a ClusterBaseModel selects as an InferenceService of -n's namespace", args: []string{"match", "-o", "summary", "-n", "team-b", "-f", "-"},
			stdout: "MODEL                   COMPATIBLE  SELECTED\n" +
				"ClusterBaseModel llama  2/2         none\n" +
				"\n1 model(s), 0 with no compatible runtime\n"},
		{name: "and of team-a", args: []string{"match", "-o", "summary", "-n", "team-a", "-f", "-"},
			stdout: "MODEL                   COMPATIBLE  SELECTED\n" +
				"ClusterBaseModel llama  2/2         ServingRuntime team-a/team-a-vllm\n" +
				"\n1 model(s), 0 with no compatible runtime\n"},
		{name: "json keeps the models named", args: []string{"match", "-o", "json", "--model-name", "mistral-7b-instruct", "-m", exModels, "-r", exRuntimes}},
		{name: "no model of the name", args: []string{"match", "--model-name", "nope", "-m", exModels, "-r", exRuntimes}, code: 2},
		{name: "an unknown --only", args: []string{"match", "--only", "served", "-m", exModels, "-r", exRuntimes}, code: 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			stdin := ""
			if c.args[len(c.args)-1] == "-" {
				stdin = namespacedOnly
			}
			r := evaluate(t, time.Minute, stdin, c.args...)
			require.Equal(t, c.code, r.code, r.stderr)
			if c.stdout != "" {
				require.Equal(t, c.stdout, r.stdout)
			}
			switch c.name {
			case "json keeps the models named":
				results := decodeMatchJSON(t, r.stdout)
				require.Len(t, results, 4)
				for _, res := range results {
					require.Equal(t, "mistral-7b-instruct", res.Model.Name)
				}
			case "no model of the name":
				require.Contains(t, r.stderr, "no model named nope in ")
			case "an unknown --only":
				require.Contains(t, r.stderr, `--only: "served" is not one of compatible, incompatible`)
			}
		})
	}
}

// namespacedOnly is a ClusterBaseModel that only a ServingRuntime of
// team-a selects; a ClusterServingRuntime accepts it without autoSelect.
const namespacedOnly = `apiVersion: ome.io/v1beta1
kind: ClusterBaseModel
metadata:
  name: llama
spec:
  modelFormat: {name: safetensors, version: 1.0.0}
  modelFramework: {name: transformers, version: 4.45.0}
  modelArchitecture: LlamaForCausalLM
---
apiVersion: ome.io/v1beta1
kind: ServingRuntime
metadata:
  name: team-a-vllm
  namespace: team-a
spec:
  supportedModelFormats:
  - modelFormat: {name: safetensors, version: 1.0.0}
    modelFramework: {name: transformers, version: 4.45.0}
    modelArchitecture: LlamaForCausalLM
    autoSelect: true
---
apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata:
  name: pinned
spec:
  supportedModelFormats:
  - modelFormat: {name: safetensors, version: 1.0.0}
    modelFramework: {name: transformers, version: 4.45.0}
    modelArchitecture: LlamaForCausalLM
`
