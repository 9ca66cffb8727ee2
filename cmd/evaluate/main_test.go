package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

var update = flag.Bool("update", false, "rewrite golden files")

// Paths are given as a user in this folder would type them, so the file
// names in messages and goldens are exactly what the command prints.
const repo = "../.."

var (
	exModels   = at("testdata/examples/models")
	exRuntimes = at("testdata/examples/runtimes")
	goldenDir  = at("testdata/golden")
)

func at(rel string) string   { return repo + "/" + rel }
func bad(name string) string { return at("testdata/bad/" + name) }

// result is one in-process run of the command.
type result struct {
	stdout, stderr string
	code           int
	elapsed        time.Duration
	allocated      uint64 // bytes allocated during the run
}

// lastLine is the last non-empty line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

// evaluate runs the command in-process with stdin, failing the test on a
// panic or when it takes longer than timeout.
func evaluate(t *testing.T, timeout time.Duration, stdin string, args ...string) result {
	t.Helper()
	type outcome struct {
		result
		panicked any
		stack    []byte
	}
	done := make(chan outcome, 1)
	go func() {
		var o outcome
		defer func() {
			if p := recover(); p != nil {
				o.panicked, o.stack = p, debug.Stack()
			}
			done <- o
		}()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		var out, errOut bytes.Buffer
		start := time.Now()
		o.code = run(args, strings.NewReader(stdin), &out, &errOut)
		o.elapsed = time.Since(start)
		runtime.ReadMemStats(&after)
		o.stdout, o.stderr, o.allocated = out.String(), errOut.String(), after.TotalAlloc-before.TotalAlloc
	}()
	select {
	case o := <-done:
		if o.panicked != nil {
			t.Fatalf("evaluate %s panicked: %v\n%s", strings.Join(args, " "), o.panicked, o.stack)
		}
		return o.result
	case <-time.After(timeout):
		t.Fatalf("evaluate %s did not finish within %s", strings.Join(args, " "), timeout)
	}
	return result{}
}

// --- 1. Golden output ------------------------------------------------------

type goldenCase struct {
	name string
	args []string
	code int
	// sameAs, when set, is a file stdout must equal byte for byte, instead
	// of a golden copy (a copy of a policy would go stale at every edit).
	sameAs string
}

var goldenCases = []goldenCase{
	{name: "match-text", args: []string{"match", "-m", exModels, "-r", exRuntimes}},
	{name: "match-json", args: []string{"match", "-m", exModels, "-r", exRuntimes, "-o", "json"}},
	{name: "match-yaml", args: []string{"match", "-m", exModels, "-r", exRuntimes, "-o", "yaml"}},
	{name: "match-rego", args: []string{"match", "-m", exModels, "-r", exRuntimes, "--engine", "rego"}},
	{name: "match-both", args: []string{"match", "-m", exModels, "-r", exRuntimes, "--engine", "both"}},
	{name: "match-unserved", args: []string{"match", "-m", bad("unserved-model.yaml"), "-r", exRuntimes}, code: 1},
	{name: "match-github", args: []string{"match", "-o", "github", "-m", bad("unserved-model.yaml"), "-m", exModels, "-r", exRuntimes}, code: 1},
	{name: "policies", args: []string{"policies"}},
	{name: "policies-rego-match", args: []string{"policies", "rego/match.rego"}, sameAs: at("policies/rego/match.rego")},
	{name: "policies-functions", args: []string{"policies", "--functions"}},
	{name: "test-spec-differences", args: []string{"test", at("testdata/cases/spec-differences.yaml")}},
	{name: "test-json-failing", args: []string{"test", "-o", "json", bad("failing-case.yaml")}, code: 1},
	{name: "test-failing", args: []string{"test", "--ome-version", "all", bad("failing-case.yaml"), bad("failing_test.rego")}, code: 1},
	{name: "help", args: []string{"--help"}},
	{name: "help-match", args: []string{"match", "--help"}},
	{name: "help-test", args: []string{"test", "--help"}},
	{name: "help-policies", args: []string{"policies", "--help"}},
	{name: "help-capabilities", args: []string{"capabilities", "--help"}},
	{name: "help-select", args: []string{"select", "--help"}},
	{name: "select-shared-name", args: []string{"select", "-f", at("testdata/select/shared-name.yaml"), "--engine", "both"}, code: 1},
	{name: "select-shared-name-json", args: []string{"select", "-f", at("testdata/select/shared-name.yaml"), "-o", "json", "--engine", "rego"}, code: 1},
	{name: "select-no-format-name-json", args: []string{"select", "-f", at("testdata/select/no-format-name.yaml"), "-o", "json", "--engine", "both"}, code: 1},
	{name: "gatekeeper-violations-text", args: []string{"gatekeeper", "violations", at("testdata/lint/bad/unknown-operator.yaml"), at("testdata/lint/clean")}, code: 1},
	{name: "gatekeeper-violations-json", args: []string{"gatekeeper", "violations", "-o", "json", "--engine", "rego", at("testdata/gatekeeper/lint-objects.yaml")}, code: 1},
	{name: "gatekeeper-violations-clean", args: []string{"gatekeeper", "violations", "--severities", "error,warning", at("testdata/lint/clean")}},
}

// checkGolden compares got with testdata/golden/<name>.<stream>; a missing
// file means empty. With -update it rewrites the file (removing it when got
// is empty).
func checkGolden(t *testing.T, name, stream, got string) {
	t.Helper()
	path := filepath.Join(goldenDir, name+"."+stream)
	if *update {
		if got == "" {
			if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				t.Fatal(err)
			}
			return
		}
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	if !errors.Is(err, fs.ErrNotExist) {
		require.NoError(t, err)
	}
	require.Equal(t, string(want), got,
		"%s differs from %s; if the change is intended, run go test ./cmd/evaluate -run TestGolden -update and review the diff", stream, path)
}

func TestGolden(t *testing.T) {
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			r := evaluate(t, 30*time.Second, "", tc.args...)
			require.Equal(t, tc.code, r.code, "exit code of evaluate %s\nstderr:\n%s", strings.Join(tc.args, " "), r.stderr)
			if tc.sameAs != "" {
				want, err := os.ReadFile(tc.sameAs)
				require.NoError(t, err)
				require.Equal(t, string(want), r.stdout, "stdout must be %s byte for byte", tc.sameAs)
			} else {
				checkGolden(t, tc.name, "stdout", r.stdout)
			}
			checkGolden(t, tc.name, "stderr", r.stderr)
		})
	}
}

// TestGoldenFilesAreUsed keeps testdata/golden free of files no case reads.
func TestGoldenFilesAreUsed(t *testing.T) {
	used := map[string]bool{}
	for _, tc := range goldenCases {
		used[tc.name+".stdout"] = tc.sameAs == ""
		used[tc.name+".stderr"] = true
	}
	entries, err := os.ReadDir(goldenDir)
	require.NoError(t, err)
	for _, e := range entries {
		require.True(t, used[e.Name()], "%s/%s belongs to no golden case", goldenDir, e.Name())
	}
}

