package main

import (
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// helmStream is what helm template writes: each document headed by a
// "# Source:" comment; the runtime on lines 10 to 18, its version on 17.
const helmStream = `---
# Source: chart/templates/model.yaml
apiVersion: ome.io/v1beta1
kind: ClusterBaseModel
metadata:
  name: llama
spec: {modelFormat: {name: safetensors}}
---
# Source: chart/templates/rt.yaml
apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata:
  name: vllm
spec:
  supportedModelFormats:
    - modelFormat: {name: safetensors}
      version: "1"
      autoSelect: true
---
apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata:
  name: broken
spec:
  supportedModelFormats: 3
`

// On standard input, a Helm "# Source:" comment names where each document
// came from: chart/templates/rt.yaml (stdin:17) in text, the file and
// standard input's line in json, the file with the place on standard input
// in sarif and github; a document without one stays <stdin>.
func TestStdinSourceComments(t *testing.T) {
	r := evaluate(t, time.Minute, helmStream, "lint", "-")
	require.Equal(t, 1, r.code, r.stderr)
	require.Contains(t, r.stdout, "chart/templates/rt.yaml (stdin:17): warning [ignored-field] spec.supportedModelFormats[0].version: ")
	require.Contains(t, r.stdout, "<stdin>:25: error [wrong-type] spec.supportedModelFormats: ")

	r = evaluate(t, time.Minute, helmStream, "lint", "-o", "json", "-")
	var report struct {
		Findings []struct {
			Rule, File string
			Line       int
		}
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &report))
	places := map[string]string{}
	for _, f := range report.Findings {
		if f.Rule != "ignored-field" && f.Rule != "wrong-type" {
			continue
		}
		places[f.Rule] = f.File + ":" + strconv.Itoa(f.Line)
	}
	require.Equal(t, map[string]string{"ignored-field": "chart/templates/rt.yaml (stdin):17", "wrong-type": "<stdin>:25"}, places)

	r = evaluate(t, time.Minute, helmStream, "lint", "-o", "github", "-")
	require.Contains(t, r.stdout, "::warning file=chart/templates/rt.yaml,title=ignored-field (ClusterServingRuntime vllm) at chart/templates/rt.yaml (stdin%3A17)::")

	r = evaluate(t, time.Minute, helmStream, "lint", "-o", "sarif", "-")
	var sarif struct {
		Runs []struct {
			Results []struct {
				RuleID    string
				Locations []json.RawMessage
			}
		}
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &sarif))
	found := false
	for _, res := range sarif.Runs[0].Results {
		if res.RuleID == "ignored-field" {
			found = true
			require.JSONEq(t, `{"physicalLocation": {"artifactLocation": {"uri": "chart/templates/rt.yaml"}},
				"logicalLocations": [{"name": "spec.supportedModelFormats[0].version", "fullyQualifiedName": "ClusterServingRuntime/vllm.spec.supportedModelFormats[0].version", "kind": "member"}],
				"message": {"text": "chart/templates/rt.yaml (stdin:17)"}}`, string(res.Locations[0]))
		}
	}
	require.True(t, found, r.stdout)

	// An input problem, a notice: the same place.
	twice := helmStream + "---\n# Source: chart/templates/again.yaml\napiVersion: ome.io/v1beta1\nkind: ClusterBaseModel\nmetadata: {name: llama}\nspec: {modelFormat: {name: safetensors}}\n"
	r = evaluate(t, time.Minute, twice, "match", "-")
	require.Equal(t, 2, r.code, r.stderr)
	require.Contains(t, r.stderr, "chart/templates/model.yaml (stdin:3): notice: ClusterBaseModel/llama is given again at chart/templates/again.yaml (stdin:28); the later one replaces it, as on apply\n")
	require.Contains(t, r.stderr, "evaluate: <stdin>:25: spec.supportedModelFormats: must be a list, got a number (3)\n")
}
