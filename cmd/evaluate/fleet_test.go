package main

import (
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ome-policy/evaluator/input"
)

// fakeAPIServer is an API server of OME's lists (path -> items) and a
// kube-system namespace of the UID uid ("": none), which counts the
// requests it is sent, by path.
type fakeAPIServer struct {
	srv   *httptest.Server
	uid   string
	lists map[string][]any
	// forbid refuses every list, as a user without the right sees it.
	forbid bool
	mu     sync.Mutex
	hits   map[string]int
}

func newFakeAPIServer(t *testing.T, uid string, lists map[string][]any) *fakeAPIServer {
	t.Helper()
	f := &fakeAPIServer{uid: uid, lists: lists, hits: map[string]int{}}
	f.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.hits[r.URL.Path]++
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		status := func(code int, reason, msg string) {
			w.WriteHeader(code)
			_ = json.NewEncoder(w).Encode(map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": reason, "code": code, "message": msg})
		}
		switch {
		case r.URL.Path == "/api/v1/namespaces/kube-system" && f.uid != "":
			_ = json.NewEncoder(w).Encode(map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "kube-system", "uid": f.uid}})
		case !strings.HasPrefix(r.URL.Path, "/apis/ome.io/v1beta1/"):
			status(http.StatusNotFound, "NotFound", "the server could not find the requested resource")
		case f.forbid:
			status(http.StatusForbidden, "Forbidden", `basemodels.ome.io is forbidden: User "bob" cannot list resource "basemodels" in API group "ome.io"`)
		default:
			items := f.lists[r.URL.Path]
			if items == nil {
				items = []any{}
			}
			_ = json.NewEncoder(w).Encode(map[string]any{"apiVersion": "ome.io/v1beta1", "kind": "List", "metadata": map[string]any{}, "items": items})
		}
	}))
	t.Cleanup(f.srv.Close)
	return f
}

// listed is how many times each OME resource was listed.
func (f *fakeAPIServer) listed() map[string]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]int{}
	for p, n := range f.hits {
		if strings.HasPrefix(p, "/apis/ome.io/") {
			out[p] = n
		}
	}
	return out
}

// fleetKubeconfig writes a kubeconfig whose contexts (name -> server URL)
// each have a cluster of their own, with the CA of every fake server.
func fleetKubeconfig(t *testing.T, contexts map[string]string, servers ...*fakeAPIServer) string {
	t.Helper()
	dir := t.TempDir()
	var ca []byte
	for _, s := range servers {
		ca = append(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.srv.Certificate().Raw})...)
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ca.crt"), ca, 0o600))
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: Config\ncurrent-context: ''\nusers:\n- name: tester\n  user: {token: t}\nclusters:\n")
	for name, server := range contexts {
		fmt.Fprintf(&b, "- name: %s\n  cluster: {server: %q, certificate-authority: ca.crt}\n", name, server)
	}
	b.WriteString("contexts:\n")
	for name := range contexts {
		fmt.Fprintf(&b, "- name: %s\n  context: {cluster: %s, user: tester, namespace: llama-demo}\n", name, name)
	}
	path := filepath.Join(dir, "config")
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o600))
	return path
}

// closedPort is the URL of a port that nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return "https://" + addr
}

// exampleLists are the examples' model and runtimes as a cluster lists them.
func exampleLists(t *testing.T) map[string][]any {
	t.Helper()
	lists := map[string][]any{}
	for _, f := range []string{"models/llama-3-2-3b-instruct.yaml", "runtimes/vllm-llama-3-2-3b-instruct.yaml", "runtimes/srt-mistral-7b-instruct.yaml", "select/inferenceservices.yaml"} {
		in := &input.Result{}
		in.Read([]string{at("testdata/examples/" + f)}, input.ReadOptions{})
		require.Empty(t, in.Problems)
		for _, o := range in.Objects {
			path := "/apis/ome.io/v1beta1/" + strings.ToLower(o.Kind) + "s"
			if o.Namespace != "" {
				path = "/apis/ome.io/v1beta1/namespaces/" + o.Namespace + "/" + strings.ToLower(o.Kind) + "s"
			}
			lists[path] = append(lists[path], o.Value)
			if o.Namespace != "" { // and in the list of every namespace (-A)
				all := "/apis/ome.io/v1beta1/" + strings.ToLower(o.Kind) + "s"
				lists[all] = append(lists[all], o.Value)
			}
		}
	}
	return lists
}

