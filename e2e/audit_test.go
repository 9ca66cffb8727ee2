package e2e

import (
	"bufio"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/ome-policy/evaluator/e2e/cluster"
)

// testAudit puts both constraints on dry run, creates the examples (with
// their InferenceServices), OME's catalog and the lint fixtures that OME's
// CRDs accept, and waits for an audit that started after they were all
// in: each constraint's status.totalViolations must equal what `evaluate
// select` (refused InferenceServices) and `evaluate lint` (error findings,
// one violation each) count on the same objects. Then, with the catalog
// synced and both constraints enforced again, it measures the admission
// latency of InferenceServices.
func testAudit(t *testing.T) {
	sel, lint := selectionConstraint(t), lintConstraint(t)
	withAction(t, sel, "dryrun", waitSelectionEnforced)
	withAction(t, lint, "dryrun", func(t *testing.T) { waitLintRefusedBy(t, "policy") })
	waitAdmitted(t, selectionProbe("ome-e2e-probe"))
	waitAdmitted(t, lintProbe(t))

	var objs []*unstructured.Unstructured
	var isvcs []*unstructured.Unstructured
	for _, root := range []string{"testdata/examples", "testdata/catalog", "testdata/lint/bad", "testdata/lint/clean"} {
		read, err := cluster.ReadObjects(filepath.Join(repo, root))
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range read {
			if !isOME(o) {
				continue
			}
			// One object per kind, namespace and name: the last read
			// wins, as on apply.
			created, err := kube.Create(ctxT(t), o, true)
			if answer(err).By == "schema" {
				continue
			}
			// A field the CRD lacks is pruned on create, but refused by
			// server-side apply (testdata/lint/bad/unread-field.yaml): such
			// an object is left out.
			if err == nil && pruned(o.Object["spec"], created.Object["spec"]) {
				continue
			}
			if o.GetKind() == "InferenceService" {
				isvcs = append(isvcs, o)
			} else {
				objs = append(objs, o)
			}
		}
	}
	objs = dedupe(objs)
	stored := applyAndReadBack(t, objs)
	storedIsvcs := applyAndReadBack(t, isvcs)
	t.Cleanup(func() { deleteAll(t, append(storedIsvcs, stored...)) })
	in := time.Now()

	// What evaluate counts on the objects as stored.
	dir := t.TempDir()
	all := writeObjects(t, dir, "all.yaml", append(append([]*unstructured.Unstructured{}, storedIsvcs...), stored...)...)
	var decisions struct{ Decisions []selectDecision }
	mustJSON(t, evaluate(t, "select", "-o", "json", "-f", all), &decisions)
	wantSelection := 0
	for _, d := range decisions.Decisions {
		if !d.Admitted {
			wantSelection++
		}
	}
	var wrapped []object
	for _, o := range stored {
		wrapped = append(wrapped, object{File: "stored", Obj: o})
	}
	wantLint := 0
	for _, msgs := range lintViolations(t, wrapped) {
		wantLint += len(msgs)
	}
	t.Logf("audit: %d InferenceServices and %d models and runtimes in the cluster; evaluate counts %d refused InferenceServices and %d lint errors", len(storedIsvcs), len(stored), wantSelection, wantLint)

	for _, c := range []struct {
		obj  *unstructured.Unstructured
		want int
	}{{sel, wantSelection}, {lint, wantLint}} {
		err := eventually(3*time.Minute, func() error {
			got, err := kube.Get(ctxT(t), c.obj)
			if err != nil {
				return err
			}
			ts, _, _ := unstructured.NestedString(got.Object, "status", "auditTimestamp")
			at, perr := time.Parse(time.RFC3339, ts)
			if perr != nil || !at.After(in.Add(time.Second)) {
				return fmt.Errorf("%s: no audit since the objects went in (auditTimestamp %q)", c.obj.GetName(), ts)
			}
			total, _, _ := unstructured.NestedInt64(got.Object, "status", "totalViolations")
			if int(total) != c.want {
				return fmt.Errorf("%s: totalViolations %d after the audit of %s, evaluate counts %d", c.obj.GetName(), total, ts, c.want)
			}
			return nil
		})
		if err != nil {
			t.Error(err)
		} else {
			t.Logf("audit: %s totalViolations = %d, as evaluate counts", c.obj.GetName(), c.want)
		}
	}

	// Admission latency with the catalog synced, both constraints enforced.
	if _, err := kube.Apply(ctxT(t), sel); err != nil {
		t.Fatal(err)
	}
	if _, err := kube.Apply(ctxT(t), lint); err != nil {
		t.Fatal(err)
	}
	waitSelectionEnforced(t)
	measureLatency(t, stored)
}

