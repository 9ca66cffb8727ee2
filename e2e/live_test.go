package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/ome-policy/evaluator/e2e/cluster"
)

// testLiveInput creates the examples in the cluster and checks that
// `evaluate match|select|lint|explain --kubeconfig` read them as the
// files of the same objects read back from the API server.
func testLiveInput(t *testing.T) {
	withAction(t, selectionConstraint(t), "dryrun", waitSelectionEnforced)
	waitAdmitted(t, selectionProbe("ome-e2e-probe"))
	read, err := cluster.ReadObjects(filepath.Join(repo, "testdata", "examples"))
	if err != nil {
		t.Fatal(err)
	}
	var objs, isvcs []*unstructured.Unstructured
	for _, o := range read {
		switch {
		case !isOME(o):
		case o.GetKind() == "InferenceService":
			isvcs = append(isvcs, o)
		default:
			objs = append(objs, o)
		}
	}
	stored := applyAndReadBack(t, objs)
	storedIsvcs := applyAndReadBack(t, isvcs)
	t.Cleanup(func() { deleteAll(t, append(storedIsvcs, stored...)) })

	// The files hold the objects in the order the API server lists them:
	// resource by resource, each by namespace and name.
	order := map[string]int{"BaseModel": 0, "ClusterBaseModel": 1, "ServingRuntime": 2, "ClusterServingRuntime": 3, "InferenceService": 4}
	byAPI := func(objs []*unstructured.Unstructured) {
		sort.SliceStable(objs, func(i, j int) bool {
			a, b := objs[i], objs[j]
			if order[a.GetKind()] != order[b.GetKind()] {
				return order[a.GetKind()] < order[b.GetKind()]
			}
			if a.GetNamespace() != b.GetNamespace() {
				return a.GetNamespace() < b.GetNamespace()
			}
			return a.GetName() < b.GetName()
		})
	}
	byAPI(stored)
	byAPI(storedIsvcs)
	dir := t.TempDir()
	var models, runtimes []*unstructured.Unstructured
	for _, o := range stored {
		if strings.HasSuffix(o.GetKind(), "BaseModel") {
			models = append(models, o)
		} else {
			runtimes = append(runtimes, o)
		}
	}
	mf := writeObjects(t, dir, "models.json", models...)
	rf := writeObjects(t, dir, "runtimes.json", runtimes...)
	all := writeObjects(t, dir, "all.json", append(append([]*unstructured.Unstructured{}, stored...), storedIsvcs...)...)
	kc := state.Kubeconfig
	ns := "llama-demo"
	// -n reads the InferenceServices of ns, with the models and runtimes
	// that OME would look at for them.
	var nsIsvcs []*unstructured.Unstructured
	for _, o := range storedIsvcs {
		if o.GetNamespace() == ns {
			nsIsvcs = append(nsIsvcs, o)
		}
	}
	if len(nsIsvcs) == 0 || len(nsIsvcs) == len(storedIsvcs) {
		t.Fatalf("testdata/examples: %d of %d InferenceServices in %s; the check wants some in another namespace too", len(nsIsvcs), len(storedIsvcs), ns)
	}
	inNS := writeObjects(t, dir, "in-namespace.json", append(append([]*unstructured.Unstructured{}, stored...), nsIsvcs...)...)

	same := func(what string, live, files []string) {
		t.Helper()
		lo, le, lc := run(t, live...)
		fo, fe, fc := run(t, files...)
		if lc != fc || lo != fo {
			t.Errorf("%s: evaluate %s (exit %d) differs from evaluate %s (exit %d)\n--- cluster:\n%s%s\n--- files:\n%s%s",
				what, strings.Join(live, " "), lc, strings.Join(files, " "), fc, lo, le, fo, fe)
		} else {
			t.Logf("%s: evaluate %s gives what the files give (exit %d, %d bytes)", what, strings.Join(live, " "), lc, len(lo))
		}
	}
	same("select", []string{"select", "--kubeconfig", kc, "-n", ns, "-o", "json"}, []string{"select", "-f", inNS, "-o", "json"})
	same("select -A", []string{"select", "--kubeconfig", kc, "-A", "-o", "json"}, []string{"select", "-f", all, "-o", "json"})
	same("match", []string{"match", "--kubeconfig", kc, "-n", ns, "-o", "json", "--engine", "both"}, []string{"match", "-m", mf, "-r", rf, "-o", "json", "--engine", "both"})
	same("explain", []string{"explain", "--kubeconfig", kc, "-n", ns, "--model-name", "llama-3-2-3b-instruct", "--runtime-name", "vllm-llama-3-2-3b-instruct", "-o", "json"},
		[]string{"explain", "-m", mf, "-r", rf, "--model-name", "llama-3-2-3b-instruct", "--runtime-name", "vllm-llama-3-2-3b-instruct", "-o", "json"})

	// lint names where each finding is: compare the findings without it.
	findings := func(args ...string) []string {
		out, errOut, code := run(t, args...)
		if code > 1 {
			t.Fatalf("evaluate %s: exit %d: %s", strings.Join(args, " "), code, errOut)
		}
		var res struct {
			Findings []struct {
				Rule, Severity, Field, Message string
				Object                         struct{ Kind, Namespace, Name string }
			}
		}
		mustJSON(t, []byte(out), &res)
		var fs []string
		for _, f := range res.Findings {
			fs = append(fs, fmt.Sprintf("%s/%s/%s %s %s %s: %s", f.Object.Kind, f.Object.Namespace, f.Object.Name, f.Severity, f.Rule, f.Field, f.Message))
		}
		// Findings come in file order, and the cluster's objects are in
		// one list per resource: compare them as sets.
		sort.Strings(fs)
		return fs
	}
	lf := findings("lint", "--kubeconfig", kc, "-n", ns, "-o", "json")
	ff := findings("lint", "-o", "json", mf, rf)
	if strings.Join(lf, "\n") != strings.Join(ff, "\n") {
		t.Errorf("lint --kubeconfig:\n  %s\nlint on the files:\n  %s", strings.Join(lf, "\n  "), strings.Join(ff, "\n  "))
	} else {
		t.Logf("lint: evaluate lint --kubeconfig gives the %d findings of the files", len(lf))
	}

	// Bad connections: exit 2 and one line.
	bad := func(what, kubeconfig, want string) {
		t.Helper()
		path := filepath.Join(dir, strings.ReplaceAll(what, " ", "-")+".kubeconfig")
		if err := os.WriteFile(path, []byte(kubeconfig), 0o600); err != nil {
			t.Fatal(err)
		}
		_, errOut, code := run(t, "select", "--kubeconfig", path, "-A")
		if code != 2 || strings.Count(strings.TrimSpace(errOut), "\n") != 0 || !strings.Contains(errOut, want) {
			t.Errorf("%s: want exit 2 and one line with %q, got exit %d:\n%s", what, want, code, errOut)
		} else {
			t.Logf("%s: exit 2: %s", what, strings.TrimSpace(errOut))
		}
	}
	config, err := os.ReadFile(kc)
	if err != nil {
		t.Fatal(err)
	}
	closed := strings.Replace(string(config), state.APIServer, "https://127.0.0.1:1", 1)
	bad("unreachable", closed, `cannot reach the cluster of context "ome-local" at https://127.0.0.1:1`)
	wrongUser := strings.Replace(string(config), "users:\n- name: admin\n  user:\n", "users:\n- name: admin\n  user:\n    token: not-a-token\n", 1)
	wrongUser = dropClientCert(wrongUser)
	bad("refused credentials", wrongUser, `the cluster of context "ome-local" refused the credentials of user "admin" (401 Unauthorized) listing basemodels.ome.io in every namespace: they are wrong or expired; renew them, then check with: kubectl auth can-i list basemodels.ome.io -A --context ome-local`)
}

