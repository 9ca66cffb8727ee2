package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/require"
)

var (
	nsDir   = at("testdata/namespaces")
	dumpAll = at("testdata/dump/all.yaml")
	engines = []string{"cel", "rego", "both"}
)

// matchPairs runs match -o json and returns, per model, the runtimes it
// was paired with, with the exit code and the document's leftOut.
func matchPairs(t *testing.T, args ...string) (pairs map[string][]string, leftOut int, errors []map[string]any, code int) {
	t.Helper()
	r := evaluate(t, 30*time.Second, "", append([]string{"match", "-o", "json"}, args...)...)
	var doc struct {
		Results []struct {
			Model, Runtime struct{ Kind, Namespace, Name string }
		}
		LeftOut int              `json:"leftOut"`
		Errors  []map[string]any `json:"errors"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &doc), "stdout: %s\nstderr: %s", r.stdout, r.stderr)
	pairs = map[string][]string{}
	for _, res := range doc.Results {
		m := res.Model.Name
		if res.Model.Namespace != "" {
			m = res.Model.Namespace + "/" + m
		}
		rt := res.Runtime.Name
		if res.Runtime.Namespace != "" {
			rt = res.Runtime.Namespace + "/" + rt
		}
		pairs[m] = append(pairs[m], rt)
	}
	return pairs, doc.LeftOut, doc.Errors, r.code
}

// Pairs are scoped as OME scopes them, on every engine: a BaseModel meets
// the ServingRuntimes of its own namespace and every ClusterServingRuntime;
// a ClusterBaseModel meets every runtime.
func TestMatchScopesByNamespace(t *testing.T) {
	for _, engine := range engines {
		t.Run(engine, func(t *testing.T) {
			pairs, leftOut, errs, code := matchPairs(t, "--engine", engine, "-f", nsDir)
			require.Equal(t, map[string][]string{
				"llama-c":        {"shared", "team-a/vllm"},
				"team-a/llama-a": {"shared", "team-a/vllm"},
				"team-b/llama-b": {"shared"},
			}, pairs)
			require.Equal(t, 1, leftOut, "team-b/llama-b with team-a/vllm")
			require.Empty(t, errs)
			require.Equal(t, 1, code, "team-b's model has no runtime")

			// The example: a BaseModel of team-b and a
			// ServingRuntime of team-a, in two files, never meet.
			r := evaluate(t, 30*time.Second, "", "match", "--engine", engine, "-f", nsDir+"/team-b.yaml", "-f", nsDir+"/team-a.yaml")
			require.Equal(t, 1, r.code, r.stderr)
			require.Contains(t, r.stdout, "BaseModel team-b/llama-b\n  no runtime that OME pairs with it was given\n  0 compatible runtime(s)\n")
			require.Contains(t, r.stdout, "2 model(s), 1 with no compatible runtime; 1 pair(s) left out, which OME never considers")

			r = evaluate(t, 30*time.Second, "", "explain", "--engine", engine, "-f", nsDir+"/team-b.yaml", "-f", nsDir+"/team-a.yaml", "--model-name", "llama-b")
			require.Equal(t, 2, r.code)
			require.Contains(t, r.stderr, "notice: 1 pair(s) left out")
			require.Contains(t, r.stderr, "OME never pairs these models with these runtimes")

			r = evaluate(t, 30*time.Second, "", "lint", "--engine", engine, "--cross-check", "-o", "json", nsDir)
			var unmatched []string
			for _, f := range decodeLintJSON(t, r.stdout) {
				if f.Rule == "unmatched-model" {
					unmatched = append(unmatched, f.Object.Namespace+"/"+f.Object.Name+": "+f.Message[:strings.Index(f.Message, ")")+1])
				}
			}
			require.Equal(t, []string{"team-b/llama-b: no runtime given accepts this model (1 checked)"}, unmatched)
		})
	}
}

// An object without metadata.namespace is in -n's namespace, default
// "default", as kubectl apply puts it.
func TestNamespaceFlag(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"model.yaml":   strings.Replace(readFile(t, nsDir+"/team-b.yaml"), "  namespace: team-b\n", "", 1),
		"runtime.yaml": strings.Replace(readFile(t, nsDir+"/team-a.yaml"), "  namespace: team-a\n", "", 2),
	} {
		writeFile(t, dir, name, text)
	}
	pairs, leftOut, _, _ := matchPairs(t, "-f", dir)
	require.Equal(t, map[string][]string{"default/llama-a": {"default/vllm"}, "default/llama-b": {"default/vllm"}}, pairs)
	require.Zero(t, leftOut)

	pairs, _, _, _ = matchPairs(t, "-n", "team-x", "-f", dir)
	require.Equal(t, map[string][]string{"team-x/llama-a": {"team-x/vllm"}, "team-x/llama-b": {"team-x/vllm"}}, pairs)

	// A namespace given in the file is kept.
	pairs, leftOut, _, _ = matchPairs(t, "-n", "team-x", "-f", dir+"/model.yaml", "-f", nsDir+"/team-a.yaml")
	require.Equal(t, map[string][]string{"team-a/llama-a": {"team-a/vllm"}, "team-x/llama-b": nil}, withEmpty(pairs, "team-x/llama-b"))
	require.Equal(t, 1, leftOut)
}

func withEmpty(m map[string][]string, key string) map[string][]string {
	if _, ok := m[key]; !ok {
		m[key] = nil
	}
	return m
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}

// A kubectl dump (kind: List of every kind, a typed list among them, and
// other kinds) is read by every command, which takes the kinds it needs.
func TestKubectlDump(t *testing.T) {
	for _, engine := range engines {
		t.Run(engine, func(t *testing.T) {
			pairs, _, _, code := matchPairs(t, "--engine", engine, "-f", dumpAll)
			require.Equal(t, map[string][]string{"team-a/llama-a": {"team-a/vllm", "shared"}}, pairs)
			require.Equal(t, 0, code)

			r := evaluate(t, 30*time.Second, "", "match", "--engine", engine, "-f", dumpAll)
			require.Equal(t, "notice: skipped 1 document(s) that are not OME objects (1 ConfigMap)\n"+
				"notice: match reads models and runtimes; skipped 1 other OME object(s) (1 InferenceService)\n", r.stderr)

			r = evaluate(t, 30*time.Second, "", "select", "--engine", engine, "-f", dumpAll)
			require.Equal(t, 0, r.code, r.stderr)
			require.Contains(t, r.stdout, "ADMITTED: OME selects ServingRuntime team-a/vllm")

			r = evaluate(t, 30*time.Second, "", "explain", "--engine", engine, "-f", dumpAll, "-o", "json")
			var doc struct{ Explanations []any }
			require.NoError(t, json.Unmarshal([]byte(r.stdout), &doc))
			require.Len(t, doc.Explanations, 2)

			// Read back from a cluster, the objects carry what OME's CRDs
			// write by default (operator Equal, weight 1): no finding.
			r = evaluate(t, 30*time.Second, "", "lint", "--engine", engine, "-f", dumpAll)
			require.Equal(t, 0, r.code, r.stderr)
			require.Equal(t, "4 object(s): 0 error(s), 0 warning(s), 0 info\n", r.stdout, "the models, the runtime and the InferenceService")
		})
	}
}

// One bad object among good ones is named with its file, line and field,
// after the results of the others; the exit code is 2; json carries it.
func TestOneBadRuntimeAmongGood(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"srt-llama-3-2-3b-instruct.yaml", "vllm-llama-3-2-3b-instruct.yaml"} {
		writeFile(t, dir, f, readFile(t, exRuntimes+"/"+f))
	}
	writeFile(t, dir, "z-bad.yaml", readFile(t, bad("version-number-runtime.yaml")))
	model := exModels + "/llama-3-2-3b-instruct.yaml"
	for _, engine := range engines {
		t.Run(engine, func(t *testing.T) {
			r := evaluate(t, 30*time.Second, "", "match", "--engine", engine, "-f", model, "-f", dir)
			require.Equal(t, 2, r.code)
			require.Contains(t, r.stdout, "vllm-llama-3-2-3b-instruct  MATCH")
			require.Contains(t, r.stdout, "1 model(s), 0 with no compatible runtime")
			require.Equal(t, "evaluate: "+filepath.Join(dir, "z-bad.yaml")+":13: spec.supportedModelFormats[0].modelFramework.version: must be a string, got a number (4.40); quote it: \"4.40\"\n", r.stderr)

			pairs, _, errs, code := matchPairs(t, "--engine", engine, "-f", model, "-f", dir)
			require.Equal(t, 2, code)
			require.Len(t, pairs["llama-demo/llama-3-2-3b-instruct"], 2)
			require.Equal(t, []map[string]any{{"file": filepath.Join(dir, "z-bad.yaml"), "line": float64(13),
				"field": "spec.supportedModelFormats[0].modelFramework.version", "message": "must be a string, got a number (4.40); quote it: \"4.40\""}}, errs)

			// select judges the InferenceServices all the same.
			r = evaluate(t, 30*time.Second, "", "select", "--engine", engine, "-f", at("testdata/examples/select"), "-f", exModels, "-f", dir, "-o", "json")
			require.Equal(t, 2, r.code)
			var sel struct {
				Decisions []any
				Errors    []map[string]any
			}
			require.NoError(t, json.Unmarshal([]byte(r.stdout), &sel))
			require.Len(t, sel.Decisions, 3)
			require.Len(t, sel.Errors, 1)
		})
	}
	// lint takes the wrong type as a finding; what is not YAML at all is
	// an input-error finding, in every format, and the others are linted.
	writeFile(t, dir, "a-template.yaml", "{{- if .Values.enabled }}\n"+readFile(t, exRuntimes+"/srt-llama-3-2-3b-instruct.yaml")+"{{- end }}\n")
	r := evaluate(t, 30*time.Second, "", "lint", "-f", dir)
	require.Equal(t, 2, r.code)
	require.Contains(t, r.stdout, filepath.Join(dir, "a-template.yaml")+":1: error [input-error] this is a template ({{ ... }}), not YAML")
	require.Contains(t, r.stdout, filepath.Join(dir, "z-bad.yaml")+":13: error [non-string-version]")
	require.Contains(t, r.stdout, "3 object(s):")
	r = evaluate(t, 30*time.Second, "", "lint", "-f", dir, "-o", "sarif")
	require.Equal(t, 2, r.code)
	require.Contains(t, r.stdout, `"ruleId": "input-error"`)
	r = evaluate(t, 30*time.Second, "", "lint", "-f", dir, "-o", "junit")
	require.Contains(t, r.stdout, `<testcase classname="`+filepath.Join(dir, "a-template.yaml")+`" name="input-error">`)
}

// Turning lint rules off: --disable, --enable-only, the annotation; an
// unknown rule id is an error, never ignored.
func TestLintTuning(t *testing.T) {
	nameCase := at("testdata/lint/bad/name-case.yaml")
	dir := t.TempDir()
	annotated := strings.Replace(readFile(t, nameCase), "metadata:\n", "metadata:\n  annotations:\n    evaluate.ome.io/ignore: \"name-case, crd-schema\"\n", 1)
	writeFile(t, dir, "annotated.yaml", annotated)
	writeFile(t, dir, "unknown.yaml", strings.Replace(readFile(t, nameCase), "metadata:\n", "metadata:\n  annotations:\n    evaluate.ome.io/ignore: name-case,no-such-rule\n", 1))
	rules := func(r result) []string {
		var out []string
		for _, f := range decodeLintJSON(t, r.stdout) {
			out = append(out, f.Rule)
		}
		sort.Strings(out)
		return out
	}
	for _, engine := range engines {
		t.Run(engine, func(t *testing.T) {
			lint := func(args ...string) result {
				return evaluate(t, 30*time.Second, "", append([]string{"lint", "--engine", engine, "-o", "json"}, args...)...)
			}
			all := rules(lint(nameCase))
			require.Contains(t, all, "name-case")
			require.NotContains(t, rules(lint("--disable", "name-case", nameCase)), "name-case")
			only := rules(lint("--enable-only", "name-case", nameCase))
			require.NotEmpty(t, only)
			for _, r := range only {
				require.Equal(t, "name-case", r)
			}
			annotatedRun := lint(dir + "/annotated.yaml")
			require.Empty(t, rules(annotatedRun), "the annotation turns both rules off for its object")
			// ... for lint only: each finding it drops is named, with what
			// admission still does with it.
			var ignored struct {
				Ignored []struct{ Rule, Message string }
			}
			require.NoError(t, json.Unmarshal([]byte(annotatedRun.stdout), &ignored))
			require.NotEmpty(t, ignored.Ignored)
			for _, f := range ignored.Ignored {
				require.Equal(t, "name-case", f.Rule)
			}
			text := evaluate(t, 30*time.Second, "", "lint", "--engine", engine, dir+"/annotated.yaml")
			require.Equal(t, 0, text.code)
			require.Contains(t, text.stdout, ": ignored warning [name-case] ")
			require.Contains(t, text.stdout, "(turned off by the object's evaluate.ome.io/ignore annotation for lint only: admission still warns of it)")
			require.Contains(t, text.stdout, "; 1 ignored by annotation\n")
			sarif := evaluate(t, 30*time.Second, "", "lint", "--engine", engine, "-o", "sarif", dir+"/annotated.yaml")
			require.Contains(t, sarif.stdout, `"suppressions": [`)
			require.Contains(t, sarif.stdout, `"kind": "inSource"`)

			r := lint(dir + "/unknown.yaml")
			require.Equal(t, 2, r.code)
			require.Equal(t, []string{"input-error"}, rules(r), "name-case is still off; the unknown id is an error")
			require.Contains(t, r.stdout, `metadata.annotations[\"evaluate.ome.io/ignore\"]`)
			require.Contains(t, r.stdout, `unknown rule \"no-such-rule\"`)
		})
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--disable", "name-case,nope", nameCase}, `--disable: unknown rule "nope" (evaluate lint --list-rules lists them)`},
		{[]string{"--enable-only", "Name-Case", nameCase}, `--enable-only: unknown rule "Name-Case"`},
		{[]string{"--enable-only", "name-case", "--disable", "crd-schema", nameCase}, "none of the others can be"},
	} {
		r := evaluate(t, 30*time.Second, "", append([]string{"lint"}, tc.args...)...)
		require.Equal(t, 2, r.code)
		require.Contains(t, r.stderr, tc.want)
	}
}

