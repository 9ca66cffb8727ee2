package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ome-policy/evaluator/diff"
)

const upgradeExample = "testdata/examples/upgrade"

// An upgrade of OME names, for each changed decision, the verdict on both
// sides in each release's own words and the rule that moved it, on both
// engines.
func TestDiffUpgradeSaysWhy(t *testing.T) {
	r := evaluate(t, 2*time.Minute, "", "diff", "--engine", "both", "--ome-version", "v0.1.4", "--to-ome-version", "v1.2.2", at(upgradeExample))
	require.Equal(t, exitFindings, r.code, r.stderr)
	for _, want := range []string{
		"    - ClusterServingRuntime flux-runtime (OME's rules changed)\n" +
			"        v0.1.4: compatible\n" +
			"        v1.2.2: model format 'mt:diffusers:0.35.1:diffusers:0.35.1' not in supported formats: diffusion pipeline required by runtime but not specified in model\n" +
			"        rule:   v0.1.4 does not compare diffusion pipelines\n",
		"    + ClusterServingRuntime vllm-qwen3 (OME's rules changed)\n" +
			"        v0.1.4: model format 'mt:safetensors:1.0.0:Qwen3ForCausalLM:transformers:4.51' not in supported formats\n" +
			"        v1.2.2: compatible\n" +
			"        rule:   v0.1.4 parses only versions of three numbers, without a v: model 4.51, entry 4.52\n",
		"  InferenceService demo/qwen-chat\n" +
			"    v0.1.4: refused: no supporting runtime found for model qwen3-8b and engine does not have complete runner configuration\n" +
			"    v1.2.2: ClusterServingRuntime vllm-qwen3 (score 2, cluster scope)\n" +
			"    rule:   v0.1.4 parses only versions of three numbers, without a v: model 4.51, entry 4.52\n",
		// Refused by a check of the webhook's own: the rule is the check
		// that one release has and the other passes.
		"  InferenceService demo/qwen-keda\n" +
			"    v0.1.4: refused: unknown autoscaler class [keda]\n" +
			"    v1.2.2: ClusterServingRuntime vllm-qwen3 (score 2, cluster scope)\n" +
			"    rule:   v0.1.4 checks autoscaler-class\n",
		"  InferenceService demo/typo\n" +
			"    v0.1.4: admitted without selection\n" +
			"    v1.2.2: refused: referenced model \"qwen3-8b-instruct\" not found in namespace \"demo\": ensure a BaseModel exists in this namespace or a ClusterBaseModel exists cluster-wide with this name\n" +
			"    rule:   v1.2.2 checks model-not-found\n",
		"Verdicts that hold in other words: 2 pairs, 2 refusals; --show-reasons lists them\n",
		"\n3 regressions, 6 verdict changes, 4 reason changes; ",
	} {
		require.Contains(t, r.stdout, want)
	}
	require.NotContains(t, r.stdout, "Reasons that read differently")

	r = evaluate(t, 2*time.Minute, "", "diff", "-o", "json", "--ome-version", "v0.1.4", "--to-ome-version", "v1.2.2", at(upgradeExample))
	require.Equal(t, exitFindings, r.code, r.stderr)
	var doc struct {
		Summary struct {
			Regressions, VerdictChanges, ReasonChanges, Changes int
		}
		diff.Report
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &doc))
	require.Equal(t, [4]int{3, 6, 4, 10}, [4]int{doc.Summary.Regressions, doc.Summary.VerdictChanges, doc.Summary.ReasonChanges, doc.Summary.Changes})
	gains := map[string]diff.RuntimeChange{}
	reworded := map[string]diff.RuntimeChange{}
	for _, m := range doc.Models {
		for _, g := range m.Gained {
			gains[m.Model.Name+"/"+g.Runtime.Name] = g
		}
		for _, w := range m.Reworded {
			reworded[m.Model.Name+"/"+w.Runtime.Name] = w
		}
	}
	g := gains["qwen3-8b/vllm-qwen3"]
	require.Equal(t, "", g.Reason, "compatible on v1.2.2")
	require.Equal(t, "model format 'mt:safetensors:1.0.0:Qwen3ForCausalLM:transformers:4.51' not in supported formats", g.ReasonBefore)
	require.Equal(t, "v0.1.4 parses only versions of three numbers, without a v: model 4.51, entry 4.52", g.Rule)
	w := reworded["qwen3-8b/flux-runtime"]
	require.Equal(t, "model format 'mt:safetensors:1.0.0:Qwen3ForCausalLM:transformers:4.51' not in supported formats", w.ReasonBefore)
	require.True(t, strings.HasPrefix(w.Reason, w.ReasonBefore+": diffusion pipeline required by runtime"), w.Reason)
	require.Equal(t, "v0.1.4 gives the model's label alone as its reason, without the entries' differences", w.Rule)
	require.Len(t, reworded, 2, "JSON lists the reason changes without --show-reasons")

	r = evaluate(t, 2*time.Minute, "", "diff", "-o", "markdown", "--ome-version", "v0.1.4", "--to-ome-version", "v1.2.2", at(upgradeExample))
	require.Equal(t, exitFindings, r.code, r.stderr)
	require.Contains(t, r.stdout, "| Model | | Runtime | OME v0.1.4 | OME v1.2.2 | Rule |\n")
	require.Contains(t, r.stdout, "| compatible | v0.1.4 parses only versions of three numbers, without a v: model 4.51, entry 4.52 |\n")
	require.NotContains(t, r.stdout, "Pairs whose reason reads differently (")
}