// The text tables are the same whichever engine computes them.
func TestMatchTextSameOnEveryEngine(t *testing.T) {
	cel := evaluate(t, 30*time.Second, "", "match", "-m", exModels, "-r", exRuntimes)
	for _, e := range []string{"rego", "both"} {
		r := evaluate(t, 30*time.Second, "", "match", "-m", exModels, "-r", exRuntimes, "--engine", e)
		require.Equal(t, cel.code, r.code, "engine %s", e)
		require.Equal(t, cel.stdout, r.stdout, "engine %s", e)
		require.Equal(t, cel.stderr, r.stderr, "engine %s", e)
	}
}

// --- 2. JSON contracts -----------------------------------------------------

type jsonRef struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

type jsonEntry struct {
	Index       int             `json:"index"`
	Matched     bool            `json:"matched"`
	Differences json.RawMessage `json:"differences"`
}

type jsonResult struct {
	Model      jsonRef     `json:"model"`
	Runtime    jsonRef     `json:"runtime"`
	Compatible bool        `json:"compatible"`
	Reason     string      `json:"reason"`
	Entries    []jsonEntry `json:"entries"`
}

// requireKeys checks that the JSON object raw has exactly the keys want
// (plus any of optional).
func requireKeys(t *testing.T, raw json.RawMessage, what string, want []string, optional ...string) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(raw, &m), "%s must be a JSON object: %s", what, raw)
	var got []string
	for k := range m {
		if !contains(optional, k) {
			got = append(got, k)
		}
	}
	sort.Strings(got)
	w := append([]string(nil), want...)
	sort.Strings(w)
	require.Equal(t, w, got, "keys of %s", what)
	return m
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// decodeMatchJSON checks the shape of `match -o json` output, key by key,
// and returns its results.
func decodeMatchJSON(t *testing.T, out string) []jsonResult {
	t.Helper()
	top := requireKeys(t, json.RawMessage(out), "the output", []string{"results", "omeVersion", "leftOut", "errors"})
	var leftOut int
	require.NoError(t, json.Unmarshal(top["leftOut"], &leftOut), "leftOut must be a number")
	require.GreaterOrEqual(t, leftOut, 0)
	var problems []map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(top["errors"], &problems), "errors must be a list")
	require.NotNil(t, problems, "errors must be a list, never null")
	for i, p := range problems {
		raw, _ := json.Marshal(p)
		requireKeys(t, raw, fmt.Sprintf("errors[%d]", i), []string{"file", "line", "field", "message"})
	}
	var raws []json.RawMessage
	require.NoError(t, json.Unmarshal(top["results"], &raws), "results must be a list")
	var results []jsonResult
	for i, raw := range raws {
		what := fmt.Sprintf("results[%d]", i)
		r := requireKeys(t, raw, what, []string{"model", "runtime", "compatible", "reason", "entries"})
		requireKeys(t, r["model"], what+".model", []string{"kind", "namespace", "name"})
		requireKeys(t, r["runtime"], what+".runtime", []string{"kind", "namespace", "name"})
		require.NotEqual(t, "null", string(r["entries"]), "%s.entries must be a list, never null", what)
		var entries []json.RawMessage
		require.NoError(t, json.Unmarshal(r["entries"], &entries))
		for j, e := range entries {
			requireKeys(t, e, fmt.Sprintf("%s.entries[%d]", what, j), []string{"index", "matched", "differences"})
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		var res jsonResult
		require.NoError(t, dec.Decode(&res), what)
		results = append(results, res)
	}
	return results
}

// checkResult checks one result against the spec: reason empty exactly when
// compatible; entries indexed in order; differences a list, empty exactly
// when the entry matched; and, when no entry matched, the reason is section
// 7's text built from the entries' differences.
func checkResult(t *testing.T, r jsonResult) {
	t.Helper()
	pair := r.Model.Name + " x " + r.Runtime.Name
	require.Equal(t, r.Compatible, r.Reason == "", "%s: reason must be empty exactly when compatible (reason %q)", pair, r.Reason)
	anyMatched := false
	var parts []string
	for i, e := range r.Entries {
		require.Equal(t, i, e.Index, "%s: entry index", pair)
		require.NotEqual(t, "null", string(e.Differences), "%s: entry %d: differences must be [] rather than null", pair, i)
		var diffs []string
		require.NoError(t, json.Unmarshal(e.Differences, &diffs), "%s: entry %d: differences must be a list of strings", pair, i)
		require.NotNil(t, diffs)
		if e.Matched {
			anyMatched = true
			require.Empty(t, diffs, "%s: a matched entry has no differences", pair)
		} else {
			require.NotEmpty(t, diffs, "%s: an entry that does not match says why", pair)
		}
		parts = append(parts, strings.Join(diffs, ", "))
	}
	if r.Compatible {
		require.True(t, anyMatched, "%s: compatible, so some entry matches", pair)
		return
	}
	if anyMatched {
		return // a runtime-level reason (disabled, size)
	}
	want := strings.Join(parts, "; ")
	if len(r.Entries) == 0 {
		want = "no supported formats defined"
	}
	re := regexp.MustCompile(`^model format 'mt:[^']*' not in supported formats: (.*)$`)
	m := re.FindStringSubmatch(r.Reason)
	require.NotNil(t, m, "%s: reason %q is not spec section 7's text", pair, r.Reason)
	require.Equal(t, want, m[1], "%s: the reason lists each entry's differences, in order", pair)
}

func TestMatchJSONContract(t *testing.T) {
	r := evaluate(t, 30*time.Second, "", "match", "-o", "json", "-m", exModels, "-m", bad("unserved-model.yaml"), "-r", exRuntimes)
	require.Equal(t, 1, r.code, r.stderr)
	results := decodeMatchJSON(t, r.stdout)

	models := []jsonRef{
		{"BaseModel", "llama-demo", "llama-3-2-3b-instruct"},
		{"ClusterBaseModel", "", "llama-3-2-3b-instruct-4-46"},
		{"ClusterBaseModel", "", "mistral-7b-instruct"},
		{"ClusterBaseModel", "", "onnx-model"},
	}
	runtimes := []string{"llama-transformers-up-to-4-46", "srt-llama-3-2-3b-instruct", "srt-mistral-7b-instruct", "vllm-llama-3-2-3b-instruct"}
	require.Len(t, results, len(models)*len(runtimes))
	for i, res := range results {
		require.Equal(t, models[i/len(runtimes)], res.Model, "result %d: ordered by model, then runtime", i)
		require.Equal(t, jsonRef{"ClusterServingRuntime", "", runtimes[i%len(runtimes)]}, res.Runtime, "result %d", i)
		checkResult(t, res)
	}
	// Spot checks against the spec: the seed's example reason (section 7)
	// and the user page's GreaterThanOrEqual upper limit (4.4).
	require.Equal(t, "model format 'mt:safetensors:1.0.0:LlamaForCausalLM:transformers:4.46.0' not in supported formats: framework version mismatch (model=4.46.0, runtime=4.45.0.dev0)",
		results[1*4+1].Reason)
	require.True(t, results[1*4+0].Compatible, "4.46.0 >= 4.46.0")
	require.False(t, results[0*4+0].Compatible, "a suffix forces equality")
	require.True(t, results[0*4+1].Compatible)
}

