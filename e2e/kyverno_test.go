package e2e

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/ome-policy/evaluator/admission"
	"github.com/ome-policy/evaluator/e2e/cluster"
)

// kyvernoPolicies are policies/kyverno, rendered by kustomize as `kubectl
// apply -k policies/kyverno` applies it: the RBAC that lets Kyverno read
// OME's kinds and the three ValidatingPolicies.
func kyvernoPolicies(t *testing.T) []*unstructured.Unstructured {
	objs, err := cluster.Kustomize(filepath.Join(repo, "policies", "kyverno"))
	if err != nil {
		t.Fatal(err)
	}
	var policies int
	for _, o := range objs {
		if o.GetKind() == "ValidatingPolicy" {
			policies++
		}
	}
	if policies != 3 {
		t.Fatalf("policies/kyverno: %d ValidatingPolicies, want three (lint errors and warnings, runtime selection)", policies)
	}
	return objs
}

// testKyverno installs the Kyverno bundle in the cluster's Kyverno, with
// Gatekeeper's lint constraint on dry run, and checks:
//   - every repository object against `evaluate gatekeeper violations`:
//     errors refused by Kyverno's webhook with the first violation, as the
//     ValidatingAdmissionPolicy refuses them;
//   - a runtime with lint warnings only: admitted, with the warning;
//   - the selection cases, with Gatekeeper's OMERuntimeSelection on dry run
//     and the Kyverno bundle's ome-runtime-selection deciding (its lint
//     error policy on Audit, as Gatekeeper's lint constraint is on dry run
//     when testSelection runs them): Kyverno refuses with OME's message
//     exactly what Gatekeeper refuses, as `evaluate select` gives it, and
//     admits the rest; where it leaves a case to Gatekeeper
//     (docs/kyverno.md), it may admit what OME refuses, never refuse
//     otherwise.
//
// It removes the bundle at the end.
func testKyverno(t *testing.T) {
	withAction(t, lintConstraint(t), "dryrun", func(t *testing.T) { waitLintRefusedBy(t, "policy") })
	// Restored once the bundle is gone (cleanups run last first), so that
	// only Gatekeeper refuses the probe then.
	withAction(t, selectionConstraint(t), "dryrun", waitSelectionEnforced)
	waitAdmitted(t, lintProbe(t))
	objs := kyvernoPolicies(t)
	t.Cleanup(func() {
		// Kyverno takes its webhooks' rules back once the policies are
		// gone (applyWhileTesting's cleanup, which runs first).
		if err := eventually(60*time.Second, func() error {
			_, err := kube.Create(ctxT(t), lintProbe(t), true)
			if got := answer(err); got.By == "kyverno" {
				return fmt.Errorf("the lint probe is still refused by Kyverno: %s", got.Raw)
			}
			return nil
		}); err != nil {
			t.Error(err)
		}
	})
	applyWhileTesting(t, objs)
	waitLintRefusedBy(t, "kyverno")
	checkObjects(t, "kyverno")

	// Warnings come back to the client, the first failing validation's.
	warned, w := warnedKube(t)
	bad, err := cluster.ReadObjects(filepath.Join(repo, "testdata", "lint", "bad", "ignored-field.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	stored, err := warned.Create(ctxT(t), bad[0], true)
	if err != nil {
		t.Fatalf("a runtime with a lint warning only: %v", err)
	}
	got := w.take()
	want := lintViolationsAt(t, "warning", []object{{File: "ignored-field.yaml", Obj: stored}})[0]
	if len(want) == 0 {
		t.Fatal("ignored-field.yaml: evaluate gatekeeper violations finds no warning")
	}
	wantWarning := "Policy ome-version-lint-warning failed: " + want[0]
	if strings.Join(got, "\n") != wantWarning {
		t.Errorf("warnings:\n got %q\nwant %q", got, wantWarning)
	} else {
		t.Logf("a runtime with %d lint warnings: admitted with the first, as evaluate gatekeeper violations --severities warning gives it", len(want))
	}

	// Runtime selection: Kyverno's answers, with Gatekeeper's selection on
	// dry run. The error policy audits only, so that the cases' runtimes
	// with lint errors are stored, as in testSelection.
	for _, o := range objs {
		if o.GetName() != "ome-version-lint-error" || o.GetKind() != "ValidatingPolicy" {
			continue
		}
		audit := o.DeepCopy()
		if err := unstructured.SetNestedStringSlice(audit.Object, []string{"Audit"}, "spec", "validationActions"); err != nil {
			t.Fatal(err)
		}
		if _, err := kube.Apply(ctxT(t), audit); err != nil {
			t.Fatal(err)
		}
	}
	waitAdmitted(t, lintProbe(t))
	cases := newestSelectionCases(t)
	runSelectionCasesBy(t, cases, "", 60*time.Second, "kyverno")
}

// kyvernoLeaves is admission.KyvernoLeaves of an InferenceService and
// the objects of its case as the API server keeps them.
func kyvernoLeaves(isvc *unstructured.Unstructured, objs []*unstructured.Unstructured) bool {
	values := make([]map[string]any, len(objs))
	for i, o := range objs {
		values[i] = o.Object
	}
	return admission.KyvernoLeaves(isvc.Object, values)
}
