package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ome-policy/evaluator/runner"
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
	t.Setenv(runner.ReleaseEnv, "v0.1.5")
	require.Equal(t, "v0.1.5", release(t), "$EVALUATE_OME_VERSION")
	require.Equal(t, "v0.1.4", release(t, "--ome-version", "v0.1.4"), "the flag wins")
	t.Setenv(runner.ReleaseEnv, "v0.9")
	r := evaluate(t, time.Minute, "", "match", "-m", exModels, "-r", exRuntimes)
	require.Equal(t, exitBadInput, r.code)
	require.Contains(t, r.stderr, runner.ReleaseEnv+`: unknown OME release "v0.9"`)
}

// everyRelease is a match case that holds on every release.
const everyRelease = `- name: every release
  model: {spec: {modelFormat: {name: onnx}}}
  runtime: {spec: {supportedModelFormats: [{modelFormat: {name: onnx}, autoSelect: true}]}}
  expect: {compatible: true}
`

// twoNumbers is a match case whose expectation holds on v1.2.2 and v0.1.5:
// v0.1.4 parses only versions of three numbers.
const twoNumbers = `- name: two numbers
  model: {spec: {modelFormat: {name: safetensors, version: "1.0"}, modelFramework: {name: transformers, version: "4.51"}}}
  runtime: {spec: {supportedModelFormats: [{modelFormat: {name: safetensors, version: "1.0"}, modelFramework: {name: transformers, version: "4.51"}, autoSelect: true}]}}
  expect: {compatible: true}
`

// evaluate test answers for one release, as every command does: a case
// without omeVersions runs on --ome-version, else $EVALUATE_OME_VERSION,
// else the newest; --ome-version all runs each case on every release it
// holds for.
func TestTestOneRelease(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "cases.yaml", "cases:\n"+everyRelease+`- name: the newest only
  omeVersions: [v1.2.2]
  model: {spec: {modelFormat: {name: onnx}}}
  runtime: {spec: {supportedModelFormats: [{modelFormat: {name: onnx}, autoSelect: true}]}}
  expect: {compatible: true}
`)
	for _, tc := range []struct {
		name, env string
		args      []string
		stdout    string
		notice    string
	}{
		{"the newest by default", "", nil, "2 passed, 0 failed (4 runs: 2 engines)\n", ""},
		{"--ome-version", "", []string{"--ome-version", "v0.1.4"}, "1 passed, 0 failed (2 runs: 2 engines)\n",
			"notice: " + file + ": 1 of 2 cases left out: it holds only for OME v1.2.2\n"},
		{"$EVALUATE_OME_VERSION", "0.1.5", nil, "1 passed, 0 failed (2 runs: 2 engines)\n",
			"notice: " + file + ": 1 of 2 cases left out: it holds only for OME v1.2.2\n"},
		{"the flag wins", "v0.1.5", []string{"--ome-version", "v1.2.2", "--engine", "cel"}, "2 passed, 0 failed\n", ""},
		{"every release", "v0.1.5", []string{"--ome-version", "all"}, "2 passed, 0 failed (8 runs: 2 engines, 3 releases)\n", ""},
		{"every release, one engine", "", []string{"--ome-version", "all", "--engine", "rego"}, "2 passed, 0 failed (4 runs: 3 releases)\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(runner.ReleaseEnv, tc.env)
			r := evaluate(t, time.Minute, "", append(append([]string{"test"}, tc.args...), file)...)
			require.Equal(t, exitOK, r.code, r.stderr)
			require.Equal(t, tc.stdout, r.stdout)
			require.Equal(t, tc.notice, r.stderr)
		})
	}
	t.Setenv(runner.ReleaseEnv, "all")
	r := evaluate(t, time.Minute, "", "test", file)
	require.Equal(t, exitBadInput, r.code, "all is test's --ome-version only")
	require.Contains(t, r.stderr, runner.ReleaseEnv+`: unknown OME release "all"`)
}