// A reason that reads differently under the same verdict is a change for
// --fail-on=changes, counted apart, and listed with --show-reasons.
func TestDiffReasonChanges(t *testing.T) {
	dir := t.TempDir()
	models, err := os.ReadFile(at(upgradeExample + "/models.yaml"))
	require.NoError(t, err)
	runtimes, err := os.ReadFile(at(upgradeExample + "/runtimes.yaml"))
	require.NoError(t, err)
	// qwen3-8b and flux-runtime alone: not compatible on either release.
	qwen := strings.Split(string(models), "---\n")[0]
	flux := strings.Split(string(runtimes), "---\n")[1]
	require.Contains(t, qwen, "name: qwen3-8b")
	require.Contains(t, flux, "name: flux-runtime")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "pair.yaml"), []byte(qwen+"---\n"+flux), 0o644))
	args := []string{"diff", "--ome-version", "v0.1.4", "--to-ome-version", "v0.1.5", dir}

	r := evaluate(t, time.Minute, "", args...)
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, "\nVerdicts that hold in other words: 1 pair, 0 refusals; --show-reasons lists them\n0 regressions, 0 verdict changes, 1 reason change; ")
	require.NotContains(t, r.stdout, "flux-runtime")

	r = evaluate(t, time.Minute, "", append(args, "--fail-on=changes")...)
	require.Equal(t, exitFindings, r.code, r.stderr)

	r = evaluate(t, time.Minute, "", append(args, "--show-reasons", "--engine", "both")...)
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, "Reasons that read differently (not compatible before and after):\n"+
		"  ClusterBaseModel qwen3-8b\n"+
		"    ~ ClusterServingRuntime flux-runtime (OME's rules changed)\n"+
		"        v0.1.4: model format 'mt:safetensors:1.0.0:Qwen3ForCausalLM:transformers:4.51' not in supported formats\n"+
		"        v0.1.5: model format 'mt:safetensors:1.0.0:Qwen3ForCausalLM:transformers:4.51' not in supported formats: diffusion pipeline required by runtime but not specified in model, ")
	require.Contains(t, r.stdout, "        rule:   v0.1.4 gives the model's label alone as its reason, without the entries' differences\n")
	require.NotContains(t, r.stdout, "--show-reasons lists them")

	r = evaluate(t, time.Minute, "", append(args, "--show-reasons", "-o", "markdown")...)
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, "No decision changes; some read differently.")
	require.Contains(t, r.stdout, "<details><summary>Pairs whose reason reads differently (1)</summary>")

	// v0.1.5 and v1.2.2 word this pair alike.
	r = evaluate(t, time.Minute, "", "diff", "--ome-version", "v0.1.5", "--to-ome-version", "v1.2.2", "--fail-on=changes", dir)
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, "No decision changed.\n0 regressions, 0 verdict changes, 0 reason changes; ")
}

// --to-ome-version naming the old side's release compares nothing: a
// usage error.
func TestDiffUpgradeToTheSameRelease(t *testing.T) {
	for _, args := range [][]string{
		{"--ome-version", "v1.2.2", "--to-ome-version", "v1.2.2"},
		{"--to-ome-version", "v1.2.2"},
		{"--ome-version", "0.1.4", "--to-ome-version", "v0.1.4"},
	} {
		r := evaluate(t, time.Minute, "", append(append([]string{"diff"}, args...), at(upgradeExample))...)
		require.Equal(t, exitBadInput, r.code, r.stdout)
		require.Empty(t, r.stdout)
		release := "v1.2.2"
		if strings.Contains(args[1], "0.1.4") {
			release = "v0.1.4"
		}
		require.Contains(t, r.stderr, "--to-ome-version: both sides are OME "+release+": name another release")
	}
}
