package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// explain quotes OME only where the chosen release says it: what follows
// "OME:" is that release's text, byte for byte, and a hint that names a
// rule of a later release appears only on the releases that have it. Both
// engines, through the command.
func TestExplainInEachReleasesWords(t *testing.T) {
	models, runtimes := at("testdata/examples/upgrade/models.yaml"), at("testdata/examples/upgrade/runtimes.yaml")
	const label = "model format 'mt:safetensors:1.0.0:Qwen3ForCausalLM:transformers:4.51' not in supported formats"
	const fluxEntry = "diffusion pipeline required by runtime but not specified in model, model has architecture Qwen3ForCausalLM but runtime has no architecture requirement, format name mismatch (model=safetensors, runtime=diffusers), framework name mismatch (model=transformers, runtime=diffusers)"
	const equalHint = "(missing numbers count as 0; the v does not count)"
	for _, tc := range []struct {
		release      string
		runtime      string
		code         int
		has, hasNot  []string
		quotedEntry0 string // what entry 0's "(OME: ...)" holds, "" for none
	}{
		{"v0.1.4", "flux-runtime", exitFindings,
			[]string{"  OME:     " + label + "\n", "  entry 0: no match\n",
				"  note:    OME v0.1.4 gives the model's label alone as its reason, without the entries' differences\n",
				"evaluate's checks, by OME v0.1.4's rules:", "PASS pipeline      OME v0.1.4 does not compare diffusion pipelines"},
			[]string{"(OME:"}, ""},
		{"v0.1.4", "vllm-qwen3", exitFindings,
			[]string{"  OME:     " + label + "\n", "FAIL framework     names match (transformers); neither version parses\n",
				"fix: fix both versions, the entry's 4.52 and the model's 4.51: OME before v0.1.5 reads exactly three numbers, without a v\n",
				"entry 1.0.0 Equal (no operator) accepts a version equal to 1.0.0; the model's 1.0.0 is equal\n"},
			[]string{"(OME:", equalHint, "fix the entry's version 4.52"}, ""},
		{"v0.1.5", "flux-runtime", exitFindings,
			[]string{"  OME:     " + label + ": " + fluxEntry + "\n", "evaluate's checks, by OME v0.1.5's rules:"},
			[]string{"note:"}, fluxEntry},
		{"v0.1.5", "vllm-qwen3", exitOK,
			[]string{"  verdict: compatible\n", equalHint, "entry 4.52 GreaterThanOrEqual accepts model 4.51"},
			[]string{"OME:", "note:"}, ""},
		{"v1.2.2", "flux-runtime", exitFindings,
			[]string{"  OME:     " + label + ": " + fluxEntry + "\n"},
			[]string{"note:"}, fluxEntry},
		{"v1.2.2", "vllm-qwen3", exitOK,
			[]string{"  verdict: compatible\n", equalHint},
			[]string{"OME:"}, ""},
	} {
		t.Run(tc.release+"/"+tc.runtime, func(t *testing.T) {
			r := evaluate(t, time.Minute, "", "explain", "--engine", "both", "--ome-version", tc.release,
				"-m", models, "--model-name", "qwen3-8b", "-r", runtimes, "--runtime-name", tc.runtime)
			require.Equal(t, tc.code, r.code, r.stderr)
			for _, s := range tc.has {
				require.Contains(t, r.stdout, s)
			}
			for _, s := range tc.hasNot {
				require.NotContains(t, r.stdout, s)
			}
			quoted := regexp.MustCompile(`(?m)^  entry 0: no match \(OME: (.*)\)$`).FindStringSubmatch(r.stdout)
			if tc.quotedEntry0 == "" {
				require.Nil(t, quoted)
			} else {
				require.Equal(t, tc.quotedEntry0, quoted[1])
			}

			r = evaluate(t, time.Minute, "", "explain", "-o", "json", "--engine", "both", "--ome-version", tc.release,
				"-m", models, "--model-name", "qwen3-8b", "-r", runtimes, "--runtime-name", tc.runtime)
			require.Equal(t, tc.code, r.code, r.stderr)
			var doc struct {
				Explanations []struct {
					Reason     string `json:"reason"`
					ReasonRule string `json:"reasonRule"`
					Entries    []struct {
						Differences []string `json:"differences"`
						Checks      []struct {
							Check, Rule string
						} `json:"checks"`
					} `json:"entries"`
				} `json:"explanations"`
			}
			require.NoError(t, json.Unmarshal([]byte(r.stdout), &doc))
			e := doc.Explanations[0]
			require.Equal(t, strings.Join(e.Entries[0].Differences, ", "), tc.quotedEntry0)
			require.Equal(t, tc.release == "v0.1.4", e.ReasonRule != "", e.ReasonRule)
			rules := map[string]string{}
			for _, c := range e.Entries[0].Checks {
				rules[c.Check] = c.Rule
			}
			want := map[string]string{}
			switch {
			case tc.release != "v0.1.4":
			case tc.runtime == "flux-runtime":
				want["pipeline"] = "does not compare diffusion pipelines"
			default:
				want["framework"] = "parses only versions of three numbers, without a v: model 4.51, entry 4.52"
			}
			for _, c := range []string{"pipeline", "architecture", "quantization", "format", "framework"} {
				require.Equal(t, want[c], rules[c], c)
			}
		})
	}
}

// A disabled runtime's reason is OME's alone: no entry is quoted, on any
// release.
func TestExplainDisabledRuntimeQuotesNoEntry(t *testing.T) {
	for _, release := range []string{"v0.1.4", "v0.1.5", "v1.2.2"} {
		r := evaluate(t, time.Minute, `apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata: {name: off}
spec:
  disabled: true
  supportedModelFormats: [{modelFormat: {name: onnx}, modelFramework: {name: onnx}, autoSelect: true}]
`, "explain", "--engine", "both", "--ome-version", release, "-m", at("testdata/examples/upgrade/models.yaml"), "--model-name", "qwen3-8b", "-r", "-")
		require.Equal(t, exitFindings, r.code, r.stderr)
		require.Contains(t, r.stdout, "  OME:     runtime is disabled\n", release)
		require.Contains(t, r.stdout, "  entry 0: no match\n", release)
		require.NotContains(t, r.stdout, "(OME:", release)
	}
}
