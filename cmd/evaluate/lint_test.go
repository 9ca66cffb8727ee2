package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/output"
	"github.com/ome-policy/evaluator/policies/policyset"
)

var (
	lintBad   = at("testdata/lint/bad")
	lintClean = at("testdata/lint/clean")
	lintCross = at("testdata/lint/cross-check")
	seedModel = at("testdata/examples/models/more-models.yaml")
	seedRT    = at("testdata/examples/runtimes/srt-llama-3-2-3b-instruct.yaml")
)

// The golden outputs of lint, explain and the new formats of test.
func init() {
	failing := []string{bad("failing-case.yaml"), bad("failing_test.rego")}
	explainSeed := []string{"explain", "-m", seedModel, "--model-name", "llama-3-2-3b-instruct-4-46", "-r", seedRT}
	goldenCases = append(goldenCases,
		goldenCase{name: "lint-text", args: []string{"lint", lintBad}, code: 1},
		goldenCase{name: "lint-json", args: []string{"lint", "-o", "json", lintBad}, code: 1},
		goldenCase{name: "lint-yaml", args: []string{"lint", "-o", "yaml", lintBad}, code: 1},
		goldenCase{name: "lint-sarif", args: []string{"lint", "-o", "sarif", lintBad}, code: 1},
		goldenCase{name: "lint-junit", args: []string{"lint", "-o", "junit", lintBad}, code: 1},
		goldenCase{name: "lint-github", args: []string{"lint", "-o", "github", lintBad}, code: 1},
		goldenCase{name: "lint-cross-check", args: []string{"lint", "--cross-check", lintCross + "/unmatched-model.yaml"}},
		goldenCase{name: "lint-clean", args: []string{"lint", "--cross-check", lintClean}},
		goldenCase{name: "lint-catalog", args: []string{"lint", "-R", at("testdata/catalog/runtimes")}},
		goldenCase{name: "test-yaml-failing", args: append([]string{"test", "-o", "yaml", "--ome-version", "all"}, failing...), code: 1},
		goldenCase{name: "test-sarif-failing", args: append([]string{"test", "-o", "sarif", "--ome-version", "all"}, failing...), code: 1},
		goldenCase{name: "test-junit-failing", args: append([]string{"test", "-o", "junit", "--ome-version", "all"}, failing...), code: 1},
		goldenCase{name: "test-github-failing", args: append([]string{"test", "-o", "github", "--ome-version", "all"}, failing...), code: 1},
		goldenCase{name: "explain-text", args: explainSeed, code: 1},
		goldenCase{name: "explain-json", args: append(explainSeed, "-o", "json"), code: 1},
		goldenCase{name: "explain-yaml", args: append(explainSeed, "-o", "yaml"), code: 1},
		goldenCase{name: "explain-upper-limit", args: []string{"explain", "-m", exModels + "/llama-3-2-3b-instruct.yaml", "-r", exRuntimes + "/llama-transformers-up-to-4-46.yaml"}, code: 1},
		goldenCase{name: "explain-compatible", args: []string{"explain", "-m", seedModel, "--model-name", "llama-3-2-3b-instruct-4-46", "-r", exRuntimes + "/llama-transformers-up-to-4-46.yaml"}},
		goldenCase{name: "help-lint", args: []string{"lint", "--help"}},
		goldenCase{name: "help-explain", args: []string{"explain", "--help"}},
	)
}

type jsonFinding struct {
	Rule     string  `json:"rule"`
	Severity string  `json:"severity"`
	Object   jsonRef `json:"object"`
	Field    string  `json:"field"`
	File     string  `json:"file"`
	Line     int     `json:"line"`
	Message  string  `json:"message"`
}

// decodeLintJSON checks the shape of `lint -o json`, key by key, as the
// issue fixes it.
func decodeLintJSON(t *testing.T, out string) []jsonFinding {
	t.Helper()
	keys := []string{"omeVersion", "findings"}
	if strings.Contains(out, `"ignored": [`) {
		keys = append(keys, "ignored") // only when an annotation turned some off
	}
	top := requireKeys(t, json.RawMessage(out), "the output", keys)
	require.NotEqual(t, "null", string(top["findings"]), "findings is a list, never null")
	var raws []json.RawMessage
	require.NoError(t, json.Unmarshal(top["findings"], &raws))
	var fs []jsonFinding
	for i, raw := range raws {
		f := requireKeys(t, raw, "findings[i]", []string{"rule", "severity", "object", "field", "file", "line", "message"})
		requireKeys(t, f["object"], "findings[i].object", []string{"kind", "namespace", "name"})
		var x jsonFinding
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		require.NoError(t, dec.Decode(&x), "findings[%d]", i)
		require.Contains(t, []string{"error", "warning", "info"}, x.Severity)
		require.Positive(t, x.Line)
		require.NotEmpty(t, x.Message)
		fs = append(fs, x)
	}
	return fs
}

