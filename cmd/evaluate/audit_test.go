package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
	"k8s.io/kube-openapi/pkg/validation/validate"
)

// reportStore is what a fake API server holds of the reports' kinds
// (served lists whether their group is): path -> object.
type reportStore struct {
	mu      sync.Mutex
	served  map[string]bool
	objects map[string]map[string]any
	applies []string // the paths of the applies, in order
}

// serve answers the report kinds' requests; false for any other path.
func (s *reportStore) serve(w http.ResponseWriter, r *http.Request) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for gv := range s.served {
		prefix := "/apis/" + gv
		if !strings.HasPrefix(r.URL.Path, prefix) {
			continue
		}
		w.Header().Set("Content-Type", "application/json")
		rest := strings.TrimPrefix(r.URL.Path, prefix)
		dry := r.URL.Query().Get("dryRun") == "All"
		switch {
		case rest == "":
			_ = json.NewEncoder(w).Encode(map[string]any{"kind": "APIResourceList", "groupVersion": gv})
		case r.Method == http.MethodPatch:
			if r.Header.Get("Content-Type") != "application/apply-patch+yaml" || r.URL.Query().Get("fieldManager") != "evaluate" {
				w.WriteHeader(http.StatusBadRequest)
				return true
			}
			body, _ := io.ReadAll(r.Body)
			var obj map[string]any
			if err := json.Unmarshal(body, &obj); err != nil {
				w.WriteHeader(http.StatusBadRequest)
				return true
			}
			if !dry {
				s.objects[r.URL.Path] = obj
				s.applies = append(s.applies, r.URL.Path)
			}
			_ = json.NewEncoder(w).Encode(obj)
		case r.Method == http.MethodDelete:
			if !dry {
				delete(s.objects, r.URL.Path)
			}
			_ = json.NewEncoder(w).Encode(map[string]any{"kind": "Status", "status": "Success"})
		default: // a list: of one namespace, or of every one
			var items []any
			plural := rest[strings.LastIndex(rest, "/")+1:]
			for p, o := range s.objects {
				labels, _ := o["metadata"].(map[string]any)["labels"].(map[string]any)
				inNamespace := !strings.Contains(rest, "/namespaces/") || strings.HasPrefix(p, r.URL.Path+"/")
				if !strings.HasPrefix(p, prefix) || !strings.HasSuffix(p[:strings.LastIndex(p, "/")], "/"+plural) ||
					!inNamespace || labels["app.kubernetes.io/managed-by"] != "evaluate" {
					continue
				}
				items = append(items, o)
			}
			if items == nil {
				items = []any{}
			}
			_ = json.NewEncoder(w).Encode(map[string]any{"kind": "List", "metadata": map[string]any{}, "items": items})
		}
		return true
	}
	return false
}

func (s *reportStore) names() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for p := range s.objects {
		out = append(out, p)
	}
	return out
}

// auditCluster is a fake cluster of the examples, with the PolicyReport
// and OpenReports CRDs served, and the reports it holds.
func auditCluster(t *testing.T, served ...string) (kubeconfig string, store *reportStore, f *fakeAPIServer) {
	t.Helper()
	store = &reportStore{served: map[string]bool{}, objects: map[string]map[string]any{}}
	for _, gv := range served {
		store.served[gv] = true
	}
	f = newFakeAPIServer(t, "audit-uid", exampleLists(t))
	inner := f.srv.Config.Handler
	f.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !store.serve(w, r) {
			inner.ServeHTTP(w, r)
		}
	})
	return fleetKubeconfig(t, map[string]string{"prod": f.srv.URL}, f), store, f
}

func reportObject(kind, ns, name string, labels map[string]any) map[string]any {
	meta := map[string]any{"name": name, "labels": labels}
	if ns != "" {
		meta["namespace"] = ns
	}
	return map[string]any{"apiVersion": "wgpolicyk8s.io/v1alpha2", "kind": kind, "metadata": meta}
}

// evaluate audit applies lint's and select's reports server-side, deletes
// the stale reports it wrote before, and leaves other tools' alone.
func TestAuditWritesAndPrunes(t *testing.T) {
	kc, store, _ := auditCluster(t, "wgpolicyk8s.io/v1alpha2")
	const pr = "/apis/wgpolicyk8s.io/v1alpha2/namespaces/"
	ours := map[string]any{"app.kubernetes.io/managed-by": "evaluate"}
	store.objects[pr+"gone/policyreports/ome-lint"] = reportObject("PolicyReport", "gone", "ome-lint", ours)
	store.objects[pr+"llama-demo/policyreports/kyverno-pod"] = reportObject("PolicyReport", "llama-demo", "kyverno-pod", map[string]any{"app.kubernetes.io/managed-by": "kyverno"})

	r := evaluate(t, time.Minute, "", "audit", "--kubeconfig", kc, "--context", "prod")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, `clusterpolicyreport.wgpolicyk8s.io/ome-lint serverside-applied
policyreport.wgpolicyk8s.io/ome-lint -n llama-demo serverside-applied
policyreport.wgpolicyk8s.io/ome-runtime-selection -n llama-demo serverside-applied
policyreport.wgpolicyk8s.io/ome-lint -n gone deleted
`, r.stdout)
	require.ElementsMatch(t, []string{
		"/apis/wgpolicyk8s.io/v1alpha2/clusterpolicyreports/ome-lint",
		pr + "llama-demo/policyreports/ome-lint",
		pr + "llama-demo/policyreports/ome-runtime-selection",
		pr + "llama-demo/policyreports/kyverno-pod",
	}, store.names())
	sel := store.objects[pr+"llama-demo/policyreports/ome-runtime-selection"]
	require.Equal(t, "evaluate", sel["metadata"].(map[string]any)["labels"].(map[string]any)["app.kubernetes.io/managed-by"])
	require.Len(t, sel["results"], 4) // three InferenceServices, and a warning on one

	// A dry run on the client writes nothing and prints the reports.
	before := len(store.applies)
	r = evaluate(t, time.Minute, "", "audit", "--kubeconfig", kc, "--context", "prod", "--dry-run=client")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, before, len(store.applies))
	var list struct {
		Kind  string
		Items []struct{ Kind string }
	}
	require.NoError(t, yaml.Unmarshal([]byte(r.stdout), &list), r.stdout)
	require.Equal(t, "List", list.Kind)
	require.Len(t, list.Items, 3)
}