// Results come in the order the objects were read: the order of the -m and
// -r arguments, then the order within each file, not sorted by name.
func TestMatchJSONOrderIsInputOrder(t *testing.T) {
	rt := func(n string) string { return exRuntimes + "/" + n + ".yaml" }
	r := evaluate(t, 30*time.Second, "", "match", "-o", "json",
		"-m", exModels+"/more-models.yaml", "-m", exModels+"/llama-3-2-3b-instruct.yaml",
		"-r", rt("vllm-llama-3-2-3b-instruct"), "-r", rt("srt-mistral-7b-instruct"),
		"-r", rt("llama-transformers-up-to-4-46"), "-r", rt("srt-llama-3-2-3b-instruct"))
	require.Equal(t, 0, r.code, r.stderr)
	models := []string{"llama-3-2-3b-instruct-4-46", "mistral-7b-instruct", "llama-3-2-3b-instruct"}
	runtimes := []string{"vllm-llama-3-2-3b-instruct", "srt-mistral-7b-instruct", "llama-transformers-up-to-4-46", "srt-llama-3-2-3b-instruct"}
	results := decodeMatchJSON(t, r.stdout)
	require.Len(t, results, 12)
	for i, res := range results {
		require.Equal(t, models[i/4], res.Model.Name, "result %d", i)
		require.Equal(t, runtimes[i%4], res.Runtime.Name, "result %d", i)
	}
}

// The three formats carry the same document, and every engine gives the
// same bytes.
func TestMatchFormatsAgree(t *testing.T) {
	args := []string{"match", "-m", exModels, "-r", exRuntimes}
	js := evaluate(t, 30*time.Second, "", append(args, "-o", "json")...)
	require.Equal(t, 0, js.code, js.stderr)
	for _, e := range []string{"rego", "both"} {
		r := evaluate(t, 30*time.Second, "", append(args, "-o", "json", "--engine", e)...)
		require.Equal(t, js.stdout, r.stdout, "engine %s", e)
	}
	ym := evaluate(t, 30*time.Second, "", append(args, "-o", "yaml")...)
	require.Equal(t, 0, ym.code, ym.stderr)
	var fromJSON, fromYAML any
	require.NoError(t, json.Unmarshal([]byte(js.stdout), &fromJSON))
	require.NoError(t, yaml.Unmarshal([]byte(ym.stdout), &fromYAML))
	// yaml.v3 reads numbers as int; JSON as float64. Compare through JSON.
	b, err := json.Marshal(fromYAML)
	require.NoError(t, err)
	var yamlAsJSON any
	require.NoError(t, json.Unmarshal(b, &yamlAsJSON))
	require.Equal(t, fromJSON, yamlAsJSON)
}

// jsonRun is an entry of test -o json's cases: one case on one engine and
// one OME release.
type jsonRun struct {
	File       string          `json:"file"`
	Line       int             `json:"line"`
	Name       string          `json:"name"`
	Engine     string          `json:"engine"`
	OMEVersion string          `json:"omeVersion"`
	Passed     bool            `json:"passed"`
	Expected   json.RawMessage `json:"expected"`
	Got        json.RawMessage `json:"got"`
	Detail     string          `json:"detail"`
}

type jsonTestReport struct {
	Passed, Failed int
	Runs           struct{ Passed, Failed int }
	Engines        []string
	OMEVersions    []string
	Cases          []jsonRun
}

// runCount is the number of runs the report counts.
func (r jsonTestReport) runCount() int { return r.Runs.Passed + r.Runs.Failed }

// decodeTestJSON reads test -o json, checking its keys: the contract's
// {"passed", "failed", "cases": [{"file", "name", "engine", "passed",
// "expected", "got"}]}, with "runs", "engines", "omeVersions" beside, and
// "line", "omeVersion", "detail" in each entry.
func decodeTestJSON(t *testing.T, out string) jsonTestReport {
	t.Helper()
	var r jsonTestReport
	top := requireKeys(t, json.RawMessage(out), "the output", []string{"passed", "failed", "runs", "engines", "omeVersions", "cases"})
	require.NoError(t, json.Unmarshal(top["passed"], &r.Passed))
	require.NoError(t, json.Unmarshal(top["failed"], &r.Failed))
	requireKeys(t, top["runs"], "runs", []string{"passed", "failed"})
	require.NoError(t, json.Unmarshal(top["runs"], &r.Runs))
	require.NoError(t, json.Unmarshal(top["engines"], &r.Engines))
	require.NoError(t, json.Unmarshal(top["omeVersions"], &r.OMEVersions))
	require.NotEqual(t, "null", string(top["cases"]), "cases must be a list, never null")
	var raws []json.RawMessage
	require.NoError(t, json.Unmarshal(top["cases"], &raws))
	for i, raw := range raws {
		requireKeys(t, raw, fmt.Sprintf("cases[%d]", i), []string{"file", "name", "engine", "omeVersion", "passed", "expected", "got"}, "line", "detail")
		var run jsonRun
		require.NoError(t, json.Unmarshal(raw, &run))
		r.Cases = append(r.Cases, run)
	}
	return r
}

