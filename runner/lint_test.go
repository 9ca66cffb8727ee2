package runner

import (
	"fmt"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/input"
)

func linters(t testing.TB) map[string]engine.Linter {
	t.Helper()
	out := map[string]engine.Linter{}
	for _, name := range engine.Names {
		l, err := engine.NewLinter(name, embeddedPolicies(t))
		require.NoError(t, err)
		out[name] = l
	}
	return out
}

// A lint run lints every object as the files hold it, but its rules about
// the objects together read what kubectl apply would leave: here the later
// runtime of the name, which does not accept the model; duplicate-name
// still names the later one.
func TestLintRunReadsWhatApplyLeaves(t *testing.T) {
	runtime := func(arch string) string {
		return "apiVersion: ome.io/v1beta1\nkind: ClusterServingRuntime\nmetadata:\n  name: vllm\nspec:\n  supportedModelFormats:\n" +
			"    - modelFormat: {name: safetensors, version: \"1.0.0\"}\n" +
			"      modelFramework: {name: transformers, version: \"4.45.0\"}\n" +
			"      modelArchitecture: " + arch + "\n"
	}
	data := runtime("LlamaForCausalLM") + "---\n" + runtime("MistralForCausalLM") + "---\n" +
		"apiVersion: ome.io/v1beta1\nkind: ClusterBaseModel\nmetadata:\n  name: llama\nspec:\n" +
		"  modelArchitecture: LlamaForCausalLM\n  modelFormat: {name: safetensors, version: \"1.0.0\"}\n" +
		"  modelFramework: {name: transformers, version: \"4.45.0\"}\n  storage: {storageUri: \"hf://meta/llama\"}\n"
	objs, err := input.LoadData("in.yaml", []byte(data), input.LoadOptions{Lenient: true})
	require.NoError(t, err)
	rules, err := engine.LintRules(embeddedPolicies(t))
	require.NoError(t, err)
	for name, l := range linters(t) {
		run := NewLintRun(l, rules, RuleFilter{}, true)
		for _, o := range objs {
			run.Object(o)
		}
		require.NoError(t, run.Finish())
		var got []string
		for _, f := range run.Findings {
			got = append(got, fmt.Sprintf("%d %s %s", f.Line, f.Rule, f.Object.Name))
		}
		sort.Strings(got)
		require.Equal(t, []string{
			"14 duplicate-name vllm",
			"17 unreachable-entry vllm", // the later runtime's entry, not the earlier's
			"25 unmatched-model llama",
		}, got, name)
		require.Len(t, run.Objects, 3, "each document is linted")
	}
}
