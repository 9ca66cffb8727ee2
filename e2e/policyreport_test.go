package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/ome-policy/evaluator/e2e/cluster"
)

// testPolicyReports applies what `evaluate lint -o policyreport` and
// `evaluate select -o policyreport` write to the real API server, beside
// the PolicyReport CRDs of the Kyverno release the project pins
// (testdata/policyreport), as docs/usage.md tells a team to feed them:
// the server takes every report, and gives back each with the results
// evaluate wrote.
func testPolicyReports(t *testing.T) {
	crds, err := cluster.ReadObjects(filepath.Join(repo, "testdata", "policyreport"))
	if err != nil || len(crds) != 2 {
		t.Fatalf("testdata/policyreport: %v (%d CRDs, want 2)", err, len(crds))
	}
	for _, c := range crds {
		if _, err := kube.Apply(ctxT(t), c); err != nil {
			t.Fatalf("CRD %s: %v", c.GetName(), err)
		}
	}
	for _, args := range [][]string{
		{"lint", "-o", "policyreport", "testdata/lint/bad"},
		{"select", "-o", "policyreport", "--rules", "examples/company-rules", "testdata/rules/prod.yaml"},
	} {
		dir := t.TempDir()
		file := filepath.Join(dir, "reports.yaml")
		if err := os.WriteFile(file, evaluate(t, args...), 0o644); err != nil {
			t.Fatal(err)
		}
		reports, err := cluster.ReadObjects(file)
		if err != nil {
			t.Fatalf("evaluate %v: %v", args, err)
		}
		kinds := map[string]int{}
		for _, r := range reports {
			kinds[r.GetKind()]++
			ensureNamespaces(t, []object{{File: file, Obj: r}})
			// The CRDs are served once they are established.
			if err := eventually(30*time.Second, func() error { _, err := kube.Apply(ctxT(t), r); return err }); err != nil {
				t.Fatalf("evaluate %v: the API server refuses %s %s/%s: %v", args, r.GetKind(), r.GetNamespace(), r.GetName(), err)
			}
			t.Cleanup(func() {
				if err := kube.Delete(ctxT(t), r); err != nil {
					t.Error(err)
				}
			})
			checkReportStored(t, r)
		}
		if len(reports) == 0 {
			t.Fatalf("evaluate %v: no report", args)
		}
		t.Logf("evaluate %v: %v applied", args, kinds)
	}
}

// checkReportStored reads a report back from the API server: it holds the
// results and the summary evaluate wrote.
func checkReportStored(t *testing.T, want *unstructured.Unstructured) {
	t.Helper()
	ri, err := kube.Resource(want)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ri.Get(ctxT(t), want.GetName(), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{"results", "summary"} {
		w, g := fmt.Sprint(want.Object[field]), fmt.Sprint(got.Object[field])
		if w != g {
			t.Errorf("%s %s/%s: %s stored as\n%s\nwritten as\n%s", want.GetKind(), want.GetNamespace(), want.GetName(), field, g, w)
		}
	}
	if n, _, _ := unstructured.NestedSlice(got.Object, "results"); len(n) == 0 {
		t.Errorf("%s %s/%s: no result stored", want.GetKind(), want.GetNamespace(), want.GetName())
	}
}
