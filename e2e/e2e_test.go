// Package e2e checks the project against a real control plane: OME's CRDs
// in kube-apiserver, the Gatekeeper bundle in Gatekeeper's manager, the
// Kyverno bundle in Kyverno's admission controller, and the answers of
// `evaluate` on the same objects. `make e2e` starts the cluster
// (package cluster), runs these tests and stops it.
package e2e

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/ome-policy/evaluator/e2e/cluster"
)

// TestE2E runs the checks in an order that each leaves the cluster as the
// next expects it: both constraints enforced, no OME object left over.
func TestE2E(t *testing.T) {
	steps := []struct {
		name string
		run  func(*testing.T)
	}{
		{"objects/K8sNativeValidation", func(t *testing.T) { checkObjects(t, "policy") }},
		{"objects/Rego", testObjectsRego},
		{"objects/native-policy", testNativePolicy},
		{"objects/kyverno", testKyverno},
		{"selection", testSelection},
		{"releases", testReleases},
		{"scoping", testScoping},
		{"live-input", testLiveInput},
		{"live-credentials", testLiveCredentials},
		{"diff-cluster", testDiffCluster},
		{"audit", testAudit},
		{"team-rules", testTeamRules},
		{"corpus-decisions", testCorpusDecisions},
		{"policyreports", testPolicyReports},
		{"cluster-audit", testClusterAudit},
		{"fleet", testFleetOnOneServer},
		{"bundle/kustomize", testKustomizedBundle},
		{"gatekeeper-down", testGatekeeperDown},
		{"live-paging", testLivePaging},
		{"no-OME-CRDs", testNoOMECRDs},
	}
	for _, s := range steps {
		if !t.Run(s.name, s.run) {
			t.Logf("%s failed; the later checks may be confused by what it left", s.name)
		}
	}
}

// lintTemplate is the OMEVersionLint template as generated.
func lintTemplate(t *testing.T) *unstructured.Unstructured {
	objs, err := cluster.ReadObjects(filepath.Join(repo, "policies", "gatekeeper", "omeversionlint", "template.yaml"))
	if err != nil || len(objs) != 1 {
		t.Fatalf("the OMEVersionLint template: %v (%d objects)", err, len(objs))
	}
	return objs[0]
}

// regoOnly drops a template's K8sNativeValidation code, so that Gatekeeper
// runs its Rego and generates no ValidatingAdmissionPolicy.
func regoOnly(t *testing.T, tmpl *unstructured.Unstructured) *unstructured.Unstructured {
	tmpl = tmpl.DeepCopy()
	targets, _, _ := unstructured.NestedSlice(tmpl.Object, "spec", "targets")
	for i, tg := range targets {
		target := tg.(map[string]any)
		var keep []any
		code, _ := target["code"].([]any)
		for _, c := range code {
			if c.(map[string]any)["engine"] != "K8sNativeValidation" {
				keep = append(keep, c)
			}
		}
		if len(keep) == len(code) {
			t.Fatal("the OMEVersionLint template has no K8sNativeValidation code")
		}
		target["code"] = keep
		targets[i] = target
	}
	if err := unstructured.SetNestedSlice(tmpl.Object, targets, "spec", "targets"); err != nil {
		t.Fatal(err)
	}
	return tmpl
}

