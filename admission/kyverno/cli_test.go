package kyverno

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/ome-policy/evaluator/admission"
	"github.com/ome-policy/evaluator/policies/policyset"
)

// kyvernoFailed is how kubectl-kyverno apply reports a refused resource:
// the policy, namespace/Kind/name (default for a cluster-scoped one), and
// on the next line the message of the first failing validation.
var kyvernoFailed = regexp.MustCompile(`(?m)^policy (\S+) -> resource (\S+) failed:\n1 -  (.*)$`)

// TestKyvernoCLIMessages runs Kyverno's own CLI (KYVERNO_CLI, the
// kubectl-kyverno that make kyverno builds; make kyverno-verify sets it)
// on each release's Kyverno bundle: kubectl-kyverno apply refuses exactly
// the lint objects that OMEVersionLint refuses, each with its first
// violation's message, byte for byte, and passes the others. (kyverno
// test, which make kyverno-verify also runs, checks verdicts only.) Then
// the selection policy's Tests (kyvernoSelectionMessages): the bundle's,
// and those made of OME's recorded answers (recordedCaseFile) that hold
// for the release, one result for each of them.
func TestKyvernoCLIMessages(t *testing.T) {
	cli := os.Getenv("KYVERNO_CLI")
	if cli == "" {
		t.Skip("KYVERNO_CLI is not set: make kyverno-verify runs this with the kubectl-kyverno it builds")
	}
	all, err := policyset.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range all.Releases() {
		t.Run(r, func(t *testing.T) {
			b, opts := projectBundle(t, all, r)
			dir := t.TempDir()
			if err := b.Write(dir, b.Paths(), nil); err != nil {
				t.Fatal(err)
			}
			for _, s := range Severities {
				policy := "ome-version-lint-" + s.Severity
				want := map[string]string{}
				for _, l := range opts.Lint {
					if msgs := admission.LintViolations(l.Findings, l.Object, s.Severity); len(msgs) > 0 {
						ns := l.Object.Namespace
						if ns == "" {
							ns = "default"
						}
						want[ns+"/"+l.Object.Kind+"/"+l.Object.Name] += msgs[0] + "\n"
					}
				}
				got := map[string]string{}
				files, _ := filepath.Glob(filepath.Join(dir, policy, ".kyverno-test", "resources*.yaml"))
				if len(files) == 0 {
					t.Fatalf("%s has no resources", policy)
				}
				for _, f := range files {
					cmd := exec.Command(cli, "apply", path.Join("..", policy+".yaml"), "--resource", filepath.Base(f), "--remove-color")
					cmd.Dir = filepath.Dir(f)
					out, err := cmd.CombinedOutput()
					// Exit 1 when a resource fails; anything else is the CLI's trouble.
					if exit, ok := err.(*exec.ExitError); err != nil && (!ok || exit.ExitCode() != 1) {
						t.Fatalf("%s apply %s: %v\n%s", cli, f, err, out)
					}
					if !strings.Contains(string(out), "error: 0,") {
						t.Errorf("%s: kubectl-kyverno apply gives errors:\n%s", f, out)
					}
					for _, m := range kyvernoFailed.FindAllStringSubmatch(string(out), -1) {
						if m[1] != policy {
							t.Errorf("%s: a result of policy %s", f, m[1])
						}
						got[m[2]] += m[3] + "\n"
					}
				}
				if !reflect.DeepEqual(got, want) {
					for k, w := range want {
						if got[k] != w {
							t.Errorf("%s %s: Kyverno says\n%q\nOMEVersionLint's first violation is\n%q", policy, k, got[k], w)
						}
					}
					for k, g := range got {
						if _, ok := want[k]; !ok {
							t.Errorf("%s %s: Kyverno refuses it (%q); OMEVersionLint does not", policy, k, g)
						}
					}
				}
			}
			kyvernoSelectionMessages(t, cli, filepath.Join(dir, kyvernoSelectionName))
			recorded := recordedCases(t, r)
			if len(recorded) == 0 {
				if r == all.Newest() {
					t.Fatalf("%s: no case for %s", recordedCaseFile, r)
				}
				return
			}
			t.Run("sample-selection", func(t *testing.T) {
				if n := kyvernoSelectionMessages(t, cli, recordedSelectionFolder(t, b, recorded)); n != len(recorded) {
					t.Errorf("%d results of the %d cases of %s", n, len(recorded), recordedCaseFile)
				}
			})
		})
	}
}