// Every rule, planted in its own file, is found through the command; clean
// objects get none.
func TestLintFindsEveryRule(t *testing.T) {
	files, err := filepath.Glob(lintBad + "/*.yaml")
	require.NoError(t, err)
	found := map[string]bool{}
	for _, f := range files {
		r := evaluate(t, 30*time.Second, "", "lint", "-o", "json", f)
		require.Contains(t, []int{0, 1}, r.code, r.stderr)
		fs := decodeLintJSON(t, r.stdout)
		require.Len(t, fs, 1, "%s plants one problem: %s", f, r.stdout)
		require.Equal(t, f, fs[0].File)
		require.True(t, strings.HasPrefix(filepath.Base(f), fs[0].Rule), "%s gives %s", f, fs[0].Rule)
		require.Equal(t, fs[0].Severity == "error", r.code == 1, "exit 1 exactly on an error finding")
		found[fs[0].Rule] = true
	}
	// The rules of one OME release, each planted in a file of its
	// folder, linted as that release (and clean on the others).
	releaseFiles, err := filepath.Glob(at("testdata/lint") + "/v*/*.yaml")
	require.NoError(t, err)
	require.NotEmpty(t, releaseFiles)
	for _, f := range releaseFiles {
		release := filepath.Base(filepath.Dir(f))
		r := evaluate(t, 30*time.Second, "", "lint", "-o", "json", "--ome-version", release, f)
		fs := decodeLintJSON(t, r.stdout)
		require.Len(t, fs, 1, "%s plants one problem for %s: %s", f, release, r.stdout)
		require.True(t, strings.HasPrefix(filepath.Base(f), fs[0].Rule), "%s gives %s", f, fs[0].Rule)
		found[fs[0].Rule] = true
		r = evaluate(t, 30*time.Second, "", "lint", "-o", "json", f)
		require.Empty(t, decodeLintJSON(t, r.stdout), "%s is clean on the newest release", f)
	}
	for _, f := range []string{"unmatched-model.yaml", "unreachable-entry.yaml", "selection-tie.yaml"} {
		r := evaluate(t, 30*time.Second, "", "lint", "-o", "json", "--cross-check", lintCross+"/"+f)
		require.Equal(t, 0, r.code, r.stderr)
		fs := decodeLintJSON(t, r.stdout)
		require.NotEmpty(t, fs)
		for _, x := range fs {
			found[x.Rule] = true
		}
	}
	var rules []string
	for rule := range found {
		rules = append(rules, rule)
	}
	sort.Strings(rules)
	require.Equal(t, []string{
		"duplicate-name", "empty-version", "ignored-field", "implicit-autoselect", "incomplete-size-range", "invalid-version",
		"missing-format", "missing-framework", "name-case", "non-string-version", "operator-without-version",
		"ordering-operator-with-suffix", "selection-tie", "unknown-deployment-mode", "unknown-operator", "unmatched-model",
		"unparsed-size", "unreachable-entry", "unread-field", "wrong-type", "zero-weight",
	}, rules)

	r := evaluate(t, 30*time.Second, "", "lint", "-o", "json", "--cross-check", lintClean)
	require.Equal(t, 0, r.code, r.stderr)
	require.Empty(t, decodeLintJSON(t, r.stdout))
	require.Empty(t, r.stderr)
}

// OME's own catalog: the four duplicate runtime names and the ignored
// top-level versions, and no error.
func TestLintCatalog(t *testing.T) {
	r := evaluate(t, 60*time.Second, "", "lint", "-o", "json", "-R", at("testdata/catalog/runtimes"))
	require.Equal(t, 0, r.code, r.stderr)
	dups := 0
	for _, f := range decodeLintJSON(t, r.stdout) {
		require.NotEqual(t, "error", f.Severity)
		require.Contains(t, []string{"duplicate-name", "ignored-field"}, f.Rule)
		if f.Rule == "duplicate-name" {
			dups++
		} else {
			require.Regexp(t, `^spec\.supportedModelFormats\[\d\]\.version$`, f.Field)
		}
	}
	require.Equal(t, 4, dups)
}

