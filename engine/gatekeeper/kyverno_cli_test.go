package gatekeeper

import (
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/ome-policy/evaluator/engine/policyset"
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
// test, which make kyverno-verify also runs, checks verdicts only.)
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
			set, err := all.ForRelease(r)
			if err != nil {
				t.Fatal(err)
			}
			opts := projectOptions(t, set)
			b, err := GenerateKyverno(opts)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			if err := b.Write(dir, b.Paths(), nil); err != nil {
				t.Fatal(err)
			}
			for _, s := range KyvernoSeverities {
				policy := "ome-version-lint-" + s.Severity
				want := map[string]string{}
				for _, l := range opts.Lint {
					if msgs := LintViolations(l.Findings, l.Object, s.Severity); len(msgs) > 0 {
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
		})
	}
}