// passed/failed count cases, runs count each engine and release a case ran
// on, and cases has one entry per run; a case passes when each of its runs
// does.
func TestTestJSONContract(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		args                 []string
		code                 int
		passed, failed, runs int
		engines, releases    []string
	}{
		{"all pass", []string{at("testdata/cases/spec-operators.yaml")}, 0, -1, 0, -1, []string{"cel", "rego"}, []string{"v1.2.2"}},
		{"one case fails", []string{bad("failing-case.yaml")}, 1, 1, 1, 4, []string{"cel", "rego"}, []string{"v1.2.2"}},
		{"one release", []string{"--ome-version", "v0.1.4", bad("failing-case.yaml")}, 1, 1, 1, 4, []string{"cel", "rego"}, []string{"v0.1.4"}},
		{"every release", []string{"--ome-version", "all", "--engine", "cel", bad("failing-case.yaml")}, 1, 1, 1, 6, []string{"cel"}, []string{"v1.2.2", "v0.1.5", "v0.1.4"}},
		{"cases and rego tests", []string{"--engine", "rego", bad("failing-case.yaml"), bad("failing_test.rego")}, 1, 2, 2, 4, []string{"rego"}, []string{"v1.2.2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := evaluate(t, 30*time.Second, "", append([]string{"test", "-o", "json"}, tc.args...)...)
			require.Equal(t, tc.code, r.code, r.stderr)
			require.Empty(t, r.stderr)
			rep := decodeTestJSON(t, r.stdout)
			require.Equal(t, tc.failed, rep.Failed)
			if tc.passed >= 0 {
				require.Equal(t, tc.passed, rep.Passed)
			}
			if tc.runs >= 0 {
				require.Equal(t, tc.runs, rep.runCount())
			}
			require.Equal(t, tc.engines, rep.Engines)
			require.Equal(t, tc.releases, rep.OMEVersions)
			require.Len(t, rep.Cases, rep.runCount(), "one entry per run")

			type key struct {
				file string
				line int
				name string
			}
			var order []key
			passed := map[key]bool{}
			engines := map[key]map[string][]string{} // a case's engines on each release
			runsPassed := 0
			for _, run := range rep.Cases {
				require.NotEmpty(t, run.File)
				require.NotEmpty(t, run.Name)
				require.Positive(t, run.Line)
				require.Contains(t, tc.engines, run.Engine, "an entry is one engine's run, never both's")
				require.Contains(t, tc.releases, run.OMEVersion)
				k := key{run.File, run.Line, run.Name}
				if _, seen := passed[k]; !seen {
					order = append(order, k)
					passed[k] = true
					engines[k] = map[string][]string{}
				}
				passed[k] = passed[k] && run.Passed
				engines[k][run.OMEVersion] = append(engines[k][run.OMEVersion], run.Engine)
				if run.Passed {
					runsPassed++
					require.Empty(t, run.Detail, "a run that passed has no detail")
				}
				if strings.HasSuffix(run.File, ".rego") {
					require.Equal(t, "v1.2.2", run.OMEVersion, "Rego unit tests test the newest release's policies")
					continue // OPA's unit tests have no expected/got
				}
				for _, v := range []json.RawMessage{run.Expected, run.Got} {
					var m map[string]any
					require.NoError(t, json.Unmarshal(v, &m), "%s: expected and got are objects", run.Name)
					require.IsType(t, true, m["compatible"], "%s: compatible is a boolean", run.Name)
				}
			}
			require.Equal(t, rep.Runs.Passed, runsPassed)
			require.Len(t, order, rep.Passed+rep.Failed, "passed and failed count cases")
			n := 0
			for _, k := range order {
				if passed[k] {
					n++
				}
				if strings.HasSuffix(k.file, ".rego") {
					continue
				}
				for release, es := range engines[k] {
					require.Equal(t, tc.engines, es, "%s on %s: a run on each engine, in order", k.name, release)
				}
			}
			require.Equal(t, rep.Passed, n, "a case passes when each of its runs does")
		})
	}
}

func TestExitCodes(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"match: every model served", []string{"match", "-m", exModels, "-r", exRuntimes}, 0},
		{"match: a model with no runtime", []string{"match", "-m", exModels, "-m", bad("unserved-model.yaml"), "-r", exRuntimes}, 1},
		{"match: only unserved", []string{"match", "-o", "json", "-m", bad("unserved-model.yaml"), "-r", exRuntimes}, 1},
		{"match: bad input", []string{"match", "-m", bad("version-number.yaml"), "-r", exRuntimes}, 2},
		{"match: a format it has not", []string{"match", "-m", exModels, "-r", exRuntimes, "-o", "sarif"}, 2},
		{"test: all pass", []string{"test", at("testdata/cases/spec-operators.yaml")}, 0},
		{"test: rego unit tests pass", []string{"test", at("policies/rego")}, 0},
		{"test: a case fails", []string{"test", bad("failing-case.yaml")}, 1},
		{"test: a rego test fails", []string{"test", bad("failing_test.rego")}, 1},
		{"test: malformed case", []string{"test", bad("case-no-expect.yaml")}, 2},
		{"test: malformed beats failing", []string{"test", bad("failing-case.yaml"), bad("cases-duplicate-name.yaml")}, 2},
		{"test: no path", []string{"test"}, 2},
		{"policies: unknown file", []string{"policies", "rego/none.rego"}, 2},
		{"unknown command", []string{"matches"}, 2},
		{"unknown flag", []string{"match", "--model", exModels}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := evaluate(t, 30*time.Second, "", tc.args...)
			require.Equal(t, tc.code, r.code, "evaluate %s\nstdout:\n%s\nstderr:\n%s", strings.Join(tc.args, " "), r.stdout, r.stderr)
			if tc.code == 2 {
				require.Empty(t, r.stdout, "nothing on stdout on bad input")
				require.True(t, strings.HasPrefix(lastLine(r.stderr), "evaluate: ") || strings.HasPrefix(lastLine(r.stderr), "Run 'evaluate --help'"),
					"stderr ends with the error: %q", r.stderr)
			}
		})
	}
}

// summaryLine is the last line of `evaluate test`, which CI reads: it
// starts "N passed, M failed", counting cases, then the runs when there
// are more runs than cases.
var summaryLine = regexp.MustCompile(`^\d+ passed, \d+ failed( \(\d+ runs: (\d+ engines|\d+ releases|\d+ engines, \d+ releases)\))?$`)