// Three contexts, two of them reaching the same API server and one whose
// server is down: the shared cluster is read once and its results carry
// it, named by both contexts; the one down is named with its reason, after
// the results; exit 2.
func TestFleetThreeContexts(t *testing.T) {
	prod := newFakeAPIServer(t, "0d5c-prod-uid", exampleLists(t))
	kc := fleetKubeconfig(t, map[string]string{"prod": prod.srv.URL, "prod-admin": prod.srv.URL, "staging": closedPort(t)}, prod)

	for _, format := range []string{"json", "yaml", "text"} {
		t.Run(format, func(t *testing.T) {
			prod.mu.Lock()
			prod.hits = map[string]int{}
			prod.mu.Unlock()
			r := evaluate(t, time.Minute, "", "match", "--kubeconfig", kc, "--context", "prod,staging", "--context", "prod-admin", "-o", format)
			require.Equal(t, 2, r.code, r.stderr)
			// Read once: each resource listed once.
			for path, n := range prod.listed() {
				require.Equal(t, 1, n, "%s listed %d times", path, n)
			}
			require.Len(t, prod.listed(), 4)
			require.Regexp(t, `(?m)^evaluate: cluster staging was not read: cannot reach the cluster of context "staging" at https://127\.0\.0\.1:\d+: .*connection refused$`, r.stderr)
			switch format {
			case "json":
				var doc struct {
					Results []struct {
						Model   struct{ Name string }
						Cluster struct {
							Name, Server, UID string
							Contexts          []string
						}
					}
					Clusters []struct {
						Name, Error string
						Contexts    []string
					}
					Errors []struct{ File, Message string }
				}
				require.NoError(t, json.Unmarshal([]byte(r.stdout), &doc), r.stdout)
				require.Len(t, doc.Results, 2)
				for _, res := range doc.Results {
					require.Equal(t, "prod", res.Cluster.Name)
					require.Equal(t, []string{"prod", "prod-admin"}, res.Cluster.Contexts)
					require.Equal(t, prod.srv.URL, res.Cluster.Server)
					require.Equal(t, "0d5c-prod-uid", res.Cluster.UID)
				}
				require.Len(t, doc.Clusters, 2)
				require.Equal(t, "prod", doc.Clusters[0].Name)
				require.Empty(t, doc.Clusters[0].Error)
				require.Equal(t, "staging", doc.Clusters[1].Name)
				require.Contains(t, doc.Clusters[1].Error, "connection refused")
				require.Len(t, doc.Errors, 1)
				require.Equal(t, "cluster staging", doc.Errors[0].File)
			case "yaml":
				require.Contains(t, r.stdout, "  cluster:\n    name: prod\n    contexts:\n      - prod\n      - prod-admin\n")
				require.Contains(t, r.stdout, "clusters:\n  - name: prod\n")
			case "text":
				require.True(t, strings.HasPrefix(r.stdout, "=== cluster prod (contexts prod, prod-admin; server "+prod.srv.URL+"; kube-system UID 0d5c-prod-uid)\nBaseModel llama-demo/llama-3-2-3b-instruct\n"), r.stdout)
				require.NotContains(t, r.stdout, "staging")
			}
		})
	}
}

