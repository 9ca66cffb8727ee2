package e2e

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/ome-policy/evaluator/e2e/cluster"
)

// testScoping shows on the cluster that `evaluate match` pairs a model with
// the runtimes that the webhook looks at for an InferenceService of that
// model in each namespace: the BaseModel's own namespace, and for the
// ClusterBaseModel every namespace. Every runtime refuses every model, so
// the refusal lists each runtime the webhook checked, with its reason; the
// list must be match's pairs of that model with the runtimes of that
// namespace and the cluster's, reason for reason.
func testScoping(t *testing.T) {
	objs, err := cluster.ReadObjects(filepath.Join(repo, "e2e", "testdata", "scoping.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	stored := applyAndReadBack(t, objs)
	defer deleteAll(t, stored)
	dir := t.TempDir()
	file := writeObjects(t, dir, "scoping.json", stored...)

	// match: model -> runtime ("Kind namespace/name") -> reason.
	var doc struct {
		Results []struct {
			Model, Runtime struct{ Kind, Namespace, Name string }
			Reason         string
		}
		LeftOut int `json:"leftOut"`
	}
	out, _, code := run(t, "match", "-f", file, "-o", "json")
	if code != 1 {
		t.Fatalf("evaluate match: exit %d, want 1 (no model is served)", code)
	}
	mustJSON(t, []byte(out), &doc)
	pairs := map[string]map[string]string{}
	for _, r := range doc.Results {
		if pairs[r.Model.Name] == nil {
			pairs[r.Model.Name] = map[string]string{}
		}
		pairs[r.Model.Name][r.Runtime.Namespace+"/"+r.Runtime.Name] = r.Reason
	}
	if doc.LeftOut != 2 {
		t.Errorf("evaluate match left out %d pairs, want 2 (model-a with runtime-b, model-b with runtime-a)", doc.LeftOut)
	}

	probes := []struct{ model, namespace string }{
		{"model-a", "scope-a"}, {"model-b", "scope-b"},
		{"model-c", "scope-a"}, {"model-c", "scope-b"}, {"model-c", "default"},
	}
	seen := map[string]map[string]bool{}
	excluded := regexp.MustCompile(`Excluded runtimes: (.*)$`)
	checked := regexp.MustCompile(`Checked (\d+) runtimes \((\d+) namespace-scoped, (\d+) cluster-scoped\)`)
	for _, p := range probes {
		isvc := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "ome.io/v1beta1", "kind": "InferenceService",
			"metadata": map[string]any{"name": "scope-probe", "namespace": p.namespace},
			"spec":     map[string]any{"model": map[string]any{"name": p.model}, "engine": map[string]any{}},
		}}
		// The runtimes match pairs the model with, of this namespace
		// and of the cluster: those the webhook must check.
		want := map[string]string{}
		for rt, reason := range pairs[p.model] {
			if ns := strings.Split(rt, "/")[0]; ns == "" || ns == p.namespace {
				want[rt[strings.Index(rt, "/")+1:]] = reason
			}
		}
		var got map[string]string
		err := eventually(20*time.Second, func() error {
			_, err := kube.Create(ctxT(t), isvc, true)
			a := answer(err)
			msg := strings.Join(a.Messages, "\n")
			m := excluded.FindStringSubmatch(msg)
			c := checked.FindStringSubmatch(msg)
			if a.By != "webhook" || m == nil || c == nil {
				return fmt.Errorf("want a refusal that lists the excluded runtimes, got %s %d: %s", a.By, a.Code, a.Raw)
			}
			got = map[string]string{}
			for _, item := range splitExcluded(m[1]) {
				got[item[0]] = item[1]
			}
			if c[1] != fmt.Sprint(len(want)) {
				return fmt.Errorf("the webhook checked %s runtimes, match pairs %d: %s", c[1], len(want), msg)
			}
			return nil
		})
		if err != nil {
			t.Errorf("%s in %s: %v", p.model, p.namespace, err)
			continue
		}
		if !equalReasons(want, got) {
			t.Errorf("%s in %s: the webhook excluded %s; match pairs it with %s", p.model, p.namespace, keysOf(got), keysOf(want))
		}
		if seen[p.model] == nil {
			seen[p.model] = map[string]bool{}
		}
		for rt := range got {
			seen[p.model][rt] = true
		}
		t.Logf("%s in %s: the webhook checked %s, as match pairs them", p.model, p.namespace, keysOf(got))
	}
	// Over every namespace, the ClusterBaseModel meets every runtime.
	if len(seen["model-c"]) != len(pairs["model-c"]) {
		t.Errorf("model-c: the webhooks checked %d runtimes over the namespaces, match pairs it with %d", len(seen["model-c"]), len(pairs["model-c"]))
	}
}

// splitExcluded splits OME's "name (reason); name (reason)" list; a reason
// holds parentheses of its own, so the split follows them.
func splitExcluded(s string) [][2]string {
	var out [][2]string
	for s != "" {
		open := strings.Index(s, " (")
		if open < 0 {
			break
		}
		depth, end := 0, -1
		for i := open + 1; i < len(s); i++ {
			switch s[i] {
			case '(':
				depth++
			case ')':
				depth--
			}
			if depth == 0 {
				end = i
				break
			}
		}
		if end < 0 {
			break
		}
		out = append(out, [2]string{s[:open], s[open+2 : end]})
		s = strings.TrimPrefix(s[end+1:], "; ")
	}
	return out
}

func equalReasons(a, b map[string]string) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

func keysOf(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return "[" + strings.Join(keys, ", ") + "]"
}