// waitLintRefusedBy waits until a lint probe is refused by `by`.
func waitLintRefusedBy(t *testing.T, by string) {
	t.Helper()
	probe := lintProbe(t)
	err := eventually(90*time.Second, func() error {
		_, err := kube.Create(ctxT(t), probe, true)
		if got := answer(err); got.By != by || !strings.Contains(got.Raw, "[unknown-operator] ") {
			return fmt.Errorf("the lint probe: want a refusal by %s, got %s %d: %s", by, got.By, got.Code, got.Raw)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func lintProbe(t *testing.T) *unstructured.Unstructured {
	objs, err := cluster.ReadObjects(filepath.Join(repo, "testdata", "lint", "bad", "unknown-operator.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return objs[0]
}

// testObjectsRego runs the objects' check with the OMEVersionLint template
// on Rego (its K8sNativeValidation code removed): the refusals then come from
// Gatekeeper's webhook. It puts the generated template back afterwards.
func testObjectsRego(t *testing.T) {
	full := lintTemplate(t)
	if _, err := kube.Apply(ctxT(t), regoOnly(t, full)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := kube.Apply(ctxT(t), full); err != nil {
			t.Fatal(err)
		}
		waitLintRefusedBy(t, "policy")
	})
	waitLintRefusedBy(t, "webhook")
	checkObjects(t, "webhook")
}

// selectDecision is one decision of `evaluate select -o json`.
type selectDecision struct {
	InferenceService struct{ Namespace, Name string }
	Admitted         bool
	Message          string
}

// expectedSelection runs `evaluate select` on an InferenceService and the
// objects as the API server holds them, under OME release (the default
// when "").
func expectedSelection(t *testing.T, isvc *unstructured.Unstructured, objs []*unstructured.Unstructured, release string) selectDecision {
	t.Helper()
	dir := t.TempDir()
	path := writeObjects(t, dir, "case.yaml", append([]*unstructured.Unstructured{isvc}, objs...)...)
	args := []string{"select", "-o", "json", "-f", path}
	if release != "" {
		args = append(args, "--ome-version", release)
	}
	var out struct{ Decisions []selectDecision }
	if err := json.Unmarshal(evaluate(t, args...), &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Decisions) != 1 {
		t.Fatalf("evaluate select: %d decisions for one InferenceService", len(out.Decisions))
	}
	return out.Decisions[0]
}

// constraint reads one of the two sample constraints the cluster runs.
func constraint(t *testing.T, template, sample string) *unstructured.Unstructured {
	objs, err := cluster.ReadObjects(filepath.Join(repo, "policies", "gatekeeper", template, "samples", sample, "constraint.yaml"))
	if err != nil || len(objs) != 1 {
		t.Fatalf("constraint %s/%s: %v", template, sample, err)
	}
	return objs[0]
}

func selectionConstraint(t *testing.T) *unstructured.Unstructured {
	return constraint(t, "omeruntimeselection", "default")
}

func lintConstraint(t *testing.T) *unstructured.Unstructured {
	return constraint(t, "omeversionlint", "deny-errors")
}

// withAction applies a constraint with another enforcement action (as the
// README's dry run does) and restores it, enforced, when the test ends;
// then it calls restored, which waits until the enforcement is back.
func withAction(t *testing.T, c *unstructured.Unstructured, action string, restored func(*testing.T)) {
	t.Helper()
	dry := c.DeepCopy()
	if err := unstructured.SetNestedField(dry.Object, action, "spec", "enforcementAction"); err != nil {
		t.Fatal(err)
	}
	if _, err := kube.Apply(ctxT(t), dry); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := kube.Apply(ctxT(t), c); err != nil {
			t.Fatal(err)
		}
		restored(t)
	})
}

// selectionProbe is an InferenceService whose model does not exist.
func selectionProbe(name string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "ome.io/v1beta1", "kind": "InferenceService",
		"metadata": map[string]any{"name": name, "namespace": "default"},
		"spec":     map[string]any{"model": map[string]any{"name": "ome-e2e-no-such-model"}, "engine": map[string]any{}},
	}}
}

// waitAdmitted waits until a dry-run create of obj is admitted.
func waitAdmitted(t *testing.T, obj *unstructured.Unstructured) {
	t.Helper()
	err := eventually(90*time.Second, func() error {
		_, err := kube.Create(ctxT(t), obj, true)
		if got := answer(err); got.Code != 0 {
			return fmt.Errorf("%s %s still refused: %s", obj.GetKind(), obj.GetName(), got.Raw)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// waitSelectionEnforced waits until the selection probe is refused.
func waitSelectionEnforced(t *testing.T) {
	t.Helper()
	err := eventually(90*time.Second, func() error {
		_, err := kube.Create(ctxT(t), selectionProbe("ome-e2e-probe"), true)
		if got := answer(err); got.By != "webhook" || !strings.HasPrefix(strings.Join(got.Messages, "\n"), "[ome-runtime-selection] ") {
			return fmt.Errorf("the selection probe: want a refusal by the webhook, got %s %d: %s", got.By, got.Code, got.Raw)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// applyAndReadBack creates objects (their namespaces first) and returns them
// as the API server holds them, with its creationTimestamp.
func applyAndReadBack(t *testing.T, objs []*unstructured.Unstructured) []*unstructured.Unstructured {
	t.Helper()
	var wrapped []object
	for _, o := range objs {
		wrapped = append(wrapped, object{Obj: o})
	}
	ensureNamespaces(t, wrapped)
	var out []*unstructured.Unstructured
	for _, o := range objs {
		got, err := kube.Apply(ctxT(t), o)
		if err != nil {
			deleteAll(t, out) // leave no object to the next case
			t.Fatalf("applying %s %s: %v", o.GetKind(), o.GetName(), err)
		}
		out = append(out, got)
	}
	return out
}

func deleteAll(t *testing.T, objs []*unstructured.Unstructured) {
	t.Helper()
	for _, o := range objs {
		if err := kube.Delete(ctxT(t), o); err != nil {
			t.Errorf("deleting %s %s: %v", o.GetKind(), o.GetName(), err)
		}
	}
}

// admissionMatches compares the API server's answer to an InferenceService
// with `evaluate select`'s decision.
func admissionMatches(got refusal, want selectDecision) error {
	return admissionMatchesBy(got, want, "webhook")
}

// admissionMatchesBy is admissionMatches with the refuser: "webhook"
// (Gatekeeper's OMERuntimeSelection) or "kyverno" (policies/kyverno's
// ome-runtime-selection, whose message is OME's alone).
func admissionMatchesBy(got refusal, want selectDecision, by string) error {
	if want.Admitted {
		if got.Code != 0 {
			return fmt.Errorf("evaluate select admits it; the cluster refused it: %d %s", got.Code, got.Raw)
		}
		return nil
	}
	if by == "kyverno" {
		if got.By != "kyverno" || !strings.Contains(got.Raw, "Policy ome-runtime-selection failed: ") || strings.Join(got.Messages, "\n") != want.Message {
			return fmt.Errorf("want Kyverno's ome-runtime-selection to refuse it with\n  %s\ngot %s %d:\n  %s", want.Message, got.By, got.Code, got.Raw)
		}
		return nil
	}
	wantMsg := "[ome-runtime-selection] " + want.Message
	if got.By != "webhook" || got.Code != 403 || strings.Join(got.Messages, "\n") != wantMsg {
		return fmt.Errorf("want Gatekeeper's webhook to refuse it (403) with\n  %s\ngot %s %d:\n  %s", wantMsg, got.By, got.Code, got.Raw)
	}
	return nil
}

// testSelection runs every selection case that holds for the newest OME
// release, whose objects OME's CRDs accept, on the cluster: objects
// created, synced into Gatekeeper, then the InferenceService created for
// real and answered as `evaluate select` says on the objects read back.
// The lint constraint is on dry run meanwhile, so that a case object with a
// lint error still goes in.
func testSelection(t *testing.T) {
	withAction(t, lintConstraint(t), "dryrun", func(t *testing.T) { waitLintRefusedBy(t, "policy") })
	waitAdmitted(t, lintProbe(t))

	cases := newestSelectionCases(t)
	examples, err := cluster.ReadObjects(filepath.Join(repo, "testdata", "examples"))
	if err != nil {
		t.Fatal(err)
	}
	var exampleObjs []*unstructured.Unstructured
	for _, o := range examples {
		if isOME(o) && o.GetKind() != "InferenceService" {
			exampleObjs = append(exampleObjs, o)
		}
	}
	for _, o := range examples {
		if o.GetKind() == "InferenceService" {
			cases = append(cases, selectionCase{File: "testdata/examples", Name: o.GetName(), InferenceService: o, Objects: exampleObjs})
		}
	}
	runSelectionCases(t, cases, "", 20*time.Second)
}

// testReleases installs, for each OME release but the newest, the
// OMERuntimeSelection template that `evaluate gatekeeper --ome-version`
// generates for it in place of the cluster's, and runs the selection
// cases of testdata/cases/release-*.yaml that hold for that release: the
// cluster answers as `evaluate select --ome-version` does, and as the case
// file expects. The newest release's template is back at the end.
func testReleases(t *testing.T) {
	withAction(t, lintConstraint(t), "dryrun", func(t *testing.T) { waitLintRefusedBy(t, "policy") })
	waitAdmitted(t, lintProbe(t))
	t.Cleanup(func() {
		// The committed template, and the newest release's answer to the
		// probe (v0.1.4, installed last, answers it otherwise).
		tmpl, err := cluster.ReadObjects(filepath.Join(repo, "policies", "gatekeeper", "omeruntimeselection", "template.yaml"))
		if err != nil || len(tmpl) != 1 {
			t.Fatalf("the OMERuntimeSelection template: %v", err)
		}
		if _, err := kube.Apply(ctxT(t), tmpl[0]); err != nil {
			t.Fatal(err)
		}
		probe := selectionProbe("ome-e2e-probe")
		want := expectedSelection(t, probe, nil, "")
		if err := eventually(90*time.Second, func() error {
			_, err := kube.Create(ctxT(t), probe, true)
			return admissionMatches(answer(err), want)
		}); err != nil {
			t.Fatalf("the newest release's template back: %v", err)
		}
	})
	var files []string
	for _, c := range selectionCases(t) {
		if strings.HasPrefix(filepath.Base(c.File), "release-") && !slices.Contains(files, c.File) {
			files = append(files, c.File)
		}
	}
	if len(files) == 0 {
		t.Fatal("no testdata/cases/release-*.yaml with selection cases")
	}
	for _, release := range omeReleases(t)[1:] {
		t.Run(release, func(t *testing.T) {
			dir := t.TempDir()
			if _, stderr, code := run(t, "gatekeeper", "--ome-version", release, "--out", dir, "--native-out", ""); code != 0 {
				t.Fatalf("evaluate gatekeeper --ome-version %s: exit %d\n%s", release, code, stderr)
			}
			tmpl, err := cluster.ReadObjects(filepath.Join(dir, "omeruntimeselection", "template.yaml"))
			if err != nil || len(tmpl) != 1 {
				t.Fatalf("%s's OMERuntimeSelection template: %v", release, err)
			}
			if _, err := kube.Apply(ctxT(t), tmpl[0]); err != nil {
				t.Fatal(err)
			}
			var cases []selectionCase
			for _, c := range selectionCases(t) {
				if slices.Contains(files, c.File) && c.holdsFor(release) {
					cases = append(cases, c)
				}
			}
			// The first answer waits for Gatekeeper to compile the template.
			runSelectionCases(t, cases, release, 90*time.Second)
		})
	}
}

// runSelectionCases runs cases on the cluster under OME release ("" for
// the default): each case's objects created and read back, and its
// InferenceService answered by Gatekeeper as `evaluate select` answers on
// them, and refused with the case file's message. A case whose objects
// OME's CRDs refuse is skipped. The first answer may take wait to agree;
// the later, 20 seconds (Gatekeeper's inventory follows the API server).
func runSelectionCases(t *testing.T, cases []selectionCase, release string, wait time.Duration) {
	t.Helper()
	runSelectionCasesBy(t, cases, release, wait, "webhook")
}

// runSelectionCasesBy is runSelectionCases with the refuser that answers
// (admissionMatchesBy). Kyverno admits an InferenceService that its policy
// leaves to Gatekeeper (admission.KyvernoLeaves); such a case counts as
// left, not as a failure, when Kyverno admits what OME refuses.
func runSelectionCasesBy(t *testing.T, cases []selectionCase, release string, wait time.Duration, by string) {
	t.Helper()
	left := 0
	ran, admitted, refused := 0, 0, 0
	skipped := map[string]int{}
	for _, c := range cases {
		name := c.File + "#" + c.Name
		var objs []object
		for _, o := range c.Objects {
			objs = append(objs, object{File: name, Obj: o})
		}
		objs = append(objs, object{File: name, Obj: c.InferenceService})
		ensureNamespaces(t, objs)
		var reason string
		for _, o := range objs {
			if _, err := kube.Create(ctxT(t), o.Obj, true); err != nil {
				if got := answer(err); got.By == "schema" {
					reason = fmt.Sprintf("OME's CRDs refuse %s %s: %s", o.Obj.GetKind(), o.Obj.GetName(), strings.Join(got.Messages, "; "))
					break
				}
			}
		}
		if reason != "" {
			skipped[reason]++
			continue
		}
		ran++
		stored := applyAndReadBack(t, c.Objects)
		want := expectedSelection(t, c.InferenceService, stored, release)
		// The objects as the API server keeps them (defaults) leave OME's
		// message as the case file gives it, unless the order OME checks
		// the runtimes in (by creationTimestamp) differs: the case file
		// gives timestamps, or leaves them out where the API server sets
		// them, in different seconds.
		if c.Message != "" && sameTimestamps(c.Objects) && sameTimestamps(stored) && want.Message != c.Message {
			t.Errorf("%s: on the objects read back, evaluate select refuses with\n  %s\nwhere the case file expects\n  %s", name, want.Message, c.Message)
		}
		if want.Admitted {
			admitted++
		} else {
			refused++
		}
		// Wait until Gatekeeper's answer to a dry run agrees, then create
		// for real.
		if by == "kyverno" && !want.Admitted && kyvernoLeaves(c.InferenceService, stored) {
			// Kyverno may admit it (it does unless an earlier check refuses).
			left++
			if err := eventually(wait, func() error {
				_, err := kube.Create(ctxT(t), c.InferenceService, true)
				got := answer(err)
				if got.Code == 0 {
					return nil
				}
				return admissionMatchesBy(got, want, by)
			}); err != nil {
				t.Errorf("%s (left to Gatekeeper): %v", name, err)
			}
			deleteAll(t, stored)
			continue
		}
		if err := eventually(wait, func() error {
			_, err := kube.Create(ctxT(t), c.InferenceService, true)
			return admissionMatchesBy(answer(err), want, by)
		}); err != nil {
			t.Errorf("%s: %v", name, err)
		} else {
			wait = 20 * time.Second
			created, err := kube.Create(ctxT(t), c.InferenceService, false)
			got := answer(err)
			if err := admissionMatchesBy(got, want, by); err != nil {
				t.Errorf("%s (created for real): %v", name, err)
			} else if !want.Admitted && want.Message == c.Message {
				t.Logf("%s: the API server refuses it with the case file's message: %s", name, strings.Join(got.Messages, "\n"))
			}
			if created != nil {
				deleteAll(t, []*unstructured.Unstructured{created})
			}
		}
		deleteAll(t, stored)
	}
	t.Logf("selection cases: %d run on the cluster (%d admitted, %d refused), %d skipped", ran, admitted, refused, len(cases)-ran)
	if left > 0 {
		t.Logf("  %d of the refused left to Gatekeeper by Kyverno's policy (a KEDA address or a number it does not read)", left)
	}
	for r, n := range skipped {
		t.Logf("  skipped %d: %s", n, r)
	}
	if ran == 0 {
		t.Fatal("no selection case ran")
	}
}

// omeReleases are the OME releases evaluate states, newest first.
func omeReleases(t *testing.T) []string {
	t.Helper()
	var v struct {
		OMEReleases []string `json:"omeReleases"`
	}
	mustJSON(t, evaluate(t, "version", "-o", "json"), &v)
	if len(v.OMEReleases) == 0 {
		t.Fatal("evaluate version names no OME release")
	}
	return v.OMEReleases
}

// sameTimestamps says whether objs have one creationTimestamp ("" for
// none), so that OME checks their runtimes in the order of their names.
func sameTimestamps(objs []*unstructured.Unstructured) bool {
	for _, o := range objs {
		if o.GetCreationTimestamp() != objs[0].GetCreationTimestamp() {
			return false
		}
	}
	return true
}

// testGatekeeperDown pauses Gatekeeper's manager and shows what its chart's
// failurePolicy (Ignore) and timeout (3 s) mean: an InferenceService that
// Gatekeeper refuses is admitted after the timeout, while OMEVersionLint,
// enforced by the API server's ValidatingAdmissionPolicy, still refuses.
func testGatekeeperDown(t *testing.T) {
	resume := pauseGatekeeper(t)

	start := time.Now()
	created, err := kube.Create(ctxT(t), selectionProbe("ome-e2e-while-down"), false)
	took := time.Since(start)
	if err != nil {
		t.Errorf("with Gatekeeper down, the failurePolicy Ignore should admit the InferenceService; got %v", err)
	} else {
		t.Logf("Gatekeeper down: an InferenceService it would refuse was admitted after %.1fs (its webhook's timeoutSeconds, failurePolicy Ignore)", took.Seconds())
		if took < 2500*time.Millisecond {
			t.Errorf("admitted after %v, before the webhook's 3 s timeout: was Gatekeeper paused?", took)
		}
	}
	_, err = kube.Create(ctxT(t), lintProbe(t), true)
	if got := answer(err); got.By != "policy" || got.Code != 422 {
		t.Errorf("with Gatekeeper down, the ValidatingAdmissionPolicy should still refuse the lint probe (422); got %s %d: %s", got.By, got.Code, got.Raw)
	} else {
		t.Logf("Gatekeeper down: the lint probe is still refused by the API server: %s", got.Raw)
	}
	resume()
	if created != nil {
		deleteAll(t, []*unstructured.Unstructured{created})
	}
	waitSelectionEnforced(t)
}

// newestSelectionCases are the selection cases that hold for the newest
// OME release, the one the cluster's bundle states.
func newestSelectionCases(t *testing.T) []selectionCase {
	newest := omeReleases(t)[0]
	var cases []selectionCase
	for _, c := range selectionCases(t) {
		if c.holdsFor(newest) {
			cases = append(cases, c)
		}
	}
	return cases
}