func TestTestCommandPrintsFailures(t *testing.T) {
	t.Run("case file", func(t *testing.T) {
		for _, tc := range []struct{ engine, summary string }{
			{"cel", "1 passed, 1 failed (6 runs: 3 releases)"},
			{"rego", "1 passed, 1 failed (6 runs: 3 releases)"},
			{"both", "1 passed, 1 failed (12 runs: 2 engines, 3 releases)"},
		} {
			e := tc.engine
			r := evaluate(t, 30*time.Second, "", "test", "--engine", e, "--ome-version", "all", bad("failing-case.yaml"))
			require.Equal(t, 1, r.code, r.stderr)
			require.Empty(t, r.stderr)
			require.Equal(t, tc.summary, lastLine(r.stdout), "two cases on three releases")
			// The failure alike on v1.2.2 and v0.1.5 is printed once.
			want := "FAIL " + bad("failing-case.yaml") + ":14: wrongly expects a match [" + e + "; OME v1.2.2, v0.1.5]\n" +
				"  expected:\n" +
				"    compatible: true\n" +
				"    reason: \"\"\n" +
				"  got:\n" +
				"    compatible: false\n" +
				"    reason: \"model format 'mt:safetensors:1.0.0' not in supported formats: model has no framework but runtime requires transformers\"\n"
			require.True(t, strings.HasPrefix(r.stdout, want), "engine %s: the failure names file:line and shows expected versus got; got:\n%s", e, r.stdout)
			require.NotContains(t, r.stdout, "same format, no versions", "passing cases are not printed")
			require.Contains(t, r.stdout, "wrongly expects a match ["+e+"; OME v0.1.4]\n", "v0.1.4 words it apart")
			require.Contains(t, r.stdout, "    reason: \"model format 'mt:safetensors:1.0.0' not in supported formats\"\n")
			require.NotContains(t, r.stdout, "holds on", "the case fails on every release")
		}
	})
	t.Run("the engines agree, the expectation differs", func(t *testing.T) {
		r := evaluate(t, 30*time.Second, "", "test", "--engine", "both", bad("failing-case.yaml"))
		require.Equal(t, 1, r.code)
		require.Contains(t, r.stdout, "  detail: cel and rego agree; the expectation differs\n")
		require.NotContains(t, r.stdout, "got it wrong", "engines that agree with each other are not blamed")
		r = evaluate(t, 30*time.Second, "", "test", "--engine", "cel", bad("failing-case.yaml"))
		require.Equal(t, 1, r.code)
		require.NotContains(t, r.stdout, "detail:", "one engine: nothing to say of the engines")
	})
	t.Run("rego unit test", func(t *testing.T) {
		r := evaluate(t, 30*time.Second, "", "test", bad("failing_test.rego"))
		require.Equal(t, 1, r.code, r.stderr)
		require.Equal(t, "1 passed, 1 failed", lastLine(r.stdout), "as many runs as tests: no count of runs")
		require.Contains(t, r.stdout, "FAIL "+bad("failing_test.rego")+":10: data.bad.match_test.test_wrongly_expects_suffix_ordering [rego; OME v1.2.2]")
		require.NotContains(t, r.stdout, "test_equal_versions_match")
		if !strings.Contains(r.stdout, "(../../testdata/bad/failing_test.rego:10) is false") {
			t.Fatalf("a failing Rego unit test prints only 'detail: failed', with no line of the failing rule (failing_test.rego:10) nor the expression; engine/rego/test.go relies on tester.Result.FailedAt, which OPA v1.22 never sets. Output:\n%s", r.stdout)
		}
	})
	t.Run("summary is the last line", func(t *testing.T) {
		for _, tc := range []struct {
			args    []string
			summary string
		}{
			{nil, "2 passed, 2 failed (6 runs: 2 engines)"},
			{[]string{"--engine", "rego"}, "2 passed, 2 failed"},
			{[]string{"--ome-version", "all"}, "2 passed, 2 failed (14 runs: 2 engines, 3 releases)"},
		} {
			r := evaluate(t, 30*time.Second, "", append(append([]string{"test"}, tc.args...), bad("failing-case.yaml"), bad("failing_test.rego"))...)
			require.Equal(t, 1, r.code)
			require.Regexp(t, summaryLine, lastLine(r.stdout))
			require.True(t, strings.HasSuffix(r.stdout, "\n"+tc.summary+"\n"), r.stdout)
		}
	})
}

// --- 4. Bad input ----------------------------------------------------------

// writeFile writes data to name in dir and returns its path.
func writeFile(t *testing.T, dir, name, data string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, []byte(data), 0o644))
	return p
}

// aliasBomb is a billion-laughs document: ten levels of nine aliases each
// expand to 9^10 nodes, although the file is under 1 KiB.
func aliasBomb() string {
	var b strings.Builder
	b.WriteString("apiVersion: ome.io/v1beta1\nkind: ClusterBaseModel\nmetadata:\n  name: bomb\n")
	b.WriteString("spec:\n  modelFormat: {name: safetensors}\n  labels:\n")
	b.WriteString(`    l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]` + "\n")
	for i := 1; i <= 9; i++ {
		ref := fmt.Sprintf("*l%d", i-1)
		fmt.Fprintf(&b, "    l%d: &l%d [%s]\n", i, i, strings.Repeat(ref+", ", 8)+ref)
	}
	return b.String()
}