func TestLintExitCodes(t *testing.T) {
	warnOnly := bad("../lint/bad/name-case.yaml")
	for _, tc := range []struct {
		name string
		args []string
		code int
		// input is an input-error finding's start, when the input cannot
		// be read: it is a finding, on stdout, and the others are linted
		input string
		// notice is a line of stderr, for an input with nothing to lint
		notice string
	}{
		{name: "clean", args: []string{"lint", lintClean}},
		{name: "warnings only", args: []string{"lint", warnOnly}},
		{name: "warnings with --fail-on-warn", args: []string{"lint", "--fail-on-warn", warnOnly}, code: 1},
		{name: "info only, even with --fail-on-warn", args: []string{"lint", "--fail-on-warn", "--cross-check", lintCross + "/unreachable-entry.yaml"}},
		{name: "an error", args: []string{"lint", lintBad + "/empty-version.yaml"}, code: 1},
		{name: "missing path", args: []string{"lint", bad("does-not-exist.yaml"), lintClean}, code: 2,
			input: bad("does-not-exist.yaml") + ": error [input-error] no such file or directory"},
		{name: "invalid YAML", args: []string{"lint", bad("invalid-yaml.yaml")}, code: 2, input: bad("invalid-yaml.yaml") + ":7: error [input-error] did not find expected ',' or '}' (while reading from line 6)"},
		{name: "binary file", args: []string{"lint", bad("binary.yaml.gz")}, code: 2, input: bad("binary.yaml.gz") + ": error [input-error] not a YAML or JSON file"},
		{name: "no object at all", args: []string{"lint", bad("empty.yaml")}, notice: "notice: no OME objects in " + bad("empty.yaml")},
		{name: "no object at all, with --fail-on-empty", args: []string{"lint", "--fail-on-empty", bad("empty.yaml")}, code: 2},
		{name: "one path of two has none", args: []string{"lint", lintClean, bad("no-models")}},
		{name: "an unknown rule", args: []string{"lint", "--disable", "no-such-rule", lintClean}, code: 2},
		{name: "no path", args: []string{"lint"}, code: 2},
		{name: "unknown output", args: []string{"lint", "-o", "xml", lintClean}, code: 2},
		{name: "unknown engine", args: []string{"lint", "--engine", "opa", lintClean}, code: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := evaluate(t, 30*time.Second, "", tc.args...)
			require.Equal(t, tc.code, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			switch {
			case tc.input != "":
				require.Contains(t, r.stdout, tc.input)
			case tc.notice != "":
				require.Empty(t, r.stdout)
				require.Equal(t, tc.notice, lastLine(r.stderr))
			case tc.code == 2:
				require.Empty(t, r.stdout)
				require.True(t, strings.HasPrefix(lastLine(r.stderr), "evaluate: ") || strings.HasPrefix(lastLine(r.stderr), "Run 'evaluate --help'"), r.stderr)
			}
		})
	}
}

// --list-rules lists every rule of the policies (policies/lint-rules.yaml),
// in their order, then input-error, and reads no input.
func TestLintListRules(t *testing.T) {
	set, err := policyset.Embedded()
	require.NoError(t, err)
	rules, err := engine.LintRules(set)
	require.NoError(t, err)
	require.NotEmpty(t, rules)
	r := evaluate(t, 30*time.Second, "", "lint", "--list-rules")
	require.Equal(t, 0, r.code, r.stderr)
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	require.Len(t, lines, len(rules)+2)
	require.Equal(t, []string{"RULE", "SEVERITY", "OME", "FINDS"}, strings.Fields(lines[0]))
	for i, rule := range append(rules, engine.Rule{ID: engine.RuleInputError, Severity: engine.SeverityError}) {
		releases := "all"
		if len(rule.Releases) > 0 {
			releases = strings.Join(rule.Releases, ", ")
		}
		words := strings.Join(strings.Fields(lines[i+1]), " ")
		require.True(t, strings.HasPrefix(words, rule.ID+" "+rule.Severity+" "+releases+" "), "line %d: %s", i+1, lines[i+1])
	}
}

// Wrong types are findings, not load errors: the files that make match
// fail with exit 2 are linted.
func TestLintIsLenient(t *testing.T) {
	for _, f := range []string{"version-number.yaml", "version-bool.yaml", "version-list.yaml", "version-number-runtime.yaml", "modelformat-string.yaml", "supportedmodelformats-notalist.yaml"} {
		r := evaluate(t, 30*time.Second, "", "lint", "-o", "json", bad(f))
		require.Equal(t, 1, r.code, "%s: %s", f, r.stderr)
		fs := decodeLintJSON(t, r.stdout)
		require.NotEmpty(t, fs, f)
		var rules []string
		for _, x := range fs {
			rules = append(rules, x.Rule)
		}
		// crd-schema: these models have no spec.storage either.
		require.Subset(t, []string{"non-string-version", "wrong-type", "missing-format", "missing-framework", "crd-schema"}, rules, f)
	}
	r := evaluate(t, 30*time.Second, "", "lint", "-o", "json", bad("version-number.yaml"))
	fs := decodeLintJSON(t, r.stdout)
	require.Len(t, fs, 2)
	require.Equal(t, "crd-schema", fs[0].Rule)
	require.Equal(t, "spec.storage", fs[0].Field)
	require.Equal(t, jsonFinding{
		Rule: "non-string-version", Severity: "error",
		Object: jsonRef{Kind: "ClusterBaseModel", Name: fs[1].Object.Name}, Field: "spec.modelFormat.version",
		File: bad("version-number.yaml"), Line: 9, Message: fs[1].Message,
	}, fs[1])
	require.Contains(t, fs[1].Message, `Quote it: version: "1.0".`)
}

