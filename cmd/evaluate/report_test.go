package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ome-policy/evaluator/report"
)

// compact is a JSON document without its layout, for byte comparison.
func compact(t *testing.T, doc []byte) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, json.Compact(&b, doc), "not JSON: %.200s", doc)
	return b.String()
}

func decodeAny(t *testing.T, doc []byte) any {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal(doc, &v), "not JSON: %.200s", doc)
	return v
}

// applied is lint's JSON report without the findings on the objects that
// its notices say a later one replaces, nor those of duplicate-name.
func applied(t *testing.T, report, notices string) any {
	t.Helper()
	replaced := map[string]bool{} // file and Kind/[namespace/]name
	for _, l := range strings.Split(notices, "\n") {
		at, what, ok := strings.Cut(l, ": notice: ")
		if ref, _, again := strings.Cut(what, " is given again at "); ok && again {
			replaced[at[:strings.LastIndex(at, ":")]+" "+ref] = true
		}
	}
	v := decodeAny(t, []byte(report)).(map[string]any)
	findings := []any{}
	for _, f := range v["findings"].([]any) {
		m := f.(map[string]any)
		o := m["object"].(map[string]any)
		ref := strings.Join(slices.DeleteFunc([]string{o["kind"].(string), o["namespace"].(string), o["name"].(string)},
			func(s string) bool { return s == "" }), "/")
		if m["rule"] != "duplicate-name" && !replaced[m["file"].(string)+" "+ref] {
			findings = append(findings, f)
		}
	}
	require.NotEmpty(t, findings)
	v["findings"] = findings
	return v
}

// reportDocuments writes a report with args and returns its documents.
func reportDocuments(t *testing.T, code int, args ...string) map[string]json.RawMessage {
	t.Helper()
	out := filepath.Join(t.TempDir(), "report.html")
	res := evaluate(t, 5*time.Minute, "", append(append([]string{"report"}, args...), "--out", out)...)
	require.Equal(t, code, res.code, "stderr: %s", res.stderr)
	require.Contains(t, res.stderr, "wrote "+out)
	page, err := os.ReadFile(out)
	require.NoError(t, err)
	docs, err := report.Documents(page)
	require.NoError(t, err)
	return docs
}

// The page's data is, document for document and byte for byte (layout
// aside), what evaluate match, explain, lint --cross-check and select print.
func TestReportDataIsTheCommandsJSON(t *testing.T) {
	services := at("testdata/examples/select")
	catModels, catRuntimes := at("testdata/catalog/models"), at("testdata/catalog/runtimes")
	for _, tc := range []struct {
		name             string
		models, runtimes string
		services         string
		engine           string
		matchCode        int // the report's is 0: a page written is no failure
	}{
		{name: "examples with InferenceServices", models: exModels, runtimes: exRuntimes, services: services, engine: "cel"},
		{name: "examples on rego", models: exModels, runtimes: exRuntimes, services: services, engine: "rego"},
		{name: "examples on both", models: exModels, runtimes: exRuntimes, engine: "both"},
		{name: "catalog", models: catModels, runtimes: catRuntimes, engine: "cel", matchCode: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inputs := []string{"-R", "-m", tc.models, "-r", tc.runtimes}
			if tc.services != "" {
				inputs = append(inputs, "-f", tc.services)
			}
			args := append(append([]string{}, inputs...), "--engine", tc.engine)
			docs := reportDocuments(t, 0, args...)
			cli := func(code int, args ...string) string {
				t.Helper()
				res := evaluate(t, 5*time.Minute, "", append(args, "-R", "--engine", tc.engine, "-o", "json")...)
				require.Equal(t, code, res.code, "%s: %s", strings.Join(args, " "), res.stderr)
				return compact(t, []byte(res.stdout))
			}
			require.Equal(t, cli(tc.matchCode, "match", "-m", tc.models, "-r", tc.runtimes), compact(t, docs["match"]), "match")
			explainCode := 1 // some pair is not compatible, in every case here
			require.Equal(t, cli(explainCode, "explain", "-m", tc.models, "-r", tc.runtimes), compact(t, docs["explain"]), "explain")
			// The page is of what apply would leave; lint reports on every
			// document of the files: on an object a later one replaces too,
			// and duplicate-name on the later one.
			lint := evaluate(t, 5*time.Minute, "", "lint", "-R", "--cross-check", tc.models, tc.runtimes, "--engine", tc.engine, "-o", "json")
			require.Equal(t, 0, lint.code, lint.stderr)
			require.Equal(t, applied(t, lint.stdout, lint.stderr), decodeAny(t, docs["lint"]), "lint")
			if tc.services != "" {
				require.Equal(t, cli(1, "select", "-f", tc.services, "-f", tc.models, "-f", tc.runtimes), compact(t, docs["select"]), "select")
			} else {
				require.Equal(t, "null", string(docs["select"]))
			}
			// -o json prints the same documents, in one.
			var all map[string]json.RawMessage
			require.NoError(t, json.Unmarshal([]byte(cli(0, append([]string{"report"}, inputs...)...)), &all))
			require.Equal(t, len(docs), len(all))
			for name, doc := range docs {
				require.Equal(t, compact(t, doc), compact(t, all[name]), name)
			}
		})
	}
}