func TestBadInput(t *testing.T) {
	tmp := t.TempDir()
	bomb := writeFile(t, tmp, "alias-bomb.yaml", aliasBomb())
	deepList := writeFile(t, tmp, "deep-list.yaml",
		"apiVersion: ome.io/v1beta1\nkind: ClusterBaseModel\nmetadata:\n  name: deep\nspec:\n  modelFormat: "+
			strings.Repeat("[", 10000)+strings.Repeat("]", 10000)+"\n")
	deepJSON := writeFile(t, tmp, "deep-map.json",
		`{"apiVersion": "ome.io/v1beta1", "kind": "ClusterServingRuntime", "metadata": {"name": "deep"}, "spec": `+
			strings.Repeat(`{"a": `, 10000)+"1"+strings.Repeat("}", 10000)+"}\n")
	binaryRuntimes := t.TempDir()
	gz, err := os.ReadFile(bad("binary.yaml.gz"))
	require.NoError(t, err)
	writeFile(t, binaryRuntimes, "runtime.yaml", string(gz))
	badVersion, err := os.ReadFile(bad("version-number.yaml"))
	require.NoError(t, err)

	m := func(model string) []string { return []string{"match", "-m", model, "-r", exRuntimes} }
	r := func(runtime string) []string { return []string{"match", "-m", exModels, "-r", runtime} }
	for _, tc := range []struct {
		name  string
		args  []string
		stdin string
		// substrings of stderr (the file, line and field, the advice); one
		// that starts with ~ is a pattern instead
		want []string
	}{
		{"invalid YAML", m(bad("invalid-yaml.yaml")), "", []string{bad("invalid-yaml.yaml") + ":", "did not find expected"}},
		{"binary file", m(bad("binary.yaml.gz")), "", []string{bad("binary.yaml.gz") + ": ", "binary"}},
		{"binary file in a folder", r(binaryRuntimes), "", []string{filepath.Join(binaryRuntimes, "runtime.yaml") + ": ", "binary"}},
		{"version as a YAML number", m(bad("version-number.yaml")), "",
			[]string{bad("version-number.yaml") + ":9: spec.modelFormat.version: ", "number (1.0)", `quote it: "1.0"`}},
		{"entry version as a YAML number", r(bad("version-number-runtime.yaml")), "",
			[]string{bad("version-number-runtime.yaml") + ":13: spec.supportedModelFormats[0].modelFramework.version: ", "4.40", `quote it: "4.40"`}},
		{"version as a list", m(bad("version-list.yaml")), "", []string{bad("version-list.yaml") + ":8: spec.modelFormat.version: ", "list"}},
		{"version as a bool", m(bad("version-bool.yaml")), "", []string{bad("version-bool.yaml") + ":11: spec.modelFramework.version: ", "true"}},
		{"modelFormat as a string", m(bad("modelformat-string.yaml")), "", []string{bad("modelformat-string.yaml") + ":6: spec.modelFormat: ", "object"}},
		{"supportedModelFormats not a list", r(bad("supportedmodelformats-notalist.yaml")), "",
			[]string{bad("supportedmodelformats-notalist.yaml") + ":6: spec.supportedModelFormats: ", "list"}},
		{"alias bomb", m(bomb), "", []string{bomb + ":", "alias"}},
		{"nesting 10000 deep", m(deepList), "", []string{deepList + ":", "~nesting deeper|max depth"}},
		{"JSON nesting 10000 deep", r(deepJSON), "", []string{deepJSON + ":", "~nesting deeper|max depth"}},
		{"no metadata.name", m(bad("no-name.yaml")), "", []string{bad("no-name.yaml") + ":", "metadata.name"}},
		{"runtime given with -m", m(exRuntimes + "/srt-llama-3-2-3b-instruct.yaml"), "",
			[]string{exRuntimes + "/srt-llama-3-2-3b-instruct.yaml:1: ", "ClusterServingRuntime/srt-llama-3-2-3b-instruct", "not a model"}},
		{"models given with -r: a message for each", r(exModels + "/more-models.yaml"), "",
			[]string{exModels + "/more-models.yaml:2: ", "ClusterBaseModel/llama-3-2-3b-instruct-4-46", "not a runtime",
				exModels + "/more-models.yaml:19: ", "ClusterBaseModel/mistral-7b-instruct"}},
		{"InferenceService given with -m", m(bad("inferenceservice.yaml")), "",
			[]string{bad("inferenceservice.yaml") + ":1: ", "InferenceService/llama-demo/llama-chat", "not a model"}},
		{"missing path", m(bad("does-not-exist.yaml")), "", []string{bad("does-not-exist.yaml") + ": no such file or directory"}},
		{"folder with no models", m(bad("no-models")), "", []string{bad("no-models"), "no model"}},
		{"empty file", m(bad("empty.yaml")), "", []string{bad("empty.yaml"), "no model"}},
		{"empty runtimes file", r(bad("empty.yaml")), "", []string{bad("empty.yaml"), "no runtime"}},
		{"empty stdin", m("-"), "", []string{"-m -", "no model"}},
		{"bad model on stdin", m("-"), string(badVersion), []string{"<stdin>:9: spec.modelFormat.version: ", "quote it"}},
		{"unknown engine", []string{"match", "-m", exModels, "-r", exRuntimes, "--engine", "opa"}, "", []string{"--engine", `"opa"`, "cel, rego, both"}},
		{"unknown output", []string{"match", "-m", exModels, "-r", exRuntimes, "-o", "xml"}, "", []string{"--output", `"xml"`, "text, json, yaml"}},
		{"no input", []string{"match"}, "", []string{"-f", "--cluster"}},
		{"no model, and --fail-on-empty", []string{"match", "-r", exRuntimes, "--fail-on-empty"}, "", []string{"no models in " + exRuntimes}},
		{"select: a creationTimestamp that is not RFC 3339", []string{"select", "-f", at("testdata/examples/select"), "-f", bad("creation-timestamp.yaml")}, "",
			[]string{bad("creation-timestamp.yaml") + ":5: metadata.creationTimestamp: ", "RFC 3339", "yesterday"}},
		{"test: unknown engine", []string{"test", "--engine", "opa", at("testdata/cases/spec-operators.yaml")}, "", []string{"--engine", `"opa"`}},
		{"test: unknown output", []string{"test", "-o", "xml", at("testdata/cases/spec-operators.yaml")}, "", []string{"--output", `"xml"`}},
		{"test: no cases key", []string{"test", bad("cases-missing.yaml")}, "", []string{bad("cases-missing.yaml") + ":", "cases"}},
		{"test: duplicate case names", []string{"test", bad("cases-duplicate-name.yaml")}, "",
			[]string{bad("cases-duplicate-name.yaml") + ":12: ", `case "same name"`, "duplicate", "line 2"}},
		{"test: case without expect", []string{"test", bad("case-no-expect.yaml")}, "",
			[]string{bad("case-no-expect.yaml") + ":2: ", `case "forgot the expectation"`, "expect"}},
		{"test: a model file is not a case file", []string{"test", exModels + "/more-models.yaml"}, "", []string{exModels + "/more-models.yaml", "not a case file"}},
		{"test: not a *_test.rego file", []string{"test", bad("policy-not-a-test.rego")}, "", []string{bad("policy-not-a-test.rego") + ": ", "_test.rego"}},
		{"test: missing path", []string{"test", bad("does-not-exist.yaml")}, "", []string{bad("does-not-exist.yaml") + ": no such file or directory"}},
		{"test: binary file", []string{"test", bad("binary.yaml.gz")}, "", []string{bad("binary.yaml.gz") + ": ", "binary"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := evaluate(t, 20*time.Second, tc.stdin, tc.args...)
			require.Equal(t, 2, res.code, "exit code\nstdout:\n%s\nstderr:\n%s", res.stdout, res.stderr)
			require.Empty(t, res.stdout, "nothing on stdout on bad input")
			for _, w := range tc.want {
				if pattern, ok := strings.CutPrefix(w, "~"); ok {
					require.Regexp(t, pattern, res.stderr)
				} else {
					require.Contains(t, res.stderr, w)
				}
			}
			for _, never := range []string{"panic", "goroutine ", ".go:", "internal error"} {
				require.NotContains(t, res.stderr, never, "no crash and no stack trace")
			}
			last := lastLine(res.stderr)
			require.True(t, strings.HasPrefix(last, "evaluate: "), "the error is the last line of stderr: %q", res.stderr)
			messages := 1
			if strings.HasPrefix(tc.name, "models given with -r") {
				messages = 2
			}
			require.Equal(t, messages, strings.Count(res.stderr, "evaluate: "), "one error message for each problem: %q", res.stderr)
			require.Less(t, res.elapsed, 5*time.Second, "bounded time")
			require.Less(t, res.allocated, uint64(256<<20), "bounded memory: %d MiB allocated", res.allocated>>20)
		})
	}
}

// A YAML syntax error names the line where the problem is. yaml.v3 reports
// the 0-based line of the enclosing construct for parser errors, one before
// the line a reader would look at.
func TestInvalidYAMLLine(t *testing.T) {
	// invalid-yaml.yaml opens a flow mapping on line 6 and never closes it.
	r := evaluate(t, 20*time.Second, "", "match", "-m", bad("invalid-yaml.yaml"), "-r", exRuntimes)
	require.Equal(t, 2, r.code)
	m := regexp.MustCompile(regexp.QuoteMeta(bad("invalid-yaml.yaml")) + `:(\d+): `).FindStringSubmatch(r.stderr)
	require.NotNil(t, m, "the message names a line: %q", r.stderr)
	var line int
	fmt.Sscan(m[1], &line)
	if line < 6 {
		t.Fatalf("a YAML syntax error is reported one line too early: %q names line %d, but the unclosed '{' is on line 6 (objects/decode.go passes on yaml.v3's 0-based context line for parser errors)", strings.TrimSpace(r.stderr), line)
	}
	require.LessOrEqual(t, line, 8)
}

