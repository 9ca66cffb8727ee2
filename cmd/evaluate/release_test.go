package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Every command that evaluates takes --ome-version: an unknown release is
// bad input that lists the known ones.
func TestUnknownOMEVersion(t *testing.T) {
	out := t.TempDir()
	for _, args := range [][]string{
		{"match", "-m", exModels, "-r", exRuntimes},
		{"explain", "-m", exModels, "-r", exRuntimes},
		{"select", "-f", at("testdata/examples/select"), "-f", exModels, "-f", exRuntimes},
		{"lint", exRuntimes},
		{"test", at("testdata/cases/spec-operators.yaml")},
		{"diff", "--to-ome-version", "v0.1.5", at("testdata/examples/upgrade")},
		{"report", "-m", exModels, "-r", exRuntimes, "-o", filepath.Join(out, "r.html")},
		{"gatekeeper", "--out", filepath.Join(out, "gk"), "--native-out", ""},
		{"policies"},
	} {
		t.Run(args[0], func(t *testing.T) {
			r := evaluate(t, time.Minute, "", append(args, "--ome-version", "v9.9.9")...)
			require.Equal(t, exitBadInput, r.code, r.stderr)
			require.Empty(t, r.stdout)
			require.Contains(t, r.stderr, `--ome-version: unknown OME release "v9.9.9": the policies state v1.2.2, v0.1.5, v0.1.4`)
		})
	}
	r := evaluate(t, time.Minute, "", "diff", "--to-ome-version", "latest", at("testdata/examples/upgrade"))
	require.Equal(t, exitBadInput, r.code, r.stderr)
	require.Contains(t, r.stderr, `--to-ome-version: unknown OME release "latest"`)
}

// The release comes from --ome-version, else $EVALUATE_OME_VERSION, else
// it is the newest; "0.1.4" is "v0.1.4"; -o json names it.
func TestOMEVersionChoice(t *testing.T) {
	release := func(t *testing.T, args ...string) string {
		t.Helper()
		r := evaluate(t, time.Minute, "", append([]string{"match", "-o", "json", "-m", exModels, "-r", exRuntimes}, args...)...)
		require.Contains(t, []int{0, 1}, r.code, r.stderr)
		var doc struct {
			OMEVersion string `json:"omeVersion"`
		}
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &doc))
		return doc.OMEVersion
	}
	require.Equal(t, "v1.2.2", release(t), "the newest by default")
	require.Equal(t, "v0.1.4", release(t, "--ome-version", "0.1.4"))
	t.Setenv(releaseEnv, "v0.1.5")
	require.Equal(t, "v0.1.5", release(t), "$EVALUATE_OME_VERSION")
	require.Equal(t, "v0.1.4", release(t, "--ome-version", "v0.1.4"), "the flag wins")
	t.Setenv(releaseEnv, "v0.9")
	r := evaluate(t, time.Minute, "", "match", "-m", exModels, "-r", exRuntimes)
	require.Equal(t, exitBadInput, r.code)
	require.Contains(t, r.stderr, releaseEnv+`: unknown OME release "v0.9"`)
}

// evaluate test with --ome-version runs the cases that hold for it, says
// how many it left out, and fails when none holds.
func TestTestOneRelease(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "cases.yaml")
	require.NoError(t, os.WriteFile(file, []byte(`cases:
- name: every release
  model: {spec: {modelFormat: {name: onnx}}}
  runtime: {spec: {supportedModelFormats: [{modelFormat: {name: onnx}, autoSelect: true}]}}
  expect: {compatible: true}
- name: the newest only
  omeVersions: [v1.2.2]
  model: {spec: {modelFormat: {name: onnx}}}
  runtime: {spec: {supportedModelFormats: [{modelFormat: {name: onnx}, autoSelect: true}]}}
  expect: {compatible: true}
`), 0o644))
	r := evaluate(t, time.Minute, "", "test", "--ome-version", "v0.1.4", file)
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Equal(t, "1 passed, 0 failed\n", r.stdout)
	require.Equal(t, "notice: 1 case(s) left out, which hold for other OME releases than v0.1.4\n", r.stderr)

	r = evaluate(t, time.Minute, "", "test", file)
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Equal(t, "4 passed, 0 failed\n", r.stdout, "the first on three releases, the second on one")
	require.Empty(t, r.stderr)

	only := filepath.Join(dir, "newest.yaml")
	text, err := os.ReadFile(file)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(only, []byte("omeVersions: [v1.2.2]\n"+string(text)), 0o644))
	r = evaluate(t, time.Minute, "", "test", "--ome-version", "v0.1.5", only)
	require.Equal(t, exitBadInput, r.code, r.stdout)
	require.Contains(t, r.stderr, "no case holds for OME v0.1.5")
}
