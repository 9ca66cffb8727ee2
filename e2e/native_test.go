package e2e

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"

	"github.com/ome-policy/evaluator/e2e/cluster"
)

// nativePolicies are policies/kubernetes, rendered by kustomize as
// `kubectl apply -k policies/kubernetes` applies it: the
// ValidatingAdmissionPolicies and bindings for clusters without Gatekeeper.
func nativePolicies(t *testing.T) []*unstructured.Unstructured {
	objs, err := cluster.Kustomize(filepath.Join(repo, "policies", "kubernetes"))
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 4 {
		t.Fatalf("policies/kubernetes: %d objects, want two policies and two bindings", len(objs))
	}
	return objs
}

// warnedKube is a client of the cluster whose warnings w collects.
func warnedKube(t *testing.T) (*cluster.Kube, *warnings) {
	t.Helper()
	cfg := rest.CopyConfig(kube.Config)
	w := &warnings{}
	cfg.WarningHandler = w
	warned, err := cluster.NewKube(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return warned, w
}

// warnings collects the warnings the API server returns.
type warnings struct {
	mu   sync.Mutex
	text []string
}

func (w *warnings) HandleWarningHeader(_ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.text = append(w.text, text)
}

func (w *warnings) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.text
	w.text = nil
	return out
}

// testNativePolicy installs the generated ValidatingAdmissionPolicies, with
// Gatekeeper's lint constraint on dry run, and checks every repository
// object against `evaluate gatekeeper violations` (errors refused with the
// first violation, status 422; warnings returned as warnings), a runtime of
// 64 entries that each fail, and the largest catalog runtime, within
// Kubernetes' CEL cost budget.
func testNativePolicy(t *testing.T) {
	withAction(t, lintConstraint(t), "dryrun", func(t *testing.T) { waitLintRefusedBy(t, "policy") })
	waitAdmitted(t, lintProbe(t))
	applyWhileTesting(t, nativePolicies(t))
	const native = "ValidatingAdmissionPolicy 'ome-version-lint-error' with binding 'ome-version-lint-error' denied request: "
	if err := eventually(60e9, func() error {
		_, err := kube.Create(ctxT(t), lintProbe(t), true)
		if got := answer(err); !strings.Contains(got.Raw, native) {
			return fmt.Errorf("the lint probe: want a refusal by ome-version-lint-error, got %d: %s", got.Code, got.Raw)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	checkObjects(t, "native")

	// Warnings come back to the client.
	warned, w := warnedKube(t)
	objs, err := cluster.ReadObjects(filepath.Join(repo, "testdata", "lint", "bad", "ignored-field.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	stored, err := warned.Create(ctxT(t), objs[0], true)
	if err != nil {
		t.Fatalf("a runtime with a lint warning only: %v", err)
	}
	got := w.take()
	// The policies review the object after OME's CRD has set its defaults
	// (operator: Equal and weight: 1 on every modelFormat and
	// modelFramework), so the warnings are those of the stored object. A
	// Warn binding returns every failing validation, where Deny gives the
	// first only.
	want := lintViolationsAt(t, "warning", []object{{File: "ignored-field.yaml", Obj: stored}})[0]
	var wantWarnings []string
	for _, m := range want {
		wantWarnings = append(wantWarnings, "Validation failed for ValidatingAdmissionPolicy 'ome-version-lint-warning' with binding 'ome-version-lint-warning': "+m)
	}
	if strings.Join(got, "\n") != strings.Join(wantWarnings, "\n") {
		t.Errorf("warnings:\n got %q\nwant %q", got, wantWarnings)
	} else {
		t.Logf("a runtime with %d lint warnings: admitted with %d warnings, as evaluate gatekeeper violations --severities warning says", len(want), len(got))
	}

	// The CEL cost budget: 64 entries, every version failing to parse.
	big := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "ome.io/v1beta1", "kind": "ClusterServingRuntime",
		"metadata": map[string]any{"name": "ome-e2e-64-entries"},
	}}
	var entries []any
	for i := range 64 {
		entries = append(entries, map[string]any{
			"modelFormat":    map[string]any{"name": "safetensors", "version": fmt.Sprintf("1.%d.x\u00a0%d", i, i)},
			"modelFramework": map[string]any{"name": "transformers", "version": fmt.Sprintf("4.%d.0.dev0", i), "operator": "GreaterThan"},
		})
	}
	_ = unstructured.SetNestedSlice(big.Object, entries, "spec", "supportedModelFormats")
	first := lintViolations(t, []object{{File: "64 entries", Obj: big}})[0][0]
	_, err = kube.Create(ctxT(t), big, true)
	if got := answer(err); got.Code != 422 || strings.Join(got.Messages, "\n") != first {
		t.Errorf("64 failing entries: want a refusal with %q, got %d: %s", first, got.Code, got.Raw)
	} else {
		t.Logf("64 failing entries: refused within the cost budget with %s", first)
	}

	// The largest runtime of OME's catalog.
	catalog, err := cluster.ReadObjects(filepath.Join(repo, "testdata", "catalog", "runtimes"))
	if err != nil {
		t.Fatal(err)
	}
	var largest *unstructured.Unstructured
	size := 0
	for _, o := range catalog {
		data, _ := o.MarshalJSON()
		if len(data) > size {
			largest, size = o, len(data)
		}
	}
	if _, err := kube.Create(ctxT(t), largest, true); err != nil {
		t.Errorf("the largest catalog runtime, %s (%d bytes of JSON): %v", largest.GetName(), size, err)
	} else {
		t.Logf("the largest catalog runtime, %s (%d bytes of JSON), is admitted within the cost budget", largest.GetName(), size)
	}
}
