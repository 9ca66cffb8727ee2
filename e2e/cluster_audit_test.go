package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/ome-policy/evaluator/e2e/cluster"
)

// The namespaces of the in-cluster audit: the one deploy/audit installs
// into, and two of OME's objects.
const (
	auditDeployNS = "evaluate-audit"
	auditNSA      = "ome-e2e-audit-a"
	auditNSB      = "ome-e2e-audit-b"
)

var (
	policyReports        = schema.GroupVersionResource{Group: "wgpolicyk8s.io", Version: "v1alpha2", Resource: "policyreports"}
	clusterPolicyReports = schema.GroupVersionResource{Group: "wgpolicyk8s.io", Version: "v1alpha2", Resource: "clusterpolicyreports"}
)

// testClusterAudit installs deploy/audit (its ServiceAccount, ClusterRole,
// binding and CronJob, which the API server takes; no kubelet runs it
// here) and runs `evaluate audit` as that ServiceAccount, with a token of
// it and exactly that ClusterRole's rights, as the CronJob's pod would:
// the reports are written; a second run, after the objects changed,
// replaces them and deletes the stale one, leaving another tool's report;
// with one right of the role removed, the run fails with a 403 that names
// the right.
func testClusterAudit(t *testing.T) {
	deploy, err := cluster.Kustomize(filepath.Join(repo, "deploy", "audit"))
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	var role *unstructured.Unstructured
	for _, o := range deploy {
		kinds[o.GetKind()]++
		if o.GetKind() == "ClusterRole" {
			role = o
		}
	}
	if fmt.Sprint(kinds) != "map[ClusterRole:1 ClusterRoleBinding:1 CronJob:1 Namespace:1 ServiceAccount:1]" || role == nil {
		t.Fatalf("deploy/audit: %v", kinds)
	}
	applyCRDs(t, filepath.Join(repo, "testdata", "policyreport"), 2)
	for _, o := range deploy {
		if _, err := kube.Apply(ctxT(t), o); err != nil {
			t.Fatalf("deploy/audit: %s %s: %v", o.GetKind(), o.GetName(), err)
		}
	}
	t.Cleanup(func() {
		for _, o := range deploy {
			if o.GetKind() != "Namespace" { // no controller manager finalises one
				if err := kube.Delete(ctxT(t), o); err != nil && !apierrors.IsNotFound(err) {
					t.Error(err)
				}
			}
		}
		deleteReports(t)
	})

	// OME's objects: a model in each namespace, a runtime, and an
	// InferenceService of the first namespace's model.
	examples, err := cluster.ReadObjects(
		filepath.Join(repo, "testdata", "examples", "models", "llama-3-2-3b-instruct.yaml"),
		filepath.Join(repo, "testdata", "examples", "runtimes", "vllm-llama-3-2-3b-instruct.yaml"),
		filepath.Join(repo, "testdata", "examples", "select", "inferenceservices.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var objs []*unstructured.Unstructured
	var runtime, modelB, isvc *unstructured.Unstructured
	for _, o := range examples {
		switch {
		case o.GetKind() == "BaseModel":
			a, b := o.DeepCopy(), o.DeepCopy()
			a.SetNamespace(auditNSA)
			b.SetNamespace(auditNSB)
			modelB = b
			objs = append(objs, a, b)
		case o.GetKind() == "ClusterServingRuntime":
			runtime = o
			objs = append(objs, o)
		case o.GetKind() == "InferenceService" && o.GetName() == "llama-chat":
			o.SetNamespace(auditNSA)
			isvc = o
		}
	}
	objs = applyAndReadBack(t, objs)
	t.Cleanup(func() { deleteAll(t, objs) })
	// The InferenceService once Gatekeeper's inventory holds its model.
	if err := eventually(60*time.Second, func() error { _, err := kube.Apply(ctxT(t), isvc); return err }); err != nil {
		t.Fatalf("the InferenceService: %v", err)
	}
	t.Cleanup(func() { deleteAll(t, []*unstructured.Unstructured{isvc}) })
	// Another tool's report, which audit never touches.
	other := obj("wgpolicyk8s.io/v1alpha2", "PolicyReport", auditNSB, "kyverno-polr", map[string]any{
		"results": []any{}, "summary": map[string]any{"pass": int64(0)}})
	other.SetLabels(map[string]string{"app.kubernetes.io/managed-by": "kyverno"})
	if err := eventually(30*time.Second, func() error { _, err := kube.Apply(ctxT(t), other); return err }); err != nil {
		t.Fatal(err)
	}

	kc := serviceAccountKubeconfig(t, "evaluate-audit")
	stdout, stderr, code := run(t, "audit", "--kubeconfig", kc)
	if code != 0 {
		t.Fatalf("evaluate audit as the ServiceAccount: exit %d\n%s%s", code, stdout, stderr)
	}
	t.Logf("evaluate audit as system:serviceaccount:%s:evaluate-audit:\n%s", auditDeployNS, stdout)
	for _, want := range []string{
		"clusterpolicyreport.wgpolicyk8s.io/ome-lint serverside-applied",
		"policyreport.wgpolicyk8s.io/ome-lint -n " + auditNSA + " serverside-applied",
		"policyreport.wgpolicyk8s.io/ome-lint -n " + auditNSB + " serverside-applied",
		"policyreport.wgpolicyk8s.io/ome-runtime-selection -n " + auditNSA + " serverside-applied",
	} {
		if !strings.Contains(stdout, want+"\n") {
			t.Errorf("evaluate audit: no line %q", want)
		}
	}
	sel := getReport(t, auditNSA, "ome-runtime-selection")
	if got := results(sel); got != "pass: OME selects ClusterServingRuntime vllm-llama-3-2-3b-instruct" {
		t.Errorf("ome-runtime-selection in %s: %s", auditNSA, got)
	}
	if m := sel.GetManagedFields(); len(m) == 0 || m[0].Manager != "evaluate" || m[0].Operation != metav1.ManagedFieldsOperationApply {
		t.Errorf("ome-runtime-selection: managed fields %v, want an Apply by evaluate", m)
	}

	// The objects change: namespace B's model is gone, the runtime is
	// disabled. The second run replaces the reports and deletes B's.
	if err := kube.Delete(ctxT(t), modelB); err != nil {
		t.Fatal(err)
	}
	disabled := runtime.DeepCopy()
	if err := unstructured.SetNestedField(disabled.Object, true, "spec", "disabled"); err != nil {
		t.Fatal(err)
	}
	if _, err := kube.Apply(ctxT(t), disabled); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code = run(t, "audit", "--kubeconfig", kc)
	if code != 0 {
		t.Fatalf("evaluate audit, second run: exit %d\n%s%s", code, stdout, stderr)
	}
	t.Logf("evaluate audit, second run:\n%s", stdout)
	if !strings.Contains(stdout, "policyreport.wgpolicyk8s.io/ome-lint -n "+auditNSB+" deleted\n") {
		t.Errorf("the second run did not delete %s's report:\n%s", auditNSB, stdout)
	}
	if _, err := kube.Dynamic.Resource(policyReports).Namespace(auditNSB).Get(ctxT(t), "ome-lint", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("%s's ome-lint is still there: %v", auditNSB, err)
	}
	if _, err := kube.Dynamic.Resource(policyReports).Namespace(auditNSB).Get(ctxT(t), "kyverno-polr", metav1.GetOptions{}); err != nil {
		t.Errorf("another tool's report was touched: %v", err)
	}
	if got := results(getReport(t, auditNSA, "ome-runtime-selection")); !strings.HasPrefix(got, "fail: ") {
		t.Errorf("ome-runtime-selection in %s was not replaced: %s", auditNSA, got)
	} else {
		t.Logf("replaced: %s", got)
	}

	// A dry run on the server writes nothing, with the same rights.
	before := getReport(t, auditNSA, "ome-lint").GetResourceVersion()
	if stdout, stderr, code = run(t, "audit", "--kubeconfig", kc, "--dry-run=server"); code != 0 || !strings.Contains(stdout, " serverside-applied (server dry run)\n") {
		t.Errorf("--dry-run=server: exit %d\n%s%s", code, stdout, stderr)
	}
	if after := getReport(t, auditNSA, "ome-lint").GetResourceVersion(); after != before {
		t.Errorf("--dry-run=server wrote ome-lint (resourceVersion %s, then %s)", before, after)
	}

	// One right less, one named 403 each: to read OME's objects; to
	// create a report (a server-side apply that creates needs it: A's
	// reports are deleted first); to delete a stale one.
	for _, c := range []struct{ name, verb, resource, want string }{
		{"no-list-isvc", "list", "inferenceservices", `to list inferenceservices.ome.io in every namespace (403 Forbidden)`},
		{"no-create", "create", "policyreports", `to create policyreports.wgpolicyk8s.io in namespace "` + auditNSA + `" (403 Forbidden)`},
		{"no-delete", "delete", "policyreports", `to delete policyreports.wgpolicyk8s.io in namespace "` + auditNSB + `" (403 Forbidden)`},
	} {
		sa := "evaluate-audit-" + c.name
		reduced := withoutRight(t, role, c.verb, c.resource)
		reduced.SetName(sa)
		setup := []*unstructured.Unstructured{
			obj("v1", "ServiceAccount", auditDeployNS, sa, nil), reduced,
			obj("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", "", sa, map[string]any{
				"roleRef":  map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": sa},
				"subjects": []any{map[string]any{"kind": "ServiceAccount", "name": sa, "namespace": auditDeployNS}}}),
		}
		for _, o := range setup {
			if _, err := kube.Apply(ctxT(t), o); err != nil {
				t.Fatal(err)
			}
		}
		// A stale report of audit's, for the delete to refuse.
		stale := obj("wgpolicyk8s.io/v1alpha2", "PolicyReport", auditNSB, "ome-lint", map[string]any{"results": []any{}})
		stale.SetLabels(map[string]string{"app.kubernetes.io/managed-by": "evaluate"})
		if _, err := kube.Apply(ctxT(t), stale); err != nil {
			t.Fatal(err)
		}
		if c.verb == "create" {
			for _, name := range []string{"ome-lint", "ome-runtime-selection"} {
				if err := kube.Dynamic.Resource(policyReports).Namespace(auditNSA).Delete(ctxT(t), name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
					t.Fatal(err)
				}
			}
		}
		args := []string{"audit", "--kubeconfig", serviceAccountKubeconfig(t, sa)}
		want := `forbids user "system:serviceaccount:` + auditDeployNS + `:` + sa + `" ` + c.want
		// The new binding is in the authorizer's cache within moments.
		_ = eventually(15*time.Second, func() error {
			if _, errOut, _ := run(t, args...); !strings.Contains(errOut, want) {
				return fmt.Errorf("%s", errOut)
			}
			return nil
		})
		refused(t, c.name, args, want)
		deleteAll(t, setup)
	}
}

// testFleetOnOneServer reads the real API server through two contexts of
// one kubeconfig (the admin's, and the audit's ServiceAccount's): the
// server is read once, known by its kube-system namespace's UID, and each
// match result names both contexts. Then evaluate audit --format openreports
// writes OpenReports beside OpenReports' CRDs (testdata/openreports).
func testFleetOnOneServer(t *testing.T) {
	admin, err := os.ReadFile(state.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	// A second context of the same cluster and user.
	two := strings.Replace(string(admin), "contexts:\n", "contexts:\n- name: ome-local-again\n  context:\n    cluster: ome-local\n    user: admin\n", 1)
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kc, []byte(two), 0o600); err != nil {
		t.Fatal(err)
	}
	ns, err := kube.Dynamic.Resource(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}).Get(ctxT(t), "kube-system", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	examples, err := cluster.ReadObjects(
		filepath.Join(repo, "testdata", "examples", "models", "llama-3-2-3b-instruct.yaml"),
		filepath.Join(repo, "testdata", "examples", "runtimes", "vllm-llama-3-2-3b-instruct.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range examples {
		if o.GetNamespace() != "" {
			o.SetNamespace(auditNSA)
		}
	}
	examples = applyAndReadBack(t, examples)
	t.Cleanup(func() { deleteAll(t, examples) })
	stdout, stderr, code := run(t, "match", "-A", "-o", "json", "--kubeconfig", kc, "--all-contexts")
	if code > 1 {
		t.Fatalf("evaluate match -A --all-contexts: exit %d\n%s", code, stderr)
	}
	var doc struct {
		Results []struct {
			Cluster struct {
				Name, UID string
				Contexts  []string
			}
		} `json:"results"`
		Clusters []struct{ Name string }
	}
	mustJSON(t, []byte(stdout), &doc)
	if len(doc.Clusters) != 1 || len(doc.Results) == 0 {
		t.Fatalf("two contexts of one server: %d cluster(s), %d result(s); want one cluster read once\n%s", len(doc.Clusters), len(doc.Results), stdout)
	}
	for _, d := range doc.Results {
		if d.Cluster.UID != string(ns.GetUID()) || strings.Join(d.Cluster.Contexts, ",") != "ome-local,ome-local-again" {
			t.Errorf("a result's cluster: %+v, want kube-system UID %s and both contexts", d.Cluster, ns.GetUID())
		}
	}
	t.Logf("two contexts, one cluster (kube-system %s): %d result(s), each naming both", ns.GetUID(), len(doc.Results))

	applyCRDs(t, filepath.Join(repo, "testdata", "openreports"), 2)
	reports := schema.GroupVersionResource{Group: "openreports.io", Version: "v1alpha1", Resource: "reports"}
	t.Cleanup(func() {
		list, err := kube.Dynamic.Resource(reports).List(ctxT(t), metav1.ListOptions{LabelSelector: "app.kubernetes.io/managed-by=evaluate"})
		if err != nil {
			t.Error(err)
			return
		}
		for _, r := range list.Items {
			if err := kube.Dynamic.Resource(reports).Namespace(r.GetNamespace()).Delete(ctxT(t), r.GetName(), metav1.DeleteOptions{}); err != nil {
				t.Error(err)
			}
		}
		clusterReports := schema.GroupVersionResource{Group: "openreports.io", Version: "v1alpha1", Resource: "clusterreports"}
		if err := kube.Dynamic.Resource(clusterReports).DeleteCollection(ctxT(t), metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: "app.kubernetes.io/managed-by=evaluate"}); err != nil {
			t.Error(err)
		}
	})
	var out string
	err = eventually(30*time.Second, func() error {
		stdout, stderr, code := run(t, "audit", "--format", "openreports", "--kubeconfig", state.Kubeconfig)
		if code != 0 {
			return fmt.Errorf("evaluate audit --format openreports: exit %d\n%s", code, stderr)
		}
		out = stdout
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "clusterreport.openreports.io/ome-lint serverside-applied\n") {
		t.Errorf("evaluate audit --format openreports:\n%s", out)
	}
	t.Logf("evaluate audit --format openreports:\n%s", out)
}

// withoutRight is role without verb on resource.
func withoutRight(t *testing.T, role *unstructured.Unstructured, verb, resource string) *unstructured.Unstructured {
	t.Helper()
	out := role.DeepCopy()
	rules, _, _ := unstructured.NestedSlice(out.Object, "rules")
	var kept []any
	found := false
	for _, r := range rules {
		rule := r.(map[string]any)
		resources, verbs := rule["resources"].([]any), rule["verbs"].([]any)
		if !contains(resources, resource) || !contains(verbs, verb) {
			kept = append(kept, rule)
			continue
		}
		found = true
		var others []any
		for _, res := range resources {
			if res != resource {
				others = append(others, res)
			}
		}
		if len(others) > 0 { // the other resources keep every verb
			kept = append(kept, map[string]any{"apiGroups": rule["apiGroups"], "resources": others, "verbs": verbs})
		}
		var less []any
		for _, v := range verbs {
			if v != verb {
				less = append(less, v)
			}
		}
		if len(less) > 0 { // RBAC takes no rule without a verb
			kept = append(kept, map[string]any{"apiGroups": rule["apiGroups"], "resources": []any{resource}, "verbs": less})
		}
	}
	if !found {
		t.Fatalf("deploy/audit's ClusterRole does not let %s %s", verb, resource)
	}
	if err := unstructured.SetNestedSlice(out.Object, kept, "rules"); err != nil {
		t.Fatal(err)
	}
	return out
}

func contains(list []any, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// serviceAccountKubeconfig is a kubeconfig whose user is a token of the
// ServiceAccount sa of deploy/audit's namespace, as its pod would have it.
func serviceAccountKubeconfig(t *testing.T, sa string) string {
	t.Helper()
	gvr := schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}
	req := obj("authentication.k8s.io/v1", "TokenRequest", auditDeployNS, sa, map[string]any{"spec": map[string]any{"expirationSeconds": int64(3600)}})
	var got *unstructured.Unstructured
	err := eventually(30*time.Second, func() (err error) {
		got, err = kube.Dynamic.Resource(gvr).Namespace(auditDeployNS).Create(ctxT(t), req, metav1.CreateOptions{}, "token")
		return err
	})
	if err != nil {
		t.Fatalf("a token for %s: %v", sa, err)
	}
	tok, _, _ := unstructured.NestedString(got.Object, "status", "token")
	return kubeconfigDir(t, "    tokenFile: token", auditDeployNS, map[string]string{"token": tok})
}

// applyCRDs applies the n CRDs of dir and waits until they are served.
func applyCRDs(t *testing.T, dir string, n int) {
	t.Helper()
	crds, err := cluster.ReadObjects(dir)
	if err != nil || len(crds) != n {
		t.Fatalf("%s: %v (%d CRDs, want %d)", dir, err, len(crds), n)
	}
	for _, c := range crds {
		if _, err := kube.Apply(ctxT(t), c); err != nil {
			t.Fatalf("CRD %s: %v", c.GetName(), err)
		}
	}
}

func getReport(t *testing.T, ns, name string) *unstructured.Unstructured {
	t.Helper()
	var got *unstructured.Unstructured
	err := eventually(10*time.Second, func() (err error) {
		got, err = kube.Dynamic.Resource(policyReports).Namespace(ns).Get(ctxT(t), name, metav1.GetOptions{})
		return err
	})
	if err != nil {
		t.Fatalf("PolicyReport %s/%s: %v", ns, name, err)
	}
	return got
}

// results are a report's results, "result: message" each, sorted.
func results(r *unstructured.Unstructured) string {
	list, _, _ := unstructured.NestedSlice(r.Object, "results")
	var out []string
	for _, x := range list {
		m := x.(map[string]any)
		out = append(out, fmt.Sprintf("%v: %v", m["result"], m["message"]))
	}
	sort.Strings(out)
	return strings.Join(out, "; ")
}

// deleteReports deletes every report of audit's and the other tool's.
func deleteReports(t *testing.T) {
	for _, gvr := range []schema.GroupVersionResource{policyReports, clusterPolicyReports} {
		for _, sel := range []string{"app.kubernetes.io/managed-by=evaluate", "app.kubernetes.io/managed-by=kyverno"} {
			list, err := kube.Dynamic.Resource(gvr).List(ctxT(t), metav1.ListOptions{LabelSelector: sel})
			if err != nil {
				t.Error(err)
				continue
			}
			for _, r := range list.Items {
				ri := kube.Dynamic.Resource(gvr)
				var err error
				if r.GetNamespace() != "" {
					err = ri.Namespace(r.GetNamespace()).Delete(ctxT(t), r.GetName(), metav1.DeleteOptions{})
				} else {
					err = ri.Delete(ctxT(t), r.GetName(), metav1.DeleteOptions{})
				}
				if err != nil && !apierrors.IsNotFound(err) {
					t.Error(err)
				}
			}
		}
	}
}