// kyvernoSelectionMessages runs kubectl-kyverno test on the selection
// policy's folder with its detailed results as JSON: every result must be
// as the Test expects, and each refusal's message must be the one its
// result's comment gives, the case's (OME's), byte for byte. The Tests run
// in as many parts as there are CPUs, side by side (each Test builds its
// own fake cluster, which is most of the time). It returns how many
// results Kyverno gave.
func kyvernoSelectionMessages(t *testing.T, cli, dir string) int {
	t.Helper()
	folder := filepath.Join(dir, ".kyverno-test")
	data, err := os.ReadFile(filepath.Join(folder, "kyverno-test.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var docs []*yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc yaml.Node
		if err := dec.Decode(&doc); err != nil {
			break
		}
		docs = append(docs, &doc)
	}
	parts := max(1, min(runtime.GOMAXPROCS(0), 4, len(docs)))
	type outcome struct {
		want []map[string]string
		got  [][]struct{ Message, RESOURCE, RESULT string }
		out  []byte
		err  error
	}
	outcomes := make([]outcome, parts)
	var wg sync.WaitGroup
	for k := range parts {
		var chunk []*yaml.Node
		for i := k; i < len(docs); i += parts {
			chunk = append(chunk, docs[i])
			outcomes[k].want = append(outcomes[k].want, expectedMessages(t, docs[i]))
		}
		file := fmt.Sprintf("kyverno-test-part-%d.yaml", k+1)
		var buf bytes.Buffer
		enc := yaml.NewEncoder(&buf)
		for _, d := range chunk {
			if err := enc.Encode(d); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(folder, file), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func(o *outcome) {
			defer wg.Done()
			cmd := exec.Command(cli, "test", ".", "--file-name", file, "--remove-color", "--detailed-results", "-o", "json")
			cmd.Dir = folder
			o.out, o.err = cmd.CombinedOutput()
			if o.err == nil {
				o.got, o.err = detailedResults(o.out)
			}
		}(&outcomes[k])
	}
	wg.Wait()
	n, tests := 0, 0
	for _, o := range outcomes {
		if o.err != nil {
			t.Fatalf("%s test %s: %v\n%s", cli, dir, o.err, o.out)
		}
		if len(o.got) != len(o.want) {
			t.Fatalf("%s: %d Tests, kubectl-kyverno test reports %d\n%s", dir, len(o.want), len(o.got), o.out)
		}
		for i, rows := range o.got {
			tests++
			for _, r := range rows {
				n++
				w, ok := o.want[i][r.RESOURCE]
				switch {
				case !ok:
					t.Errorf("a result for %s, which its Test does not review", r.RESOURCE)
				case r.RESULT != "Pass":
					t.Errorf("%s: %s (Kyverno says %q; the case %q)", r.RESOURCE, r.RESULT, r.Message, w)
				case w != "" && r.Message != w:
					t.Errorf("%s: Kyverno says\n%q\nOME says\n%q", r.RESOURCE, r.Message, w)
				}
			}
		}
	}
	if n == 0 {
		t.Fatalf("%s: no result", dir)
	}
	t.Logf("%s: %d InferenceServices in %d Tests, as the cases say", kyvernoSelectionName, n, tests)
	return n
}

// expectedMessages reads a Test: each InferenceService's expected message
// (its result's comment when it fails, "" when it passes), by the
// resource name kubectl-kyverno test gives.
func expectedMessages(t *testing.T, doc *yaml.Node) map[string]string {
	t.Helper()
	var test struct {
		Results []struct {
			Resources []string `yaml:"resources"`
			Result    string   `yaml:"result"`
		} `yaml:"results"`
	}
	if err := doc.Decode(&test); err != nil {
		t.Fatal(err)
	}
	results := doc.Content[0]
	for i := 0; i+1 < len(results.Content); i += 2 {
		if results.Content[i].Value == "results" {
			results = results.Content[i+1]
			break
		}
	}
	m := map[string]string{}
	for i, r := range test.Results {
		msg := ""
		if r.Result == "fail" {
			msg = strings.TrimSpace(strings.TrimPrefix(results.Content[i].HeadComment, "#"))
		}
		m["ome.io/v1beta1/InferenceService/"+r.Resources[0]] = msg
	}
	return m
}

// detailedResults reads the JSON arrays, one per Test, that
// kubectl-kyverno test -o json --detailed-results prints between its
// progress lines.
func detailedResults(out []byte) ([][]struct{ Message, RESOURCE, RESULT string }, error) {
	var got [][]struct{ Message, RESOURCE, RESULT string }
	for rest := string(out); ; {
		i := strings.Index(rest, "\n[\n")
		if i < 0 {
			return got, nil
		}
		d := json.NewDecoder(strings.NewReader(rest[i+1:]))
		var rows []struct{ Message, RESOURCE, RESULT string }
		if err := d.Decode(&rows); err != nil {
			return nil, err
		}
		got = append(got, rows)
		rest = rest[i+1+int(d.InputOffset()):]
	}
}
