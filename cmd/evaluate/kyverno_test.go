package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

func runKyverno(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(append([]string{"kyverno"}, args...), strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// The committed Kyverno bundle is what evaluate kyverno writes, with the
// inputs the binary carries (as make bundles runs it) and with the
// clone's files.
func TestKyvernoCheckIsCurrent(t *testing.T) {
	for _, inputs := range [][]string{nil, gatekeeperInputs} {
		code, out, errOut := runKyverno(t, append([]string{"--check", "--out", "../../policies/kyverno"}, inputs...)...)
		if code != exitOK || !strings.Contains(out, "all current") {
			t.Fatalf("%v: exit %d\n%s%s", inputs, code, out, errOut)
		}
	}
}

// --check reports an edited file and a stray one in a policy's folder with
// exit 1; generating again repairs both, and leaves the user's files
// beside the bundle alone.
func TestKyvernoWritesAndChecks(t *testing.T) {
	dir := t.TempDir()
	args := append([]string{"--out", dir}, gatekeeperInputs...)
	if code, out, errOut := runKyverno(t, args...); code != exitOK || !strings.Contains(out, "written") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	for _, p := range []string{"kustomization.yaml", "rbac.yaml",
		"ome-version-lint-error/ome-version-lint-error.yaml", "ome-version-lint-error/.kyverno-test/kyverno-test.yaml",
		"ome-version-lint-error/.kyverno-test/resources.yaml", "ome-version-lint-error/.kyverno-test/inferenceservices.yaml",
		"ome-version-lint-warning/ome-version-lint-warning.yaml", "ome-version-lint-warning/.kyverno-test/kyverno-test.yaml"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Error(err)
		}
	}
	policy := filepath.Join(dir, "ome-version-lint-error", "ome-version-lint-error.yaml")
	stray := filepath.Join(dir, "ome-version-lint-warning", ".kyverno-test", "resources-9.yaml")
	mine := filepath.Join(dir, "mine.yaml")
	for _, f := range []string{policy, stray, mine} {
		if err := os.WriteFile(f, []byte("edited\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errOut := runKyverno(t, append([]string{"--check"}, args...)...)
	if code != exitFindings || !strings.Contains(out, "stale: "+policy) || !strings.Contains(out, "not generated: "+stray) ||
		strings.Contains(out, mine) || !strings.Contains(errOut, "run evaluate kyverno without --check") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := runKyverno(t, args...); code != exitOK || !strings.Contains(out, "1 written, 1 removed") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	if _, err := os.Stat(mine); err != nil {
		t.Errorf("a file of the user's beside the bundle went: %v", err)
	}
}

// evaluate kyverno --ome-version R, run in an empty folder, makes the
// bundle a clone makes for each release, naming the release in the
// policies and the RBAC; an older release needs --out.
func TestKyvernoOutsideAClone(t *testing.T) {
	for _, r := range []string{"v1.2.2", "v0.1.5", "v0.1.4"} {
		t.Run(r, func(t *testing.T) {
			clone := filepath.Join(t.TempDir(), "kyverno")
			if code, out, errOut := runKyverno(t, append([]string{"--ome-version", r, "--out", clone}, gatekeeperInputs...)...); code != exitOK {
				t.Fatalf("exit %d\n%s%s", code, out, errOut)
			}
			empty := t.TempDir()
			t.Chdir(empty)
			code, out, errOut := runKyverno(t, "--ome-version", r, "--out", "ky")
			if code != exitOK || errOut != "" {
				t.Fatalf("exit %d\n%s%s", code, out, errOut)
			}
			sameTree(t, filepath.Join(empty, "ky"), clone)
			release := "ome.io/release: " + r + "\n"
			for f, n := range map[string]int{
				"ky/ome-version-lint-error/ome-version-lint-error.yaml":     1,
				"ky/ome-version-lint-warning/ome-version-lint-warning.yaml": 1,
				"ky/ome-runtime-selection/ome-runtime-selection.yaml":       1,
				"ky/rbac.yaml": 2,
			} {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				if got := strings.Count(string(b), release); got != n {
					t.Errorf("%s names its release %d times, want %d (%q)", f, got, n, release)
				}
				// The words of the description, whatever lines YAML folds it into.
				words := strings.Join(strings.Fields(string(b)), " ")
				if n == 1 && !strings.Contains(words, "as OME "+r+" reads them") && !strings.Contains(words, "evaluate select --ome-version "+r) {
					t.Errorf("%s: the description does not name OME %s", f, r)
				}
			}
			if r != "v1.2.2" {
				if code, _, errOut := runKyverno(t, "--ome-version", r); code != exitBadInput || !strings.Contains(errOut, "give --out") {
					t.Errorf("without --out: exit %d, want %d\n%s", code, exitBadInput, errOut)
				}
			}
		})
	}
}

// Without lint objects and cases (--lint= --cases=), the three policies,
// RBAC and kustomization alone: no Test to run.
func TestKyvernoWithoutInputs(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runKyverno(t, "--out", dir, "--lint=", "--cases=")
	if code != exitOK || !strings.Contains(out, dir+": 5 files, 5 written") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	for _, p := range []string{"ome-version-lint-error", "ome-runtime-selection"} {
		if _, err := os.Stat(filepath.Join(dir, p, ".kyverno-test")); err == nil {
			t.Errorf("%s: a .kyverno-test folder without objects to test", p)
		}
	}
}

// evaluate kyverno -f writes the selection policy's Tests of a team's own
// objects: each InferenceService expected as evaluate select decides it,
// OME's message in the comment of a failing one. With KYVERNO_CLI (make
// kyverno-verify), Kyverno's own CLI passes every Test.
func TestKyvernoTestsFromObjects(t *testing.T) {
	dir := t.TempDir()
	objs := at("testdata/examples/upgrade")
	if code, out, errOut := runKyverno(t, "-f", objs, "--out", dir); code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	tests, err := os.ReadFile(filepath.Join(dir, "ome-runtime-selection", ".kyverno-test", "kyverno-test.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	sel := evaluate(t, time.Minute, "", "select", "-o", "json", objs)
	var doc struct {
		Decisions []struct {
			InferenceService struct{ Namespace, Name string } `json:"inferenceService"`
			Admitted         bool
			Message          string
		} `json:"decisions"`
	}
	if err := json.Unmarshal([]byte(sel.stdout), &doc); err != nil {
		t.Fatalf("%v\n%s", err, sel.stdout)
	}
	results := map[string]string{} // by InferenceService, pass or fail
	dec := yaml.NewDecoder(bytes.NewReader(tests))
	for {
		var test struct {
			Results []struct {
				Resources []string
				Result    string
			}
		}
		if err := dec.Decode(&test); err != nil {
			break
		}
		for _, r := range test.Results {
			results[strings.Join(r.Resources, ",")] = r.Result
		}
	}
	fails := 0
	for _, d := range doc.Decisions {
		ref := d.InferenceService.Namespace + "/" + d.InferenceService.Name
		want := map[bool]string{true: "pass", false: "fail"}[d.Admitted]
		if results[ref] != want {
			t.Errorf("%s: the Tests expect %q, evaluate select says %s", ref, results[ref], want)
		}
		if !d.Admitted {
			fails++
			if !strings.Contains(string(tests), "# "+d.Message+"\n") {
				t.Errorf("%s: the failing result does not say OME's message %q", ref, d.Message)
			}
		}
	}
	if fails == 0 || fails == len(doc.Decisions) || len(results) != len(doc.Decisions) {
		t.Fatalf("%d of %d refused by evaluate select; the Tests hold %d results", fails, len(doc.Decisions), len(results))
	}
	if code, _, errOut := runKyverno(t, "-f", at("testdata/examples/models"), "--out", t.TempDir()); code != exitBadInput || !strings.Contains(errOut, "no InferenceServices in") {
		t.Errorf("objects without InferenceServices: exit %d\n%s", code, errOut)
	}
	cli := os.Getenv("KYVERNO_CLI")
	if cli == "" {
		t.Skip("KYVERNO_CLI is not set: the Tests are not run on Kyverno's CLI (make kyverno-verify runs them)")
	}
	out, err := exec.Command(cli, "test", "--remove-color", filepath.Join(dir, "ome-runtime-selection")).CombinedOutput()
	if err != nil || !strings.Contains(string(out), fmt.Sprintf("Test Summary: %d tests passed and 0 tests failed", len(doc.Decisions))) {
		t.Fatalf("kubectl-kyverno test: %v\n%s", err, out)
	}
}
