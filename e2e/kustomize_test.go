package e2e

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/ome-policy/evaluator/e2e/cluster"
)

// testKustomizedBundle applies the whole of policies/gatekeeper as
// `kubectl apply -k` does (rendered by kustomize), over what the cluster
// runs: Up installed the same bundle without its warning constraint, which
// this adds. A runtime with a lint warning is then admitted with the
// constraint's warning, and the lint errors are still refused; the
// constraint is removed again at the end.
func testKustomizedBundle(t *testing.T) {
	objs, err := cluster.Kustomize(filepath.Join(repo, "policies", "gatekeeper"))
	if err != nil {
		t.Fatal(err)
	}
	var added []*unstructured.Unstructured
	for _, o := range objs {
		if _, err := kube.Apply(ctxT(t), o); err != nil {
			t.Fatalf("kubectl apply -k policies/gatekeeper: %s %s: %v", o.GetKind(), o.GetName(), err)
		}
		if o.GroupVersionKind().Group == "constraints.gatekeeper.sh" && !slices.Contains(cluster.UpConstraints, o.GetName()) {
			added = append(added, o)
		}
	}
	if len(added) != 1 || added[0].GetName() != "ome-version-lint-warnings" {
		t.Fatalf("the bundle adds %d constraints to the cluster's, want ome-version-lint-warnings", len(added))
	}
	t.Cleanup(func() {
		for _, c := range added {
			if err := kube.Delete(ctxT(t), c); err != nil {
				t.Error(err)
			}
		}
	})

	warned, w := warnedKube(t)
	read, err := cluster.ReadObjects(filepath.Join(repo, "testdata", "lint", "bad", "ordering-operator-with-suffix.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	if err := eventually(90e9, func() error {
		w.take()
		if _, err := warned.Create(ctxT(t), read[0], true); err != nil {
			return fmt.Errorf("a runtime with a lint warning only: %v", err)
		}
		got = w.take()
		for _, m := range got {
			if strings.Contains(m, "ome-version-lint-warnings") && strings.Contains(m, "[ordering-operator-with-suffix]") {
				return nil
			}
		}
		return fmt.Errorf("no warning of ome-version-lint-warnings yet: %q", got)
	}); err != nil {
		t.Fatal(err)
	}
	t.Logf("kubectl apply -k policies/gatekeeper: %d objects; a runtime with a lint warning is admitted with %q", len(objs), got)
	waitLintRefusedBy(t, "policy")
}