func TestReportCommand(t *testing.T) {
	tmp := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		code int
		want []string // substrings of stderr
	}{
		{"no --out", []string{"report", "-m", exModels, "-r", exRuntimes}, 2, []string{"--out FILE.html"}},
		{"no runtimes", []string{"report", "-m", exModels, "--out", filepath.Join(tmp, "a.html")}, 2, []string{"a report needs models and runtimes; found 3 model(s) and 0 runtime(s)"}},
		{"no input", []string{"report", "--out", filepath.Join(tmp, "a.html")}, 2, []string{"give the models and runtimes: files, folders, -f"}},
		{"unknown engine", []string{"report", "-m", exModels, "-r", exRuntimes, "--engine", "lua", "--out", filepath.Join(tmp, "a.html")}, 2, []string{`--engine: "lua"`}},
		{"a format it has not", []string{"report", "-m", exModels, "-r", exRuntimes, "-o", "yaml"}, 2, []string{`--output: "yaml" is not one of html, json`}},
		{"a format and a file", []string{"report", "-m", exModels, "-r", exRuntimes, "-o", "a.html", "--out", filepath.Join(tmp, "a.html")}, 2, []string{`--output: "a.html" is not one of html, json`}},
		{"version as a YAML number", []string{"report", "-m", bad("version-number.yaml"), "-r", exRuntimes, "--out", filepath.Join(tmp, "a.html")}, 2,
			[]string{bad("version-number.yaml") + ":9: spec.modelFormat.version: ", `quote it: "1.0"`}},
		{"a runtime given as a model", []string{"report", "-m", exRuntimes, "-r", exRuntimes, "--out", filepath.Join(tmp, "a.html")}, 2, []string{"is not a model; -m takes models"}},
		{"unwritable output", []string{"report", "-m", exModels, "-r", exRuntimes, "--out", filepath.Join(tmp, "missing", "a.html")}, 2, []string{"--out: "}},
		// The page is written, and what it shows is no failure.
		{"a model no runtime accepts", []string{"report", "-m", bad("unserved-model.yaml"), "-r", exRuntimes, "--out", filepath.Join(tmp, "b.html")}, 0, []string{"1 model(s) with no compatible runtime"}},
		{"every model served", []string{"report", "-m", exModels, "-r", exRuntimes, "--out", filepath.Join(tmp, "c.html")}, 0, []string{"3 model(s) x 4 runtime(s)"}},
		{"paths as arguments", []string{"report", exModels, exRuntimes, "--out", filepath.Join(tmp, "d.html")}, 0, []string{"3 model(s) x 4 runtime(s)"}},
		// -o FILE, as before -o was the format: the page, with a notice.
		{"-o FILE.html, deprecated", []string{"report", "-m", exModels, "-r", exRuntimes, "-o", filepath.Join(tmp, "e.html")}, 0,
			[]string{"notice: -o " + filepath.Join(tmp, "e.html") + " is deprecated", "write --out " + filepath.Join(tmp, "e.html"), "wrote " + filepath.Join(tmp, "e.html")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := evaluate(t, time.Minute, "", tc.args...)
			require.Equal(t, tc.code, res.code, "stderr: %s", res.stderr)
			for _, w := range tc.want {
				require.Contains(t, res.stderr, w)
			}
			require.Empty(t, res.stdout)
		})
	}
	// Bad input writes no page; the deprecated -o FILE writes one.
	_, err := os.Stat(filepath.Join(tmp, "a.html"))
	require.True(t, os.IsNotExist(err), "a failed run wrote its page")
	for _, page := range []string{"b.html", "c.html", "d.html", "e.html"} {
		data, err := os.ReadFile(filepath.Join(tmp, page))
		require.NoError(t, err)
		require.True(t, strings.HasPrefix(string(data), "<!DOCTYPE html>"), page)
	}

	// --out - writes the page to standard output, and only the page.
	res := evaluate(t, time.Minute, "", "report", "-m", exModels, "-r", exRuntimes, "--out", "-")
	require.Equal(t, 0, res.code, res.stderr)
	require.True(t, strings.HasPrefix(res.stdout, "<!DOCTYPE html>"))
	_, err = report.Documents([]byte(res.stdout))
	require.NoError(t, err)

	// -o json prints the documents on standard output, or to --out's file.
	res = evaluate(t, time.Minute, "", "report", "-m", exModels, "-r", exRuntimes, "-o", "json")
	require.Equal(t, 0, res.code, res.stderr)
	var doc map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &doc), res.stdout)
	require.Contains(t, doc, "match")
	require.Contains(t, res.stderr, "wrote standard output")
	res = evaluate(t, time.Minute, "", "report", "-m", exModels, "-r", exRuntimes, "-o", "json", "--out", filepath.Join(tmp, "r.json"))
	require.Equal(t, 0, res.code, res.stderr)
	require.Empty(t, res.stdout)
	data, err := os.ReadFile(filepath.Join(tmp, "r.json"))
	require.NoError(t, err)
	require.JSONEq(t, string(data), string(mustJSON(t, doc)))
}