// A case written for some releases, run on another, fails with what the
// release says; the detail says where the expectation holds, not that the
// engines are wrong.
func TestTestReleaseSpecificCase(t *testing.T) {
	file := writeFile(t, t.TempDir(), "cases.yaml", "cases:\n"+twoNumbers)
	const hint = "holds on v1.2.2 and v0.1.5; add omeVersions: [v1.2.2, v0.1.5] to this case if it is release-specific"
	r := evaluate(t, time.Minute, "", "test", file)
	require.Equal(t, exitOK, r.code, r.stdout)
	r = evaluate(t, time.Minute, "", "test", "--ome-version", "v0.1.4", file)
	require.Equal(t, exitFindings, r.code, r.stderr)
	require.Equal(t, "FAIL "+file+":2: two numbers [both; OME v0.1.4]\n"+
		"  expected:\n"+
		"    compatible: true\n"+
		"  got:\n"+
		"    compatible: false\n"+
		"    reason: \"model format 'mt:safetensors:1.0:transformers:4.51' not in supported formats\"\n"+
		"  detail: cel and rego agree; the expectation differs, and "+hint+"\n"+
		"0 passed, 1 failed (2 runs: 2 engines)\n", r.stdout)
	r = evaluate(t, time.Minute, "", "test", "--ome-version", "all", "--engine", "cel", "-o", "json", file)
	require.Equal(t, exitFindings, r.code, r.stderr)
	rep := decodeTestJSON(t, r.stdout)
	require.Equal(t, []int{0, 1, 2, 1}, []int{rep.Passed, rep.Failed, rep.Runs.Passed, rep.Runs.Failed}, "one case, on three releases")
	res := rep.Cases
	require.Len(t, res, 3)
	require.True(t, res[0].Passed && res[1].Passed)
	require.False(t, res[2].Passed)
	require.Equal(t, "the expectation "+hint, res[2].Detail)

	named := writeFile(t, t.TempDir(), "cases.yaml", "omeVersions: [v1.2.2, v0.1.4]\ncases:\n"+twoNumbers)
	r = evaluate(t, time.Minute, "", "test", "--ome-version", "v0.1.4", named)
	require.Equal(t, exitFindings, r.code, r.stderr)
	require.Contains(t, r.stdout, "  detail: cel and rego agree; the expectation differs\n", "a case that names its releases is not told to")
}

// A file that holds no case for the release gives the same exit code alone
// and in a folder: a notice and 0 when other files of the run hold cases,
// 2 when nothing in the run holds.
func TestTestNoCaseHolds(t *testing.T) {
	dir := t.TempDir()
	only := writeFile(t, dir, "newest.yaml", "omeVersions: [v1.2.2]\ncases:\n"+everyRelease)
	notice := "notice: " + only + ": no case holds for OME v0.1.5 (its cases hold for v1.2.2)\n"
	alone := filepath.Join(dir, "alone")
	require.NoError(t, os.Mkdir(alone, 0o755))
	writeFile(t, alone, "newest.yaml", "omeVersions: [v1.2.2]\ncases:\n"+everyRelease)
	withOther := filepath.Join(dir, "with-other")
	require.NoError(t, os.Mkdir(withOther, 0o755))
	writeFile(t, withOther, "newest.yaml", "omeVersions: [v1.2.2]\ncases:\n"+everyRelease)
	writeFile(t, withOther, "every.yaml", "cases:\n"+everyRelease)
	other := writeFile(t, dir, "every.yaml", "cases:\n"+everyRelease)

	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"the file alone", []string{only}, exitBadInput, "evaluate: " + only + ": no case holds for OME v0.1.5 (each names the releases it holds for in omeVersions)\n"},
		{"the file alone in a folder", []string{alone}, exitBadInput, "evaluate: " + alone + ": no case holds for OME v0.1.5 (each names the releases it holds for in omeVersions)\n"},
		{"the file and another", []string{only, other}, exitOK, notice},
		{"the file and another in a folder", []string{withOther}, exitOK,
			"notice: " + filepath.Join(withOther, "newest.yaml") + ": no case holds for OME v0.1.5 (its cases hold for v1.2.2)\n"},
		{"the file and Rego tests", []string{only, bad("failing_test.rego")}, exitFindings, notice},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := evaluate(t, time.Minute, "", append([]string{"test", "--ome-version", "v0.1.5"}, tc.args...)...)
			require.Equal(t, tc.code, r.code, r.stdout)
			require.Equal(t, tc.stderr, r.stderr)
		})
	}
}

// A bad omeVersions at the top of a case file is said at its own line, not
// as the first case's.
func TestTestFileOMEVersions(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ top, want string }{
		{"omeVersions: [v9.9.9]", ":2: omeVersions: names v9.9.9, which is not an OME release the policies state (v1.2.2, v0.1.5, v0.1.4)\n"},
		{"omeVersions: [3]", ":2: omeVersions[0]: must be an OME release such as v0.1.4, got a number (3)\n"},
		{"omeVersions: v1.2.2", ":2: omeVersions: must be a non-empty list of OME releases (such as v0.1.4), got a string (\"v1.2.2\")\n"},
	} {
		file := writeFile(t, dir, "cases.yaml", "# the releases\n"+tc.top+"\ncases:\n"+everyRelease)
		r := evaluate(t, time.Minute, "", "test", file)
		require.Equal(t, exitBadInput, r.code, r.stdout)
		require.Equal(t, "evaluate: "+file+tc.want, r.stderr)
	}
}