// select and lint on the same fleet: each decision and finding carries its
// cluster in every format, the cluster down is named, and the run exits 2.
func TestFleetSelectLint(t *testing.T) {
	prod := newFakeAPIServer(t, "0d5c-prod-uid", exampleLists(t))
	dev := newFakeAPIServer(t, "", exampleLists(t))
	kc := fleetKubeconfig(t, map[string]string{"prod": prod.srv.URL, "prod-admin": prod.srv.URL, "dev": dev.srv.URL, "staging": closedPort(t)}, prod, dev)
	fleet := []string{"--kubeconfig", kc, "--context", "prod,prod-admin,dev,staging"}
	run := func(args ...string) result {
		t.Helper()
		r := evaluate(t, time.Minute, "", append(args, fleet...)...)
		require.Equal(t, 2, r.code, r.stderr)
		require.Contains(t, r.stderr, "evaluate: cluster staging was not read: cannot reach")
		return r
	}

	var sel struct {
		Decisions []struct {
			InferenceService struct{ Name string }
			Cluster          struct{ Name, UID string }
		}
		Clusters []struct{ Name, Error string }
	}
	require.NoError(t, json.Unmarshal([]byte(run("select", "-o", "json").stdout), &sel))
	require.Len(t, sel.Decisions, 6)
	for i, d := range sel.Decisions {
		want := "prod"
		if i >= 3 {
			want = "dev"
		}
		require.Equal(t, want, d.Cluster.Name, d.InferenceService.Name)
	}
	require.Equal(t, "0d5c-prod-uid", sel.Decisions[0].Cluster.UID)
	require.Len(t, sel.Clusters, 3)

	text := run("select").stdout
	require.Regexp(t, `(?s)^=== cluster prod \(contexts prod, prod-admin; .*\n\n=== cluster dev \(context dev; server https://[^;]*\)\n`, text)

	var lint struct {
		Findings []struct {
			Rule    string
			Cluster struct{ Name string }
		}
	}
	require.NoError(t, json.Unmarshal([]byte(run("lint", "-o", "json").stdout), &lint))
	clusters := map[string]bool{}
	for _, f := range lint.Findings {
		clusters[f.Cluster.Name] = true
	}
	require.Equal(t, map[string]bool{"prod": true, "dev": true, "staging": true}, clusters)

	var sarif struct {
		Runs []struct {
			Results []struct {
				Message    struct{ Text string }
				Properties struct{ Cluster struct{ Name string } }
			}
		}
	}
	require.NoError(t, json.Unmarshal([]byte(run("lint", "-o", "sarif").stdout), &sarif))
	for _, r := range sarif.Runs[0].Results {
		require.True(t, strings.HasPrefix(r.Message.Text, "cluster "+r.Properties.Cluster.Name+": "), r.Message.Text)
	}
	junit := run("lint", "-o", "junit").stdout
	for _, c := range []string{"prod", "dev", "staging"} {
		require.Contains(t, junit, `<testsuite name="evaluate lint: cluster `+c+`"`)
	}
	gh := run("lint", "-o", "github").stdout
	for _, line := range strings.Split(strings.TrimSpace(gh), "\n") {
		if strings.HasPrefix(line, "::") {
			require.Regexp(t, `title=[^:]* in cluster (prod|dev)::`, line)
		}
	}
	reports := run("select", "-o", "policyreport").stdout
	require.Equal(t, 2, strings.Count(reports, "kind: List"))
	require.Contains(t, reports, "evaluate.ome.io/cluster: dev")
}