// mustJSON is v as JSON.
func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

func TestReportHelp(t *testing.T) {
	res := evaluate(t, time.Minute, "", "report", "--help")
	require.Equal(t, 0, res.code)
	for _, w := range []string{"Examples:", "evaluate report -R -m testdata/catalog/models -r testdata/catalog/runtimes --out report.html",
		"--engine", "--cluster", "-f, --filename", "Exit codes"} {
		require.Contains(t, res.stdout, w)
	}
	res = evaluate(t, time.Minute, "", "--help")
	require.Contains(t, res.stdout, "report ")
}

// evaluate report --rules lists a team's findings on the page with lint's:
// on models (with OME's decisions) and on InferenceServices.
func TestReportListsTeamRules(t *testing.T) {
	r := evaluate(t, 60*time.Second, "", "report", "--rules", companyRules, "-o", "json", at("testdata/rules/prod.yaml"))
	require.Equal(t, 0, r.code, r.stderr)
	var doc struct {
		Lint struct {
			Findings []jsonFinding `json:"findings"`
		} `json:"lint"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &doc))
	var got []string
	for _, f := range doc.Lint.Findings {
		if strings.HasPrefix(f.Rule, "company.") {
			got = append(got, f.Rule+" "+f.Object.Kind+" "+f.Object.Name+" "+f.Field)
		}
	}
	require.Equal(t, []string{
		"company.prod_redundancy BaseModel mistral-7b metadata.namespace",
		"company.prod_pins_runtime InferenceService chat spec.runtime.name",
	}, got)
	without := evaluate(t, 60*time.Second, "", "report", "-o", "json", at("testdata/rules/prod.yaml"))
	require.NotContains(t, without.stdout, "company.")
}