// Other kinds are skipped with a notice on stderr, and stdout stays valid.
func TestUnknownKindIsSkipped(t *testing.T) {
	for _, format := range []string{"json", "yaml", "text"} {
		t.Run(format, func(t *testing.T) {
			r := evaluate(t, 20*time.Second, "", "match", "-o", format, "-m", bad("unknown-kind.yaml"), "-r", exRuntimes)
			require.Equal(t, 0, r.code, r.stderr)
			require.Equal(t, "notice: skipped 1 document(s) that are not OME objects (1 ConfigMap)\n", r.stderr)
			switch format {
			case "json":
				results := decodeMatchJSON(t, r.stdout)
				require.Len(t, results, 4)
				for _, res := range results {
					require.Equal(t, "llama-3-2-3b-instruct", res.Model.Name)
					checkResult(t, res)
				}
			case "yaml":
				var doc struct {
					Results []map[string]any `yaml:"results"`
					LeftOut int              `yaml:"leftOut"`
					Errors  []map[string]any `yaml:"errors"`
				}
				require.NoError(t, yaml.Unmarshal([]byte(r.stdout), &doc))
				require.Len(t, doc.Results, 4)
				require.NotNil(t, doc.Errors)
			default:
				require.NotContains(t, r.stdout, "ConfigMap")
				require.Equal(t, "1 model(s), 0 with no compatible runtime", lastLine(r.stdout))
			}
		})
	}
	t.Run("folder of runtimes", func(t *testing.T) {
		dir := t.TempDir()
		for _, f := range []string{"srt-llama-3-2-3b-instruct.yaml", "vllm-llama-3-2-3b-instruct.yaml"} {
			b, err := os.ReadFile(exRuntimes + "/" + f)
			require.NoError(t, err)
			writeFile(t, dir, f, string(b))
		}
		writeFile(t, dir, "a-deployment.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n")
		writeFile(t, dir, "old-runtime.yaml", "apiVersion: ome.io/v1alpha1\nkind: ClusterServingRuntime\nmetadata:\n  name: old\n")
		r := evaluate(t, 20*time.Second, "", "match", "-o", "json", "-m", exModels+"/llama-3-2-3b-instruct.yaml", "-r", dir)
		require.Equal(t, 0, r.code, r.stderr)
		require.Equal(t, `notice: skipped 2 document(s) that are not OME objects (1 ClusterServingRuntime of apiVersion "ome.io/v1alpha1", 1 Deployment)`+"\n", r.stderr)
		require.Len(t, decodeMatchJSON(t, r.stdout), 2)
	})
}

// --- 5. Standard input -----------------------------------------------------

func TestStdin(t *testing.T) {
	model, err := os.ReadFile(exModels + "/llama-3-2-3b-instruct.yaml")
	require.NoError(t, err)
	t.Run("models", func(t *testing.T) {
		r := evaluate(t, 20*time.Second, string(model), "match", "-m", "-", "-r", exRuntimes)
		require.Equal(t, 0, r.code, r.stderr)
		require.Empty(t, r.stderr)
		require.True(t, strings.HasPrefix(r.stdout, "BaseModel llama-demo/llama-3-2-3b-instruct\n"), r.stdout)
		require.Contains(t, r.stdout, "  2 compatible runtime(s)\n")
		require.Equal(t, "1 model(s), 0 with no compatible runtime", lastLine(r.stdout))
	})
	t.Run("models as JSON", func(t *testing.T) {
		var doc any
		require.NoError(t, yaml.Unmarshal(model, &doc))
		b, err := json.Marshal(doc)
		require.NoError(t, err)
		r := evaluate(t, 20*time.Second, string(b), "match", "-o", "json", "-m", "-", "-r", exRuntimes)
		require.Equal(t, 0, r.code, r.stderr)
		require.Len(t, decodeMatchJSON(t, r.stdout), 4)
	})
	t.Run("runtimes", func(t *testing.T) {
		rt, err := os.ReadFile(exRuntimes + "/srt-llama-3-2-3b-instruct.yaml")
		require.NoError(t, err)
		r := evaluate(t, 20*time.Second, string(rt), "match", "-o", "json", "-m", exModels, "-r", "-")
		require.Equal(t, 1, r.code, r.stderr) // only the llama model is served
		results := decodeMatchJSON(t, r.stdout)
		require.Len(t, results, 3)
		require.True(t, results[0].Compatible)
	})
}

// --- 6. The binary a user runs ---------------------------------------------

func TestBinary(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH")
	}
	bin := filepath.Join(t.TempDir(), "evaluate")
	build := exec.Command(goTool, "build", "-o", bin, ".")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "go build: %s", out)

	exe := func(args ...string) (stdout, stderr string, code int) {
		cmd := exec.Command(bin, args...)
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		err := cmd.Run()
		var ee *exec.ExitError
		switch {
		case err == nil:
		case errors.As(err, &ee):
			code = ee.ExitCode()
		default:
			t.Fatalf("running %s: %v", bin, err)
		}
		return o.String(), e.String(), code
	}

	t.Run("match", func(t *testing.T) {
		stdout, stderr, code := exe("match", "-m", exModels, "-r", exRuntimes)
		require.Equal(t, 0, code, stderr)
		require.Empty(t, stderr)
		require.Equal(t, "3 model(s), 0 with no compatible runtime", lastLine(stdout))
		golden, err := os.ReadFile(filepath.Join(goldenDir, "match-text.stdout"))
		require.NoError(t, err)
		require.Equal(t, string(golden), stdout, "the binary prints what the in-process run prints")
	})
	t.Run("match exit 1", func(t *testing.T) {
		_, _, code := exe("match", "-m", bad("unserved-model.yaml"), "-r", exRuntimes)
		require.Equal(t, 1, code)
	})
	t.Run("bad input", func(t *testing.T) {
		stdout, stderr, code := exe("match", "-m", bad("version-number.yaml"), "-r", exRuntimes)
		require.Equal(t, 2, code)
		require.Empty(t, stdout)
		require.Equal(t, "evaluate: "+bad("version-number.yaml")+`:9: spec.modelFormat.version: must be a string, got a number (1.0); quote it: "1.0"`+"\n", stderr)
	})
	t.Run("gatekeeper in an empty folder", func(t *testing.T) { checkGatekeeperBinary(t, bin) })
	t.Run("capabilities", func(t *testing.T) {
		stdout, stderr, code := exe("capabilities")
		require.Equal(t, 0, code, stderr)
		checkCapabilities(t, stdout)
	})
	t.Run("test the bundled cases", func(t *testing.T) {
		stdout, stderr, code := exe("test", "--engine", "both", at("testdata/cases"))
		require.Equal(t, 0, code, "stderr:\n%s\nstdout:\n%s", stderr, stdout)
		require.Regexp(t, `^\d+ passed, 0 failed \(\d+ runs: 2 engines\)$`, lastLine(stdout))
	})
	t.Run("test the bundled cases on every release", func(t *testing.T) {
		stdout, stderr, code := exe("test", "--engine", "both", "--ome-version", "all", at("testdata/cases"))
		require.Equal(t, 0, code, "stderr:\n%s\nstdout:\n%s", stderr, stdout)
		require.Empty(t, stderr, "every case holds for some release")
		require.Regexp(t, `^\d+ passed, 0 failed \(\d+ runs: 2 engines, 3 releases\)$`, lastLine(stdout))
	})
	t.Run("test the match cases and policy tests", func(t *testing.T) {
		args := []string{"test", "--engine", "both", "--ome-version", "all"}
		for _, f := range []string{"sample-cases.yaml", "sample-runtime-level.yaml", "spec-differences.yaml", "spec-operators.yaml"} {
			args = append(args, at("testdata/cases/"+f))
		}
		stdout, stderr, code := exe(append(args, at("policies"))...)
		require.Equal(t, 0, code, "stderr:\n%s\nstdout:\n%s", stderr, stdout)
		require.Empty(t, stderr)
		require.Regexp(t, summaryLine, lastLine(stdout))
		require.Equal(t, 1, strings.Count(stdout, "\n"), "only the summary when all pass")
	})
}