// A field or list item whose value is null is no wrong-type finding on
// either engine (the CEL engine stopped with exit 2 on it): the null item
// is crd-schema's, the entry without a format missing-format's.
func TestLintNullFields(t *testing.T) {
	for _, engine := range []string{"cel", "rego", "both"} {
		r := evaluate(t, 30*time.Second, "", "lint", "-o", "json", "--engine", engine, bad("null-fields.yaml"))
		require.Equal(t, 1, r.code, "%s: %s", engine, r.stderr)
		var got []string
		for _, f := range decodeLintJSON(t, r.stdout) {
			got = append(got, f.Rule+" "+f.Field)
		}
		require.Equal(t, []string{
			"crd-schema spec.supportedModelFormats[0]",
			"missing-format spec.supportedModelFormats[1].modelFormat",
		}, got, engine)
	}
}

// Every engine prints the same bytes in every format.
func TestLintSameOnEveryEngine(t *testing.T) {
	for _, format := range output.LintFormats {
		args := []string{"lint", "--cross-check", "-o", format, lintBad, lintCross}
		cel := evaluate(t, 60*time.Second, "", args...)
		require.Equal(t, 1, cel.code, cel.stderr)
		for _, e := range []string{"rego", "both"} {
			r := evaluate(t, 60*time.Second, "", append(args, "--engine", e)...)
			require.Equal(t, cel.code, r.code, "%s %s", format, e)
			require.Equal(t, cel.stdout, r.stdout, "%s %s", format, e)
		}
	}
}