// diff --cluster on a fleet: each cluster against itself with the file
// applied, the clusters apart; the one down is named, exit 2.
func TestFleetDiff(t *testing.T) {
	prod := newFakeAPIServer(t, "prod-uid", exampleLists(t))
	dev := newFakeAPIServer(t, "dev-uid", exampleLists(t))
	kc := fleetKubeconfig(t, map[string]string{"prod": prod.srv.URL, "dev": dev.srv.URL, "staging": closedPort(t)}, prod, dev)
	change := at("testdata/examples/runtimes/srt-llama-3-2-3b-instruct.yaml")
	for _, format := range []string{"text", "json", "markdown", "github"} {
		r := evaluate(t, time.Minute, "", "diff", "--cluster", "-f", change, "--kubeconfig", kc, "--context", "prod,dev,staging", "-o", format)
		require.Equal(t, 2, r.code, r.stderr)
		require.Contains(t, r.stderr, "evaluate: cluster staging was not read: cannot reach")
		switch format {
		case "text":
			require.Regexp(t, `(?s)^=== cluster prod \(context prod; .*\ncluster prod -> cluster prod with .* applied\n.*\n=== cluster dev \(context dev; .*\ncluster dev -> cluster dev with`, r.stdout)
		case "json":
			var doc struct {
				Diffs []struct {
					Cluster struct{ Name string }
					Old     string
					Models  []any
				}
				Clusters []struct{ Name, Error string }
			}
			require.NoError(t, json.Unmarshal([]byte(r.stdout), &doc), r.stdout)
			require.Len(t, doc.Diffs, 2)
			require.Equal(t, "prod", doc.Diffs[0].Cluster.Name)
			require.Equal(t, "cluster dev", doc.Diffs[1].Old)
			require.NotEmpty(t, doc.Diffs[1].Models)
			require.Len(t, doc.Clusters, 3)
		case "markdown":
			require.Equal(t, 1, strings.Count(r.stdout, "<!-- evaluate diff -->"))
			require.Contains(t, r.stdout, "### What this change does to OME's decisions in cluster dev (context dev; server ")
		case "github":
			require.Contains(t, r.stdout, "title=evaluate diff in cluster dev%3A ")
		}
	}
}

// report on a fleet: one page of every cluster, -o json a report each with
// its cluster; the cluster down is named, exit 2.
func TestFleetReport(t *testing.T) {
	prod := newFakeAPIServer(t, "prod-uid", exampleLists(t))
	kc := fleetKubeconfig(t, map[string]string{"prod": prod.srv.URL, "staging": closedPort(t)}, prod)
	r := evaluate(t, time.Minute, "", "report", "-o", "json", "--kubeconfig", kc, "--all-contexts")
	require.Equal(t, 2, r.code, r.stderr)
	require.Contains(t, r.stderr, "evaluate: cluster staging was not read: cannot reach")
	var doc struct {
		Reports []struct {
			Cluster struct{ Name, UID string }
			Models  []struct{ Name string }
		}
		Clusters []struct{ Name, Error string }
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &doc), r.stdout)
	require.Len(t, doc.Reports, 1)
	require.Equal(t, "prod-uid", doc.Reports[0].Cluster.UID)
	require.Len(t, doc.Reports[0].Models, 1)
	require.Len(t, doc.Clusters, 2)
	require.NotEmpty(t, doc.Clusters[1].Error)

	page := filepath.Join(t.TempDir(), "fleet.html")
	r = evaluate(t, time.Minute, "", "report", "--out", page, "--kubeconfig", kc, "--context", "prod,staging")
	require.Equal(t, 2, r.code, r.stderr)
	data, err := os.ReadFile(page)
	require.NoError(t, err)
	require.Regexp(t, `<script type="application/octet-stream" id="data-fleet">[A-Za-z0-9+/=]{100,}</script>`, string(data))
}

// explain reads one cluster: several contexts are refused by name, before
// any cluster is read.
func TestFleetRefusedByExplain(t *testing.T) {
	prod := newFakeAPIServer(t, "prod-uid", exampleLists(t))
	kc := fleetKubeconfig(t, map[string]string{"prod": prod.srv.URL, "dev": prod.srv.URL}, prod)
	r := evaluate(t, time.Minute, "", "explain", "--kubeconfig", kc, "--context", "prod,dev")
	require.Equal(t, 2, r.code)
	require.Equal(t, "evaluate: --context names 2 contexts, and this command reads one cluster: give one\n", r.stderr)
	require.Empty(t, prod.listed())
	r = evaluate(t, time.Minute, "", "explain", "--kubeconfig", kc, "--all-contexts")
	require.Equal(t, 2, r.code)
	require.Contains(t, r.stderr, "unknown flag: --all-contexts")
}
