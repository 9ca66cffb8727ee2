package main

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// The flags that point evaluate gatekeeper at the clone's files, from this
// package's folder: what it reads without them, from the binary.
var gatekeeperInputs = []string{
	"--cases", "../../testdata/cases/spec-selection.yaml,../../testdata/cases/webhook-checks.yaml,../../testdata/cases/gatekeeper-selection.yaml,../../testdata/cases/namespaces.yaml,../../testdata/cases/release-v0.1.4.yaml,../../testdata/cases/release-v1.2.2.yaml",
	"--lint", "../../testdata/lint/bad,../../testdata/lint/clean,../../testdata/lint/v0.1.4,../../testdata/gatekeeper/lint-objects.yaml",
}

func runGatekeeper(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(append([]string{"gatekeeper"}, args...), strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestGatekeeperCheckIsCurrent(t *testing.T) {
	// With the inputs the binary carries, as make bundles runs it, and
	// with the clone's files.
	for _, inputs := range [][]string{nil, gatekeeperInputs} {
		code, out, errOut := runGatekeeper(t, append([]string{"--check", "--out", "../../policies/gatekeeper", "--native-out", "../../policies/kubernetes"}, inputs...)...)
		if code != exitOK {
			t.Fatalf("%v: exit %d\n%s%s", inputs, code, out, errOut)
		}
	}
	code, out, errOut := runGatekeeper(t, "suite", "--check", "--out", "../../testdata/gatekeeper/sample-selection",
		"--templates", "../../policies/gatekeeper", "../../testdata/cases/sample-selection.yaml")
	if code != exitOK {
		t.Fatalf("suite: exit %d\n%s%s", code, out, errOut)
	}
}

func TestGatekeeperWritesAndChecks(t *testing.T) {
	dir := t.TempDir()
	args := append([]string{"--out", dir, "--native-out", filepath.Join(dir, "kubernetes")}, gatekeeperInputs...)
	if code, out, errOut := runGatekeeper(t, args...); code != exitOK || !strings.Contains(out, "written") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	for _, p := range []string{"sync.yaml", "omeruntimeselection/template.yaml", "omeruntimeselection/suite.yaml",
		"omeruntimeselection/samples/default/constraint.yaml", "omeversionlint/template.yaml",
		"omeversionlint/samples/deny-errors/constraint.yaml", "omeversionlint/samples/warn-warnings/constraint.yaml",
		"kubernetes/ome-version-lint.yaml"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Error(err)
		}
	}
	// An edited file and a stray one are reported, and the exit code is 1.
	tpl := filepath.Join(dir, "omeruntimeselection", "template.yaml")
	if err := os.WriteFile(tpl, []byte("edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A sample no case makes any more: its object and its folder go.
	strayDir := filepath.Join(dir, "omeversionlint", "samples", "deny-errors", "999-gone")
	if err := os.MkdirAll(strayDir, 0o755); err != nil {
		t.Fatal(err)
	}
	stray := filepath.Join(strayDir, "object.yaml")
	if err := os.WriteFile(stray, []byte("x: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := runGatekeeper(t, append([]string{"--check"}, args...)...)
	if code != exitFindings || !strings.Contains(out, "stale: "+tpl) || !strings.Contains(out, "not generated: "+stray) {
		t.Fatalf("exit %d\n%s", code, out)
	}
	// Generating again repairs both.
	if code, out, errOut := runGatekeeper(t, args...); code != exitOK || !strings.Contains(out, "1 written, 1 removed") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	if _, err := os.Stat(strayDir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the emptied sample folder is left: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "omeversionlint", "samples", "deny-errors")); err != nil {
		t.Errorf("the folder of the other samples went too: %v", err)
	}
}

func TestGatekeeperSuiteNeedsCases(t *testing.T) {
	if code, _, errOut := runGatekeeper(t, "suite", "-o", t.TempDir()); code != exitBadInput {
		t.Fatalf("exit %d, want %d\n%s", code, exitBadInput, errOut)
	}
	if code, _, errOut := runGatekeeper(t, "suite", "-o", t.TempDir(), "../../testdata/cases/nope.yaml"); code != exitBadInput || !strings.Contains(errOut, "nope.yaml") {
		t.Fatalf("exit %d, want %d\n%s", code, exitBadInput, errOut)
	}
}

// readTree reads every file under dir, by slash-separated path relative
// to it.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// sameTree fails when the trees under got and want differ: a file missing,
// one too many, or other content.
func sameTree(t *testing.T, got, want string) {
	t.Helper()
	g, w := readTree(t, got), readTree(t, want)
	if len(w) == 0 {
		t.Fatalf("%s is empty", want)
	}
	for p, text := range w {
		if have, ok := g[p]; !ok {
			t.Errorf("%s: missing (it is in %s)", filepath.Join(got, p), want)
		} else if have != text {
			t.Errorf("%s differs from %s", filepath.Join(got, p), filepath.Join(want, p))
		}
	}
	for p := range g {
		if _, ok := w[p]; !ok {
			t.Errorf("%s: not in %s", filepath.Join(got, p), want)
		}
	}
}

// cloneBundles are the bundles a clone makes of each release, from its
// files (gatekeeperInputs), made once: the gatekeeper and the kubernetes
// folder.
var cloneBundles = map[string][2]string{}

func cloneBundle(t *testing.T, release string) (gk, native string) {
	t.Helper()
	if b, ok := cloneBundles[release]; ok {
		return b[0], b[1]
	}
	dir, err := os.MkdirTemp("", "evaluate-gatekeeper-"+release+"-")
	if err != nil {
		t.Fatal(err)
	}
	gk, native = filepath.Join(dir, "gatekeeper"), filepath.Join(dir, "kubernetes")
	args := append([]string{"--ome-version", release, "--out", gk, "--native-out", native}, gatekeeperInputs...)
	if code, out, errOut := runGatekeeper(t, args...); code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	cloneBundles[release] = [2]string{gk, native}
	return gk, native
}

func TestMain(m *testing.M) {
	runAsChild() // a child of evaluateProcess runs evaluate, and exits
	code := m.Run()
	for _, b := range cloneBundles {
		os.RemoveAll(filepath.Dir(b[0]))
	}
	os.Exit(code)
}

// evaluate gatekeeper --ome-version R, run in an empty folder, makes for
// each release the bundle a clone makes (every file, the same bytes; for
// the newest, TestGatekeeperCheckIsCurrent holds it to the committed one),
// and each names its release in its
// metadata and descriptions, which say only what that release's webhook
// checks.
func TestGatekeeperOutsideAClone(t *testing.T) {
	for _, r := range []string{"v1.2.2", "v0.1.5", "v0.1.4"} {
		t.Run(r, func(t *testing.T) {
			wantGK, wantNative := cloneBundle(t, r)
			empty := t.TempDir()
			t.Chdir(empty)
			code, out, errOut := runGatekeeper(t, "--ome-version", r, "--out", "gk", "--native-out", "k8s")
			if code != exitOK || errOut != "" {
				t.Fatalf("exit %d\n%s%s", code, out, errOut)
			}
			sameTree(t, filepath.Join(empty, "gk"), wantGK)
			sameTree(t, filepath.Join(empty, "k8s"), wantNative)

			release := "ome.io/release: " + r + "\n"
			for _, f := range []string{"gk/omeruntimeselection/template.yaml", "gk/omeversionlint/template.yaml",
				"gk/omeruntimeselection/samples/default/constraint.yaml", "gk/omeversionlint/samples/deny-errors/constraint.yaml"} {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(string(b), release) {
					t.Errorf("%s does not name its release (%q)", f, release)
				}
			}
			vap, err := os.ReadFile("k8s/ome-version-lint.yaml")
			if err != nil {
				t.Fatal(err)
			}
			// Two policies and their bindings.
			if n := strings.Count(string(vap), release); n != 4 {
				t.Errorf("k8s/ome-version-lint.yaml names its release %d times, want 4", n)
			}
			tpl, err := os.ReadFile("gk/omeruntimeselection/template.yaml")
			if err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Metadata struct {
					Annotations map[string]string `yaml:"annotations"`
				} `yaml:"metadata"`
			}
			if err := yaml.Unmarshal(tpl, &doc); err != nil {
				t.Fatal(err)
			}
			desc := doc.Metadata.Annotations["description"]
			// What only some releases check (docs/ome-releases.md).
			for _, c := range []struct {
				phrase string
				in     []string
			}{
				{"the model it names exists", []string{"v1.2.2", "v0.1.5"}},
				{"spec.runtime.revision", []string{"v1.2.2"}},
				{"deployment mode", []string{"v1.2.2"}},
				{"keda is refused", []string{"v0.1.4"}},
				{"OME " + r + "'s admission webhook", []string{r}},
			} {
				if got, want := strings.Contains(desc, c.phrase), slices.Contains(c.in, r); got != want {
					t.Errorf("the description names %q: %v, want %v\n%s", c.phrase, got, want, desc)
				}
			}
		})
	}
}

// A file given to --cases or --lint that is not there: exit 2, and the
// error names the flag and the file.
func TestGatekeeperInputFlagErrors(t *testing.T) {
	for _, flag := range []string{"--cases", "--lint"} {
		t.Run(flag, func(t *testing.T) {
			dir := t.TempDir()
			code, out, errOut := runGatekeeper(t, "--ome-version", "v0.1.4", "--out", dir, "--native-out", "", flag, "nope.yaml")
			if code != exitBadInput || !strings.Contains(errOut, flag+": ") || !strings.Contains(errOut, "nope.yaml") {
				t.Fatalf("exit %d, want %d, and an error that names %s and nope.yaml\n%s%s", code, exitBadInput, flag, out, errOut)
			}
		})
	}
}

// checkGatekeeperBinary runs the built binary bin in an empty folder for
// each release (as an evaluate installed with go install runs), and
// compares its bundles with a clone's.
func checkGatekeeperBinary(t *testing.T, bin string) {
	for _, r := range []string{"v1.2.2", "v0.1.5", "v0.1.4"} {
		t.Run(r, func(t *testing.T) {
			empty := t.TempDir()
			cmd := exec.Command(bin, "gatekeeper", "--ome-version", r, "--out", "gk", "--native-out", "k8s")
			cmd.Dir = empty
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			gk, native := cloneBundle(t, r)
			sameTree(t, filepath.Join(empty, "gk"), gk)
			sameTree(t, filepath.Join(empty, "k8s"), native)
		})
	}
}