// The machine formats carry the same findings as JSON.
func TestLintFormatsAgree(t *testing.T) {
	js := evaluate(t, 30*time.Second, "", "lint", "-o", "json", lintBad)
	fs := decodeLintJSON(t, js.stdout)

	ym := evaluate(t, 30*time.Second, "", "lint", "-o", "yaml", lintBad)
	var fromYAML any
	require.NoError(t, yaml.Unmarshal([]byte(ym.stdout), &fromYAML))
	b, err := json.Marshal(fromYAML)
	require.NoError(t, err)
	require.JSONEq(t, js.stdout, string(b))

	var sarif struct {
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Name  string `json:"name"`
					Rules []struct {
						ID string `json:"id"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID    string `json:"ruleId"`
				RuleIndex int    `json:"ruleIndex"`
				Level     string `json:"level"`
				Message   struct {
					Text string `json:"text"`
				} `json:"message"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct {
							URI string `json:"uri"`
						} `json:"artifactLocation"`
						Region struct {
							StartLine int `json:"startLine"`
						} `json:"region"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	sr := evaluate(t, 30*time.Second, "", "lint", "-o", "sarif", lintBad)
	require.NoError(t, json.Unmarshal([]byte(sr.stdout), &sarif))
	require.Equal(t, "2.1.0", sarif.Version)
	require.Len(t, sarif.Runs, 1)
	run := sarif.Runs[0]
	require.Equal(t, "evaluate", run.Tool.Driver.Name)
	require.Len(t, run.Results, len(fs))
	levels := map[string]string{"error": "error", "warning": "warning", "info": "note"}
	for i, res := range run.Results {
		require.Equal(t, fs[i].Rule, res.RuleID)
		require.Equal(t, res.RuleID, run.Tool.Driver.Rules[res.RuleIndex].ID)
		require.Equal(t, levels[fs[i].Severity], res.Level)
		require.Equal(t, fs[i].Message, res.Message.Text)
		require.Equal(t, fs[i].File, res.Locations[0].PhysicalLocation.ArtifactLocation.URI)
		require.Equal(t, fs[i].Line, res.Locations[0].PhysicalLocation.Region.StartLine)
	}

	var junit struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Cases []struct {
				ClassName string `xml:"classname,attr"`
				Name      string `xml:"name,attr"`
				Failure   *struct {
					Text string `xml:",chardata"`
				} `xml:"failure"`
				SystemOut string `xml:"system-out"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	ju := evaluate(t, 30*time.Second, "", "lint", "-o", "junit", lintBad)
	require.NoError(t, xml.Unmarshal([]byte(ju.stdout), &junit))
	errs := 0
	for _, f := range fs {
		if f.Severity == "error" {
			errs++
		}
	}
	require.Equal(t, 25, junit.Tests, "one testcase per object")
	require.Equal(t, errs, junit.Failures, "each planted error fails its object")
	failed := 0
	for _, c := range junit.Suites[0].Cases {
		if c.Failure != nil {
			failed++
			require.Contains(t, c.Failure.Text, c.ClassName+":")
		}
	}
	require.Equal(t, errs, failed)

	gh := evaluate(t, 30*time.Second, "", "lint", "-o", "github", lintBad)
	lines := strings.Split(strings.TrimRight(gh.stdout, "\n"), "\n")
	require.Len(t, lines, len(fs)+1)
	annotation := regexp.MustCompile(`^::(error|warning|notice) file=([^,]+),line=(\d+),title=([^:]+)::(.+)$`)
	for i, f := range fs {
		m := annotation.FindStringSubmatch(lines[i])
		require.NotNil(t, m, lines[i])
		require.Equal(t, map[string]string{"error": "error", "warning": "warning", "info": "notice"}[f.Severity], m[1])
		require.Equal(t, f.File, m[2])
		require.True(t, strings.HasPrefix(m[4], f.Rule+" ("), m[4])
	}
	require.Regexp(t, `^\d+ object\(s\): \d+ error\(s\), \d+ warning\(s\), \d+ info$`, lines[len(lines)-1])
}

// Text output is plain when it is not a terminal, and --no-color and
// NO_COLOR turn colour off on a terminal.
func TestNoColor(t *testing.T) {
	r := evaluate(t, 30*time.Second, "", "lint", lintBad)
	require.NotContains(t, r.stdout, "\x1b[", "no escape codes when stdout is not a terminal")
	r = evaluate(t, 30*time.Second, "", "explain", "-m", seedModel, "-r", seedRT)
	require.NotContains(t, r.stdout, "\x1b[")

	// /dev/null is a character device, as a terminal is.
	devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Skip(err)
	}
	defer devNull.Close()
	t.Setenv("NO_COLOR", "")
	require.True(t, output.StyleFor(devNull, false).Color)
	require.False(t, output.StyleFor(devNull, true).Color, "--no-color")
	require.False(t, output.StyleFor(&bytes.Buffer{}, false).Color)
	t.Setenv("NO_COLOR", "1")
	require.False(t, output.StyleFor(devNull, false).Color, "NO_COLOR")
}

// --- test -o ... --------------------------------------------------------

// Every format of test says the same cases and failures: passed and failed
// count cases; the failures alike on several releases are said once.
func TestTestFormats(t *testing.T) {
	args := []string{"--ome-version", "all", bad("failing-case.yaml"), bad("failing_test.rego")}
	js := evaluate(t, 30*time.Second, "", append([]string{"test", "-o", "json"}, args...)...)
	ym := evaluate(t, 30*time.Second, "", append([]string{"test", "-o", "yaml"}, args...)...)
	require.Equal(t, 1, ym.code)
	var fromYAML any
	require.NoError(t, yaml.Unmarshal([]byte(ym.stdout), &fromYAML))
	b, err := json.Marshal(fromYAML)
	require.NoError(t, err)
	require.JSONEq(t, js.stdout, string(b), "-o yaml is -o json in YAML")
	rep := decodeTestJSON(t, js.stdout)
	require.Equal(t, []int{2, 2, 14}, []int{rep.Passed, rep.Failed, rep.runCount()})
	require.Len(t, rep.Cases, 14, "one entry per run")

	txt := evaluate(t, 30*time.Second, "", append([]string{"test"}, args...)...)
	require.Equal(t, "2 passed, 2 failed (14 runs: 2 engines, 3 releases)", lastLine(txt.stdout))
	var fails []string
	for _, l := range strings.Split(txt.stdout, "\n") {
		if strings.HasPrefix(l, "FAIL ") {
			fails = append(fails, l)
		}
	}
	require.Equal(t, []string{
		"FAIL " + bad("failing-case.yaml") + ":14: wrongly expects a match [both; OME v1.2.2, v0.1.5]",
		"FAIL " + bad("failing-case.yaml") + ":14: wrongly expects a match [both; OME v0.1.4]",
		"FAIL " + bad("failing_test.rego") + ":10: data.bad.match_test.test_wrongly_expects_suffix_ordering [rego; OME v1.2.2]",
	}, fails)

	var junit struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suite    struct {
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Text string `xml:",chardata"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	ju := evaluate(t, 30*time.Second, "", append([]string{"test", "-o", "junit"}, args...)...)
	require.Equal(t, 1, ju.code)
	require.NoError(t, xml.Unmarshal([]byte(ju.stdout), &junit))
	require.Equal(t, 4, junit.Tests, "a testcase per case and Rego test")
	require.Equal(t, 2, junit.Failures)
	failed := junit.Suite.Cases[1]
	require.Equal(t, "wrongly expects a match", failed.Name)
	require.NotNil(t, failed.Failure)
	require.Contains(t, failed.Failure.Text, "[both; OME v1.2.2, v0.1.5]\n")
	require.Contains(t, failed.Failure.Text, "[both; OME v0.1.4]\n")

	sr := evaluate(t, 30*time.Second, "", append([]string{"test", "-o", "sarif"}, args...)...)
	var sarif map[string]any
	require.NoError(t, json.Unmarshal([]byte(sr.stdout), &sarif))
	results := sarif["runs"].([]any)[0].(map[string]any)["results"].([]any)
	require.Len(t, results, len(fails), "a result per failure the text prints")

	gh := evaluate(t, 30*time.Second, "", append([]string{"test", "-o", "github"}, args...)...)
	lines := strings.Split(strings.TrimRight(gh.stdout, "\n"), "\n")
	require.Len(t, lines, len(fails)+1)
	for i, rel := range []string{"v1.2.2%2C v0.1.5", "v0.1.4"} {
		require.True(t, strings.HasPrefix(lines[i], "::error file="+bad("failing-case.yaml")+",line=14,"), lines[i])
		require.Contains(t, lines[i], "OME "+rel+"]", "each failure names its releases")
	}
	require.True(t, strings.HasPrefix(lines[2], "::error file="+bad("failing_test.rego")+",line=10,"), lines[2])
	require.Equal(t, "2 passed, 2 failed (14 runs: 2 engines, 3 releases)", lines[3])
}

// --- explain -----------------------------------------------------------

func TestExplainJSONContract(t *testing.T) {
	r := evaluate(t, 30*time.Second, "", "explain", "-o", "json", "-m", seedModel, "-r", seedRT)
	require.Equal(t, 1, r.code, r.stderr)
	top := requireKeys(t, json.RawMessage(r.stdout), "the output", []string{"omeVersion", "explanations", "errors"})
	require.Equal(t, "[]", string(top["errors"]), "no input error")
	var es []json.RawMessage
	require.NoError(t, json.Unmarshal(top["explanations"], &es))
	require.Len(t, es, 2, "both models of the file, against the runtime")
	e := requireKeys(t, es[0], "explanations[0]", []string{"model", "runtime", "compatible", "reason", "reasonRule", "runtimeChecks", "entries", "notes", "advice", "tie"})
	var entries []json.RawMessage
	require.NoError(t, json.Unmarshal(e["entries"], &entries))
	en := requireKeys(t, entries[0], "entries[0]", []string{"index", "matched", "differences", "checks"})
	var checks []json.RawMessage
	require.NoError(t, json.Unmarshal(en["checks"], &checks))
	require.Len(t, checks, 5)
	var names []string
	for _, c := range checks {
		m := requireKeys(t, c, "check", []string{"check", "passed", "summary", "details", "fix", "rule", "versions"})
		var name string
		require.NoError(t, json.Unmarshal(m["check"], &name))
		names = append(names, name)
	}
	require.Equal(t, []string{"pipeline", "architecture", "quantization", "format", "framework"}, names)
	fw := requireKeys(t, checks[4], "framework", []string{"check", "passed", "summary", "details", "fix", "rule", "versions"})
	v := requireKeys(t, fw["versions"], "versions", []string{"operator", "model", "entry"})
	requireKeys(t, v["entry"], "versions.entry", []string{"text", "valid", "problem", "v", "parts", "numbers", "dev", "pre", "build"})

	// The verdict is match's, byte for byte.
	m := evaluate(t, 30*time.Second, "", "match", "-o", "json", "-m", seedModel, "-r", seedRT)
	results := decodeMatchJSON(t, m.stdout)
	var first struct {
		Compatible bool   `json:"compatible"`
		Reason     string `json:"reason"`
	}
	require.NoError(t, json.Unmarshal(es[0], &first))
	require.Equal(t, results[0].Compatible, first.Compatible)
	require.Equal(t, results[0].Reason, first.Reason)
}

func TestExplainSameOnEveryEngine(t *testing.T) {
	for _, format := range output.ExplainFormats {
		args := []string{"explain", "-o", format, "-m", exModels, "-r", exRuntimes}
		cel := evaluate(t, 60*time.Second, "", args...)
		require.Equal(t, 1, cel.code, cel.stderr)
		for _, e := range []string{"rego", "both"} {
			r := evaluate(t, 60*time.Second, "", append(args, "--engine", e)...)
			require.Equal(t, cel.stdout, r.stdout, "%s %s", format, e)
		}
	}
}

func TestExplainBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no -r", []string{"explain", "-m", seedModel}, "-r"},
		{"runtime given with -m", []string{"explain", "-m", seedRT, "-r", seedRT}, "not a model"},
		{"no such model name", []string{"explain", "-m", seedModel, "--model-name", "nope", "-r", seedRT}, `no model named "nope"`},
		{"a version of the wrong type", []string{"explain", "-m", bad("version-number.yaml"), "-r", seedRT}, "evaluate lint"},
		{"unknown output", []string{"explain", "-o", "sarif", "-m", seedModel, "-r", seedRT}, `"sarif"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := evaluate(t, 30*time.Second, "", tc.args...)
			require.Equal(t, 2, r.code, r.stderr)
			require.Empty(t, r.stdout)
			require.Contains(t, r.stderr, tc.want)
		})
	}
}