func dedupe(objs []*unstructured.Unstructured) []*unstructured.Unstructured {
	index := map[string]int{}
	var out []*unstructured.Unstructured
	for _, o := range objs {
		k := o.GetKind() + "/" + o.GetNamespace() + "/" + o.GetName()
		if i, ok := index[k]; ok {
			out[i] = o
			continue
		}
		index[k] = len(out)
		out = append(out, o)
	}
	return out
}

// measureLatency creates (dry run) one InferenceService per ClusterBaseModel
// in the cluster, five times over, and reports the client's round trip and the API server's
// own histogram of Gatekeeper's webhook
// (apiserver_admission_webhook_admission_duration_seconds).
func measureLatency(t *testing.T, stored []*unstructured.Unstructured) {
	before := webhookHistogram(t)
	var n, runtimes int
	var total time.Duration
	var worst time.Duration
	refused := 0
	for _, o := range stored {
		if o.GetKind() == "ClusterServingRuntime" {
			runtimes++
		}
	}
	for round := 0; round < 5; round++ {
		for _, o := range stored {
			if o.GetKind() != "ClusterBaseModel" {
				continue
			}
			isvc := selectionProbe("ome-e2e-latency")
			_ = unstructured.SetNestedField(isvc.Object, o.GetName(), "spec", "model", "name")
			start := time.Now()
			_, err := kube.Create(ctxT(t), isvc, true)
			d := time.Since(start)
			if err != nil {
				refused++
			}
			total += d
			worst = max(worst, d)
			n++
		}
	}
	after := webhookHistogram(t)
	if n == 0 {
		t.Fatal("no ClusterBaseModel to measure with")
	}
	count := after.count - before.count
	sum := after.sum - before.sum
	t.Logf("latency: %d InferenceServices (%d refused) with %d ClusterServingRuntimes synced: client round trip mean %.1f ms, worst %.1f ms; the API server's apiserver_admission_webhook_admission_duration_seconds for validation.gatekeeper.sh: %d calls, mean %.1f ms",
		n, refused, runtimes, float64(total.Microseconds())/float64(n)/1000, float64(worst.Microseconds())/1000, int(count), sum/math.Max(count, 1)*1000)
}

type histogram struct{ sum, count float64 }

// webhookHistogram reads the API server's metric of Gatekeeper's validating
// webhook calls on InferenceServices.
func webhookHistogram(t *testing.T) histogram {
	t.Helper()
	body, err := kube.Raw(ctxT(t), "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	var h histogram
	sc := bufio.NewScanner(strings.NewReader(string(body)))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "apiserver_admission_webhook_admission_duration_seconds_") ||
			!strings.Contains(line, `name="validation.gatekeeper.sh"`) || !strings.Contains(line, `operation="CREATE"`) {
			continue
		}
		fields := strings.Fields(line)
		v, _ := strconv.ParseFloat(fields[len(fields)-1], 64)
		switch {
		case strings.HasPrefix(line, "apiserver_admission_webhook_admission_duration_seconds_sum"):
			h.sum += v
		case strings.HasPrefix(line, "apiserver_admission_webhook_admission_duration_seconds_count"):
			h.count += v
		}
	}
	return h
}

// pruned says whether stored, what the API server made of given, lacks a
// field of given's.
func pruned(given, stored any) bool {
	switch g := given.(type) {
	case map[string]any:
		s, ok := stored.(map[string]any)
		if !ok {
			return true
		}
		for k, v := range g {
			sv, ok := s[k]
			if !ok || pruned(v, sv) {
				return true
			}
		}
	case []any:
		s, ok := stored.([]any)
		if !ok || len(s) != len(g) {
			return true
		}
		for i := range g {
			if pruned(g[i], s[i]) {
				return true
			}
		}
	}
	return false
}