// Input with no OME object at all (a repository's deploy tree) exits 0
// with one notice, unless --fail-on-empty.
func TestEmptyInput(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "deployment.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n")
	writeFile(t, dir, "README.md", "not read\n")
	for _, command := range []string{"lint", "match", "select"} {
		t.Run(command, func(t *testing.T) {
			r := evaluate(t, 30*time.Second, "", command, "-f", dir)
			require.Equal(t, 0, r.code, r.stderr)
			require.Empty(t, r.stdout)
			require.Equal(t, "notice: skipped 1 document(s) that are not OME objects (1 Deployment)\nnotice: no OME objects in "+dir+"\n", r.stderr)
			r = evaluate(t, 30*time.Second, "", command, "-f", dir, "--fail-on-empty")
			require.Equal(t, 2, r.code)
			require.Contains(t, r.stderr, "evaluate: no OME objects in "+dir+" (--fail-on-empty)")
		})
	}
	// Folders inside the folder are read with -R, as kubectl reads them.
	sub := filepath.Join(dir, "runtimes")
	require.NoError(t, os.Mkdir(sub, 0o755))
	writeFile(t, sub, "rt.yaml", readFile(t, exRuntimes+"/srt-llama-3-2-3b-instruct.yaml"))
	r := evaluate(t, 30*time.Second, "", "lint", "-f", dir)
	require.Equal(t, 0, r.code)
	require.Contains(t, r.stderr, "notice: 1 folder(s) inside the folders given were not read ("+sub+"); -R reads them")
	r = evaluate(t, 30*time.Second, "", "lint", "-R", "-f", dir)
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, "1 object(s): 0 error(s), 0 warning(s), 0 info\n", r.stdout)
}