var companyRules = at("examples/company-rules")

// The golden outputs of a team's own rules.
func init() {
	goldenCases = append(goldenCases,
		goldenCase{name: "lint-rules-text", args: []string{"lint", "--rules", companyRules, exModels, exRuntimes}, code: 1},
		goldenCase{name: "lint-rules-sarif", args: []string{"lint", "--rules", companyRules, "-o", "sarif", exRuntimes}, code: 1},
		goldenCase{name: "lint-rules-list", args: []string{"lint", "--rules", companyRules, "--list-rules"}},
		goldenCase{name: "lint-rules-bad", args: []string{"lint", "--rules", at("testdata/bad/rules"), exRuntimes}, code: 2},
		goldenCase{name: "select-rules-text", args: []string{"select", "--rules", companyRules, at("testdata/rules/prod.yaml")}, code: 1},
		goldenCase{name: "select-rules-json", args: []string{"select", "--rules", companyRules, "-o", "json", at("testdata/rules/prod.yaml")}, code: 1},
		goldenCase{name: "select-rules-policyreport", args: []string{"select", "--rules", companyRules, "-o", "policyreport", at("testdata/rules/prod.yaml")}, code: 1},
	)
}

// A team's rule runs in its own language whatever --engine says: its
// findings are the same on every engine, and never a disagreement.
func TestLintTeamRulesSameOnEveryEngine(t *testing.T) {
	cel := evaluate(t, 30*time.Second, "", "lint", "--rules", companyRules, exRuntimes)
	require.Equal(t, 1, cel.code, cel.stderr)
	require.Contains(t, cel.stdout, "[company.transformers_floor]")
	for _, e := range []string{"rego", "both"} {
		r := evaluate(t, 30*time.Second, "", "lint", "--engine", e, "--rules", companyRules, exRuntimes)
		require.Equal(t, cel.code, r.code, "engine %s: %s", e, r.stderr)
		require.Equal(t, cel.stdout, r.stdout, "engine %s", e)
	}
}