// --format openreports writes Reports and ClusterReports; without the
// CRDs of the format, the run names them and how to install them.
func TestAuditOpenReportsAndMissingCRDs(t *testing.T) {
	kc, store, _ := auditCluster(t, "openreports.io/v1alpha1")
	r := evaluate(t, time.Minute, "", "audit", "--kubeconfig", kc, "--context", "prod", "--format", "openreports")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "report.openreports.io/ome-lint -n llama-demo serverside-applied\n")
	obj := store.objects["/apis/openreports.io/v1alpha1/namespaces/llama-demo/reports/ome-lint"]
	require.Equal(t, "Report", obj["kind"])
	require.Equal(t, "openreports.io/v1alpha1", obj["apiVersion"])

	r = evaluate(t, time.Minute, "", "audit", "--kubeconfig", kc, "--context", "prod")
	require.Equal(t, 2, r.code)
	require.Equal(t, `evaluate: the cluster of context "prod": the CRDs policyreports.wgpolicyk8s.io and clusterpolicyreports.wgpolicyk8s.io are not installed: install Kyverno or Policy Reporter, which ship them, or the CRDs of kubernetes-sigs/wg-policy-prototypes (policy-report/crd/v1alpha2); evaluate does not install them`+"\n", r.stderr)
}

// A fleet's audit writes each cluster's reports into it, annotated with
// the cluster; the cluster that cannot be reached is named, exit 2.
func TestAuditFleet(t *testing.T) {
	_, store, f := auditCluster(t, "wgpolicyk8s.io/v1alpha2")
	kc := fleetKubeconfig(t, map[string]string{"prod": f.srv.URL, "prod-admin": f.srv.URL, "staging": closedPort(t)}, f)
	r := evaluate(t, time.Minute, "", "audit", "--kubeconfig", kc, "--all-contexts")
	require.Equal(t, 2, r.code, r.stderr)
	require.Contains(t, r.stdout, "cluster prod: policyreport.wgpolicyk8s.io/ome-lint -n llama-demo serverside-applied\n")
	require.Contains(t, r.stderr, "evaluate: cluster staging was not read: cannot reach")
	// Read once, written once.
	require.Len(t, store.applies, 3)
	ann := store.objects["/apis/wgpolicyk8s.io/v1alpha2/clusterpolicyreports/ome-lint"]["metadata"].(map[string]any)["annotations"].(map[string]any)
	require.Equal(t, "prod", ann["evaluate.ome.io/cluster"])
	require.Equal(t, "audit-uid", ann["evaluate.ome.io/cluster-uid"])
}

// What audit would write (--dry-run=client prints it) fits the CRDs of
// each format: the PolicyReports Kyverno ships and OpenReports' v0.2.1
// (testdata/openreports), every result with its category.
func TestAuditReportsFitTheCRDs(t *testing.T) {
	kc, _, _ := auditCluster(t, "wgpolicyk8s.io/v1alpha2", "openreports.io/v1alpha1")
	for _, c := range []struct {
		format     string
		validators map[string]*validate.SchemaValidator
		apiVersion string
	}{
		{"wgpolicyk8s", policyReportValidators(t), "wgpolicyk8s.io/v1alpha2"},
		{"openreports", crdValidators(t, "testdata/openreports", "openreports.io", "v1alpha1", "openreports.io_reports.yaml", "openreports.io_clusterreports.yaml"), "openreports.io/v1alpha1"},
	} {
		r := evaluate(t, time.Minute, "", "audit", "--kubeconfig", kc, "--context", "prod", "--format", c.format, "--dry-run=client")
		require.Equal(t, 0, r.code, r.stderr)
		var list struct{ Items []map[string]any }
		require.NoError(t, yaml.Unmarshal([]byte(r.stdout), &list))
		require.Len(t, list.Items, 3, c.format)
		for _, item := range list.Items {
			// Through JSON, as the API server reads what is applied.
			b, err := json.Marshal(item)
			require.NoError(t, err)
			var doc map[string]any
			require.NoError(t, json.Unmarshal(b, &doc))
			require.Equal(t, c.apiVersion, doc["apiVersion"])
			v := c.validators[doc["kind"].(string)]
			require.NotNil(t, v, "kind %v", doc["kind"])
			res := v.Validate(doc)
			require.True(t, res.IsValid(), "%s %v: %v", c.format, doc["metadata"], res.Errors)
			for _, x := range doc["results"].([]any) {
				require.Contains(t, []any{"OME lint", "OME runtime selection"}, x.(map[string]any)["category"])
			}
		}
	}
}