// --- 7. The catalog --------------------------------------------------------

func TestCatalogEnginesAgree(t *testing.T) {
	if testing.Short() {
		t.Skip("the catalog matrix on Rego takes a while")
	}
	args := []string{"match", "-o", "json", "-R", "-m", at("testdata/catalog/models"), "-r", at("testdata/catalog/runtimes")}
	cel := evaluate(t, 5*time.Minute, "", append(args, "--engine", "cel")...)
	rego := evaluate(t, 5*time.Minute, "", append(args, "--engine", "rego")...)
	require.Contains(t, []int{0, 1}, cel.code, cel.stderr)
	require.Equal(t, cel.code, rego.code)
	require.Equal(t, cel.stderr, rego.stderr)
	require.True(t, cel.stdout == rego.stdout, "cel and rego must give byte-identical output")

	results := decodeMatchJSON(t, cel.stdout)
	require.Len(t, results, 66*203) // 207 runtimes, of which 4 are given again in a later file
	models := map[string]bool{}
	served := map[string]bool{}
	for i, r := range results {
		checkResult(t, r)
		if i > 0 && results[i-1].Model != r.Model {
			require.False(t, models[r.Model.Name], "results of %s are contiguous", r.Model.Name)
		}
		models[r.Model.Name] = true
		served[r.Model.Name] = served[r.Model.Name] || r.Compatible
		require.Equal(t, results[i%203].Runtime, r.Runtime, "every model sees the runtimes in the same order")
	}
	require.Len(t, models, 66)
	unserved := 0
	for _, ok := range served {
		if !ok {
			unserved++
		}
	}
	require.Equal(t, unserved > 0, cel.code == 1, "exit 1 exactly when some model has no runtime")
}

// --- capabilities ----------------------------------------------------------

// checkCapabilities checks `evaluate capabilities` output against the
// shipped policies/capabilities.json, as its help promises.
func checkCapabilities(t *testing.T, out string) {
	t.Helper()
	shipped, err := os.ReadFile(at("policies/capabilities.json"))
	require.NoError(t, err)
	require.JSONEq(t, string(shipped), out)
	if out != string(shipped) {
		t.Fatal("`evaluate capabilities` is not byte-identical to policies/capabilities.json, as its help says: it escapes <, > and & as \\u003c, \\u003e, \\u0026 (json.Encoder's HTML escaping) in the infix operators")
	}
}

// In one process, a command's output must not depend on the commands run
// before it: `policies --functions` lists the builtins sorted by name, and
// must not reorder what `capabilities` prints afterwards.
func TestCapabilitiesDoNotDependOnEarlierCommands(t *testing.T) {
	for _, args := range [][]string{{"test", bad("failing_test.rego")}, {"policies", "--functions"}} {
		evaluate(t, 20*time.Second, "", args...)
	}
	r := evaluate(t, 20*time.Second, "", "capabilities")
	require.Equal(t, 0, r.code, r.stderr)
	shipped, err := os.ReadFile(at("policies/capabilities.json"))
	require.NoError(t, err)
	if got, want := omeBuiltins(t, r.stdout), omeBuiltins(t, string(shipped)); got != want {
		t.Fatalf("`evaluate policies --functions` sorts regolib.Builtins() in place (cmd/evaluate/policies.go writeFunctions; Builtins returns the package's own slice), so later in the same process `capabilities` lists the ome.* builtins as %s instead of %s", got, want)
	}
	checkCapabilities(t, r.stdout)
}

// omeBuiltins lists the ome.* builtins of capabilities JSON, in order.
func omeBuiltins(t *testing.T, capabilities string) string {
	var caps struct {
		Builtins []struct {
			Name string `json:"name"`
		} `json:"builtins"`
	}
	require.NoError(t, json.Unmarshal([]byte(capabilities), &caps))
	var names []string
	for _, b := range caps.Builtins {
		if strings.HasPrefix(b.Name, "ome.") {
			names = append(names, b.Name)
		}
	}
	return strings.Join(names, ", ")
}

// `gatekeeper violations` says the same on both engines, and refuses bad
// flags and input with exit code 2.
func TestGatekeeperViolations(t *testing.T) {
	args := []string{"gatekeeper", "violations", "-o", "json", at("testdata/gatekeeper/lint-objects.yaml"), at("testdata/lint/bad")}
	cel := evaluate(t, time.Minute, "", append(args, "--engine", "cel")...)
	rego := evaluate(t, time.Minute, "", append(args, "--engine", "rego")...)
	require.Equal(t, 1, cel.code, cel.stderr)
	require.Equal(t, cel.stdout, rego.stdout)
	for _, bad := range [][]string{
		{"gatekeeper", "violations", "--severities", "fatal", at("testdata/lint/clean")},
		{"gatekeeper", "violations", "-o", "sarif", at("testdata/lint/clean")},
		{"gatekeeper", "violations", at("testdata/no-such-file.yaml")},
		{"gatekeeper", "violations"},
	} {
		r := evaluate(t, time.Minute, "", bad...)
		require.Equal(t, 2, r.code, "%v: %s", bad, r.stderr)
		require.NotEmpty(t, r.stderr)
	}
	// Each document is an admission request of its own: one that a later
	// object of the same name replaces is reviewed too, with the notice.
	dir, notice := twiceDir(t)
	r := evaluate(t, time.Minute, "", "gatekeeper", "violations", "-o", "json", dir)
	require.Equal(t, 0, r.code, r.stderr)
	var doc struct{ Objects []struct{ File string } }
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &doc), r.stdout)
	var files []string
	for _, o := range doc.Objects {
		files = append(files, filepath.Base(o.File))
	}
	require.Equal(t, []string{"a-runtime.yaml", "b-runtime.yaml", "model.yaml"}, files)
	require.Contains(t, r.stderr, notice)
}