// --disable, --enable-only and the ignore annotation take a team's rule
// ids as they take OME's.
func TestLintFiltersTeamRulesAsOMEs(t *testing.T) {
	only := evaluate(t, 30*time.Second, "", "lint", "--rules", companyRules, "--enable-only", "company.transformers_floor", exRuntimes)
	require.Equal(t, 1, only.code, only.stderr)
	require.Equal(t, 1, strings.Count(only.stdout, "error ["), only.stdout)
	require.Contains(t, only.stdout, "[company.transformers_floor]")

	off := evaluate(t, 30*time.Second, "", "lint", "--rules", companyRules, "--disable", "company.transformers_floor,company.runtime_size_range", exRuntimes)
	require.Equal(t, 0, off.code, off.stdout)
	require.NotContains(t, off.stdout, "company.runtime_size_range")

	unknown := evaluate(t, 30*time.Second, "", "lint", "--disable", "company.transformers_floor", exRuntimes)
	require.Equal(t, 2, unknown.code, "without --rules, a team's id is unknown")
	require.Contains(t, unknown.stderr, `--disable: unknown rule "company.transformers_floor"`)

	annotated := `apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata:
  name: old
  annotations:
    evaluate.ome.io/ignore: company.runtime_size_range
spec:
  supportedModelFormats:
  - modelFormat: {name: safetensors}
    modelFramework: {name: transformers, version: "4.30.0"}
`
	r := evaluate(t, 30*time.Second, annotated, "lint", "--rules", companyRules, "-")
	require.Equal(t, 1, r.code, r.stderr)
	require.Contains(t, r.stdout, "error [company.transformers_floor]")
	require.NotContains(t, r.stdout, ": error [company.runtime_size_range]")
	require.Contains(t, r.stdout, ": ignored error [company.runtime_size_range] ", "named, since admission still refuses it")
}

// A rule over OME's decisions beside objects with fields of the wrong type
// (lint reads them, to say so): OME decides nothing about those, and the
// run goes on, where it stopped on the matcher's error.
func TestDecisionRulesBesideIllTypedObjects(t *testing.T) {
	r := evaluate(t, time.Minute, "", "lint", "--rules", companyRules, at("testdata/lint/bad"), at("testdata/rules/prod.yaml"))
	require.Equal(t, 1, r.code, r.stderr)
	require.Contains(t, r.stdout, "[company.prod_redundancy] metadata.namespace: BaseModel prod/mistral-7b is served by 1 runtime(s)")
	require.Contains(t, r.stdout, "[wrong-type]")
}

