package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// isvcFile writes an InferenceService of the namespace demo that asks for
// the model qwen3-8b, with spec's further lines (indented by two spaces).
func isvcFile(t *testing.T, name, specLines string) string {
	t.Helper()
	doc := "apiVersion: ome.io/v1beta1\nkind: InferenceService\nmetadata:\n  name: " + name + "\n  namespace: demo\nspec:\n  model:\n    name: qwen3-8b\n" + specLines
	p := filepath.Join(t.TempDir(), name+".yaml")
	require.NoError(t, os.WriteFile(p, []byte(doc), 0o644))
	return p
}

// selectUpgrade runs select on one InferenceService file with the models
// and runtimes of testdata/examples/upgrade.
func selectUpgrade(t *testing.T, engine, release, isvc string) result {
	t.Helper()
	return evaluate(t, 30*time.Second, "", "select", "--engine", engine, "--ome-version", release, "-f", isvc,
		"-f", at("testdata/examples/upgrade/models.yaml"), "-f", at("testdata/examples/upgrade/runtimes.yaml"))
}

// The fields an InferenceService has that the release's CRD lacks: select
// says so in a notice on it, and decides as OME does on what the API
// server stores, the object without them; v1.2.2, whose CRD has them,
// reads the pin and refuses it.
func TestSelectSaysTheFieldsTheReleaseDrops(t *testing.T) {
	pin := "  runtime:\n    name: vllm-qwen3\n    revision: cr-vllm-qwen3-0123abcd\n    autoSync: true\n  engine: {}\n"
	pinned := isvcFile(t, "qwen-pinned", pin)
	stored := isvcFile(t, "qwen-pinned", "  runtime:\n    name: vllm-qwen3\n  engine: {}\n")
	for _, engine := range []string{"cel", "rego"} {
		for _, release := range []string{"v1.2.2", "v0.1.5", "v0.1.4"} {
			t.Run(engine+"/"+release, func(t *testing.T) {
				r := selectUpgrade(t, engine, release, pinned)
				if release == "v1.2.2" {
					require.Equal(t, 1, r.code, r.stderr)
					require.Contains(t, r.stdout, "REJECTED: spec.runtime.revision requires spec.runtime.autoSync=false")
					require.NotContains(t, r.stderr, "notice")
					return
				}
				for _, f := range []struct {
					field string
					line  int
				}{{"revision", 11}, {"autoSync", 12}} {
					require.Contains(t, r.stderr, pinned+":"+strconv.Itoa(f.line)+": notice: InferenceService/demo/qwen-pinned: spec.runtime."+f.field+
						": OME "+release+"'s InferenceService CRD has no spec.runtime."+f.field+" (OME v1.2.2's has): the API server drops the field on apply, so OME never reads it. Remove it, or upgrade OME to v1.2.2.\n")
				}
				want := selectUpgrade(t, engine, release, stored)
				require.Equal(t, want.code, r.code)
				require.Equal(t, strings.ReplaceAll(want.stdout, stored, pinned), r.stdout, "decided as the object without the fields")
			})
		}
	}
}

// An ome.io/deploymentMode that the release does not know on an
// InferenceService's engine or decoder: OME reads none, and so does
// evaluate (the decision is the one without the annotation), and select
// says so in a notice. Serverless is no mode of v1.2.2's, raw-deployment of
// no release's; before v1.2.2, OME compares no mode at all. MultiNode, a
// mode v1.2.2 knows, excludes vllm-qwen3, whose engine declares
// RawDeployment.
func TestSelectSaysTheDeploymentModesTheReleaseDoesNotKnow(t *testing.T) {
	for _, engine := range []string{"cel", "rego"} {
		for _, tc := range []struct {
			release, component, mode string
			notice                   string // "" when the release compares the mode
		}{
			{"v1.2.2", "engine", "Serverless", `ome.io/deploymentMode "Serverless" is not a deployment mode OME knows (RawDeployment, MultiNodeRayVLLM, MultiNode, VirtualDeployment): it reads none, so no runtime is excluded for this InferenceService's engine mode.`},
			{"v1.2.2", "decoder", "raw-deployment", `ome.io/deploymentMode "raw-deployment" is not a deployment mode OME knows (RawDeployment, MultiNodeRayVLLM, MultiNode, VirtualDeployment): it reads none, so no runtime is excluded for this InferenceService's decoder mode.`},
			{"v0.1.5", "engine", "raw-deployment", `OME before v1.2.2 compares no deployment mode when it selects a runtime: ome.io/deploymentMode "raw-deployment" excludes no runtime for this InferenceService's engine mode. Nor will OME v1.2.2`},
			{"v0.1.4", "decoder", "Serverless", `OME before v1.2.2 compares no deployment mode when it selects a runtime: ome.io/deploymentMode "Serverless" excludes no runtime for this InferenceService's decoder mode.`},
			{"v0.1.5", "engine", "MultiNode", `OME before v1.2.2 compares no deployment mode when it selects a runtime: ome.io/deploymentMode "MultiNode" excludes no runtime for this InferenceService's engine mode. OME v1.2.2 compares it.`},
			{"v1.2.2", "engine", "MultiNode", ""},
		} {
			t.Run(engine+"/"+tc.release+"/"+tc.component+"/"+tc.mode, func(t *testing.T) {
				// Both components, the one of the case with the annotation
				// (on line 11 or 12).
				lines := map[string]string{"engine": "  engine: {}\n", "decoder": "  decoder: {}\n"}
				plain := isvcFile(t, "qwen-chat", lines["engine"]+lines["decoder"])
				lines[tc.component] = "  " + tc.component + ":\n    annotations:\n      ome.io/deploymentMode: " + tc.mode + "\n"
				f := isvcFile(t, "qwen-chat", lines["engine"]+lines["decoder"])
				line := map[string]string{"engine": "11", "decoder": "12"}[tc.component]
				r := selectUpgrade(t, engine, tc.release, f)
				if tc.notice == "" {
					require.Equal(t, 1, r.code, r.stderr)
					require.Contains(t, r.stdout, "ClusterServingRuntime vllm-qwen3: runtime engine deployment mode RawDeployment does not match requested engine deployment mode MultiNode")
					require.NotContains(t, r.stderr, "notice")
					return
				}
				require.Contains(t, r.stderr, f+":"+line+": notice: InferenceService/demo/qwen-chat: spec."+tc.component+`.annotations["ome.io/deploymentMode"]: `+tc.notice)
				want := selectUpgrade(t, engine, tc.release, plain)
				require.Equal(t, want.code, r.code)
				require.Equal(t, strings.ReplaceAll(want.stdout, plain, f), r.stdout, "decided as without the annotation")
			})
		}
	}
}