// The memory limit follows what is read, as it is read: under a limit below
// what is live the collector would run without pause (10,000 runtimes took
// 6 s to read instead of 2.5). Here a limit of 1 MiB must be raised.
func TestMemoryLimitFollowsWhatIsRead(t *testing.T) {
	if _, set := os.LookupEnv("GOMEMLIMIT"); set {
		t.Skip("GOMEMLIMIT decides")
	}
	runtime, err := os.ReadFile(at("testdata/examples/runtimes/vllm-llama-3-2-3b-instruct.yaml"))
	require.NoError(t, err)
	var docs strings.Builder
	for i := range 1000 {
		docs.WriteString(strings.Replace(string(runtime), "name: vllm-llama-3-2-3b-instruct", fmt.Sprintf("name: vllm-%d", i), 1))
		docs.WriteString("\n---\n")
	}
	file := filepath.Join(t.TempDir(), "runtimes.yaml")
	require.NoError(t, os.WriteFile(file, []byte(docs.String()), 0o644))

	const small = 1 << 20
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(small))
	in := inputOptions{files: []string{file}}
	input, err := in.read(&cobra.Command{}, nil, false, nil)
	require.NoError(t, err)
	require.Len(t, input.Objects, 1000)
	require.Empty(t, input.Problems)
	require.Greater(t, debug.SetMemoryLimit(-1), int64(small), "the memory limit was not raised while reading")
}