// The rule forms of testdata/rules/corpus: evaluate select --rules gives
// each InferenceService the findings of the team's rules that evaluate
// lint --rules gives it, as the bundles enforce them (their suites hold
// them to lint's).
func TestCorpusSelectAgreesWithLint(t *testing.T) {
	dirs, err := filepath.Glob(at("testdata/rules/corpus/*/objects.yaml"))
	require.NoError(t, err)
	services := 0
	for _, objs := range dirs {
		dir := filepath.Dir(objs)
		if !strings.Contains(readFile(t, objs), "kind: InferenceService") {
			continue
		}
		lint := evaluate(t, 60*time.Second, "", "lint", "--rules", filepath.Join(dir, "rules"), "-o", "json", objs)
		var l struct {
			Findings []struct {
				Rule, Message string
				Object        struct{ Kind, Name string }
			}
		}
		require.NoError(t, json.Unmarshal([]byte(lint.stdout), &l), lint.stderr)
		want := map[string][]string{}
		for _, f := range l.Findings {
			if f.Object.Kind == "InferenceService" && strings.HasPrefix(f.Rule, "corpus.") {
				want[f.Object.Name] = append(want[f.Object.Name], f.Rule+": "+f.Message)
			}
		}
		sel := evaluate(t, 60*time.Second, "", "select", "--rules", filepath.Join(dir, "rules"), "-o", "json", objs)
		var s struct {
			Decisions []struct {
				InferenceService struct{ Name string }
				Rules            []struct{ Rule, Message string }
			}
		}
		require.NoError(t, json.Unmarshal([]byte(sel.stdout), &s), sel.stderr)
		for _, d := range s.Decisions {
			var got []string
			for _, f := range d.Rules {
				got = append(got, f.Rule+": "+f.Message)
			}
			require.ElementsMatch(t, want[d.InferenceService.Name], got, "%s: %s", dir, d.InferenceService.Name)
			services++
		}
	}
	require.GreaterOrEqual(t, services, 3)
}

// The CEL rule forms of testdata/rules/corpus through the commands a user
// types: evaluate lint --rules finds against some object of each folder
// and not another; evaluate gatekeeper (with --native-out) and evaluate
// kyverno write each rule with exit 0 and no notice (each rule refuses an
// object of --lint, so its suites and Tests test it); a rule whose call
// has no stand-in in CEL is refused by both, by name, with exit 2, and
// nothing is written.
func TestCorpusCELRulesThroughTheCommands(t *testing.T) {
	dirs, err := filepath.Glob(at("testdata/rules/corpus/cel-*"))
	require.NoError(t, err)
	require.NotEmpty(t, dirs)
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			rulesDir, objs := filepath.Join(dir, "rules"), filepath.Join(dir, "objects.yaml")
			lint := evaluate(t, 60*time.Second, "", "lint", "--rules", rulesDir, "-o", "json", objs)
			require.Contains(t, []int{0, 1}, lint.code, lint.stderr)
			var doc struct {
				Findings []struct {
					Rule   string
					Object struct{ Name string }
				}
			}
			require.NoError(t, json.Unmarshal([]byte(lint.stdout), &doc))
			refused := map[string]bool{}
			for _, f := range doc.Findings {
				if strings.HasPrefix(f.Rule, "corpus-") {
					refused[f.Object.Name] = true
				}
			}
			require.NotEmpty(t, refused, "the folder's rule finds against some object")
			out := t.TempDir()
			for _, args := range [][]string{
				{"gatekeeper", "--out", filepath.Join(out, "gk"), "--native-out", filepath.Join(out, "native")},
				{"kyverno", "--out", filepath.Join(out, "ky")},
			} {
				r := evaluate(t, 60*time.Second, "", append(args, "--rules", rulesDir, "--lint", objs)...)
				require.Equal(t, 0, r.code, r.stderr)
				require.NotContains(t, r.stderr, "notice: rule corpus-")
			}
			require.FileExists(t, filepath.Join(out, "native", "team-rules.yaml"))
			require.FileExists(t, filepath.Join(out, "ky", "team", ".kyverno-test", "kyverno-test.yaml"))
		})
	}
	// The compareTo form with a size comparison, which has no stand-in.
	src, err := os.ReadFile(at("testdata/rules/corpus/cel-compareto/rules/transformers-floor.yaml"))
	require.NoError(t, err)
	rulesDir := t.TempDir()
	text := strings.Replace(string(src), `omeVersion(f.modelFramework.version).compareTo(omeVersion("4.40.1")) >= 0)`, `omeSizeCompare(f.modelFramework.version, "4.40.1") >= 0)`, 1)
	require.NoError(t, os.WriteFile(filepath.Join(rulesDir, "floor.yaml"), []byte(text), 0o644))
	for _, cmd := range []string{"gatekeeper", "kyverno"} {
		out := filepath.Join(t.TempDir(), "out")
		r := evaluate(t, 60*time.Second, "", cmd, "--rules", rulesDir, "--out", out)
		require.Equal(t, 2, r.code, r.stderr)
		require.Contains(t, r.stderr, "floor.yaml:4: rule corpus-transformers-floor cannot go into the")
		require.Contains(t, r.stderr, "spec.validations[0].expression: calls omeSizeCompare, which has no stand-in there")
		require.NoDirExists(t, out)
	}
}
