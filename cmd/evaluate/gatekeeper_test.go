package main

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The flags that point evaluate gatekeeper at the repository from this
// package's folder.
var gatekeeperInputs = []string{
	"--cases", "../../testdata/cases/spec-selection.yaml,../../testdata/cases/webhook-checks.yaml,../../testdata/cases/gatekeeper-selection.yaml,../../testdata/cases/namespaces.yaml",
	"--lint", "../../testdata/lint/bad,../../testdata/lint/clean,../../testdata/lint/v0.1.4,../../testdata/gatekeeper/lint-objects.yaml",
}

func runGatekeeper(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(append([]string{"gatekeeper"}, args...), strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestGatekeeperCheckIsCurrent(t *testing.T) {
	code, out, errOut := runGatekeeper(t, append([]string{"--check", "--out", "../../policies/gatekeeper", "--native-out", "../../policies/kubernetes"}, gatekeeperInputs...)...)
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runGatekeeper(t, "suite", "--check", "--out", "../../testdata/gatekeeper/sample-selection",
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