// dropClientCert removes the client certificate and key of a kubeconfig.
func dropClientCert(config string) string {
	var out []string
	for _, line := range strings.Split(config, "\n") {
		if strings.Contains(line, "client-certificate-data:") || strings.Contains(line, "client-key-data:") {
			continue
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// testNoOMECRDs removes OME's CRDs (the last step: the cluster is stopped
// after it) and checks that reading the cluster is then one clear error.
func testNoOMECRDs(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(repo, "testdata", "ome-crds", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("OME's CRDs: %v", err)
	}
	objs, err := cluster.ReadObjects(files...)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		if err := kube.Delete(ctxT(t), o); err != nil {
			t.Fatal(err)
		}
	}
	err = eventually(60*time.Second, func() error {
		_, errOut, code := run(t, "select", "--kubeconfig", state.Kubeconfig, "-A")
		want := `evaluate: the cluster of context "ome-local" has no OME CRDs (the server doesn't have a resource type "basemodels" in ome.io/v1beta1): OME is not installed in that cluster; install OME, or choose another cluster with --context`
		if code != 2 || strings.TrimSpace(errOut) != want {
			return fmt.Errorf("without OME's CRDs: want exit 2 and %q, got exit %d: %s", want, code, errOut)
		}
		return nil
	})
	if err != nil {
		t.Error(err)
	} else {
		t.Log("without OME's CRDs: exit 2, one line")
	}
}
