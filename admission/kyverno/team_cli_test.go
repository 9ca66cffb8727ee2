package kyverno

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ome-policy/evaluator/admission"
	"github.com/ome-policy/evaluator/admission/team"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/rules"
)

// TestKyvernoCLITeamPolicies runs Kyverno's own CLI (KYVERNO_CLI, as make
// kyverno-verify sets it) on the example team's ValidatingAdmissionPolicy
// as `evaluate kyverno --rules` writes it: kubectl-kyverno apply refuses
// exactly the runtimes that `evaluate lint --rules` finds against, each
// with the rule's message, byte for byte.
func TestKyvernoCLITeamPolicies(t *testing.T) {
	cli := os.Getenv("KYVERNO_CLI")
	if cli == "" {
		t.Skip("KYVERNO_CLI is not set: make kyverno-verify runs this with the kubectl-kyverno it builds")
	}
	set, err := rules.Load([]string{"../../examples/company-rules"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Kyverno's CLI holds the resources in a fake cluster: each name once.
	var resources []string
	var objs []*objects.Object
	seen := map[objects.Ref]bool{}
	for _, dir := range []string{"../../testdata/examples/runtimes", "../../testdata/lint/bad", "../../testdata/catalog/runtimes"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	file:
		for _, f := range files {
			in, err := objects.Load([]string{f}, objects.LoadOptions{Lenient: true})
			if err != nil {
				t.Fatal(err)
			}
			mine := map[objects.Ref]bool{}
			for _, o := range in {
				if seen[objects.RefOf(o)] || mine[objects.RefOf(o)] {
					continue file
				}
				mine[objects.RefOf(o)] = true
			}
			for ref := range mine {
				seen[ref] = true
			}
			resources = append(resources, f)
			objs = append(objs, in...)
		}
	}
	for _, r := range set.Rules {
		if r.Language != rules.CEL {
			continue
		}
		doc, err := team.Policy(r, team.TargetKyverno, true)
		if err != nil {
			t.Fatal(err)
		}
		policy := filepath.Join(t.TempDir(), r.ID+".yaml")
		if err := os.WriteFile(policy, teamPolicy(admission.TeamDoc{Rule: r, Policy: doc}, "v1.2.2", admission.Exemptions{}), 0o644); err != nil {
			t.Fatal(err)
		}
		want := map[string]string{}
		for _, o := range objs {
			fs, _ := set.Check(o)
			for _, f := range fs {
				if f.Rule == r.ID {
					want["default/"+o.Kind+"/"+o.Name] += f.Message + "\n"
				}
			}
		}
		if len(want) == 0 {
			t.Fatalf("%s finds nothing: the test would prove nothing", r.ID)
		}
		args := []string{"apply", policy, "--remove-color"}
		for _, f := range resources {
			args = append(args, "--resource", f)
		}
		out, err := exec.Command(cli, args...).CombinedOutput()
		if exit, ok := err.(*exec.ExitError); err != nil && (!ok || exit.ExitCode() != 1) {
			t.Fatalf("%s apply: %v\n%s", cli, err, out)
		}
		if !strings.Contains(string(out), "error: 0,") {
			t.Errorf("kubectl-kyverno apply gives errors:\n%s", out)
		}
		got := map[string]string{}
		for _, m := range kyvernoFailed.FindAllStringSubmatch(string(out), -1) {
			got[m[2]] += m[3] + "\n"
		}
		for k, w := range want {
			if got[k] != w {
				t.Errorf("%s %s: Kyverno says %q, evaluate lint --rules %q", r.ID, k, got[k], w)
			}
		}
		for k, g := range got {
			if _, ok := want[k]; !ok {
				t.Errorf("%s %s: Kyverno refuses it (%q); evaluate lint --rules does not", r.ID, k, g)
			}
		}
	}
}
