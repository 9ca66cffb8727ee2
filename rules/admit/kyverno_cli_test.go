package admit

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/ome-policy/evaluator/admission"
	"github.com/ome-policy/evaluator/input"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/rules"
)

// teamRuleSets are the team's rules that Kyverno's CLI is run on, with
// the files of their objects: the example team's, on the example
// runtimes, the lint fixtures and OME's catalog; and each CEL rule form
// of testdata/rules/corpus, on its objects.
func teamRuleSets(t *testing.T) map[string][]string {
	t.Helper()
	sets := map[string][]string{}
	for _, dir := range []string{"../../testdata/examples/runtimes", "../../testdata/lint/bad", "../../testdata/catalog/runtimes"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
		sets["../../examples/company-rules"] = append(sets["../../examples/company-rules"], files...)
	}
	corpus, _ := filepath.Glob("../../testdata/rules/corpus/cel-*")
	if len(corpus) == 0 {
		t.Fatal("no CEL rule form in testdata/rules/corpus")
	}
	for _, dir := range corpus {
		sets[filepath.Join(dir, "rules")] = []string{filepath.Join(dir, "objects.yaml")}
	}
	return sets
}

// TestKyvernoCLITeamPolicies runs Kyverno's own CLI (KYVERNO_CLI, as make
// kyverno-verify sets it) on a team's ValidatingAdmissionPolicies as
// `evaluate kyverno --rules` writes them (a policy a validation):
// kubectl-kyverno apply refuses exactly the objects that `evaluate lint
// --rules` finds against, each with the rule's messages, byte for byte.
func TestKyvernoCLITeamPolicies(t *testing.T) {
	cli := os.Getenv("KYVERNO_CLI")
	if cli == "" {
		t.Skip("KYVERNO_CLI is not set: make kyverno-verify runs this with the kubectl-kyverno it builds")
	}
	for rulesDir, files := range teamRuleSets(t) {
		set, err := rules.Load([]string{rulesDir}, nil)
		if err != nil {
			t.Fatal(err)
		}
		// Kyverno's CLI holds the resources in a fake cluster: each name once.
		var resources []string
		var objs []*objects.Object
		seen := map[objects.Ref]bool{}
	file:
		for _, f := range files {
			in, err := input.Load([]string{f}, input.LoadOptions{Lenient: true})
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
		for _, r := range set.Rules {
			if r.Language != rules.CEL {
				continue
			}
			doc, err := Policy(r, TargetKyverno, true)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			args := []string{"apply"}
			for _, d := range KyvernoDocs(r, doc) {
				policy := filepath.Join(dir, d.Name+".yaml")
				if err := os.WriteFile(policy, kyvernoPolicy(d, "v1.2.2", admission.Exemptions{}), 0o644); err != nil {
					t.Fatal(err)
				}
				args = append(args, policy)
			}
			want := map[string][]string{}
			for _, o := range objs {
				fs, _ := set.Check(o)
				for _, f := range fs {
					if f.Rule == r.ID {
						want[kyvernoRef(o)] = append(want[kyvernoRef(o)], f.Message)
					}
				}
			}
			if len(want) == 0 {
				t.Fatalf("%s finds nothing: the test would prove nothing", r.ID)
			}
			args = append(args, "--remove-color")
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
			got := map[string][]string{}
			for _, m := range kyvernoFailed.FindAllStringSubmatch(string(out), -1) {
				got[m[2]] = append(got[m[2]], m[3])
			}
			for k, w := range want {
				sort.Strings(w)
				sort.Strings(got[k])
				if strings.Join(got[k], "\n") != strings.Join(w, "\n") {
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
}

// kyvernoRef is how kubectl-kyverno apply names o: namespace/Kind/name,
// default for a cluster-scoped one.
func kyvernoRef(o *objects.Object) string {
	ns := o.Namespace
	if ns == "" {
		ns = "default"
	}
	return ns + "/" + o.Kind + "/" + o.Name
}

// kyvernoFailed is a refusal as kubectl-kyverno apply prints it: the policy,
// the resource and the message.
var kyvernoFailed = regexp.MustCompile(`(?m)^policy (\S+) -> resource (\S+) failed:\n1 -  (.*)$`)
