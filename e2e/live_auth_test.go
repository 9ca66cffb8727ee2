package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/ome-policy/evaluator/e2e/cluster"
)

// The namespaces of the credential checks: the service accounts live in
// authNS, the one team's model and runtime in teamNS.
const (
	authNS = "ome-e2e-auth"
	teamNS = "ome-e2e-team-a"
)

var omeResources = []any{"basemodels", "clusterbasemodels", "servingruntimes", "clusterservingruntimes", "inferenceservices"}

func obj(apiVersion, kind, ns, name string, rest map[string]any) *unstructured.Unstructured {
	meta := map[string]any{"name": name}
	if ns != "" {
		meta["namespace"] = ns
	}
	o := map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": meta}
	for k, v := range rest {
		o[k] = v
	}
	return &unstructured.Unstructured{Object: o}
}

func rule(resources ...any) map[string]any {
	return map[string]any{"apiGroups": []any{"ome.io"}, "resources": resources, "verbs": []any{"get", "list"}}
}

func subject(kind, name string) map[string]any {
	s := map[string]any{"kind": kind, "name": name}
	if kind == "ServiceAccount" {
		s["namespace"] = authNS
	} else {
		s["apiGroup"] = "rbac.authorization.k8s.io"
	}
	return s
}

// rbac is who may read what:
//   - reader (a service account) and alice (a user, for --as) may list
//     every OME resource, in every namespace;
//   - team-a (a service account) may list the namespaced ones in teamNS
//     only, and the cluster-scoped ones;
//   - bob (a user) may list nothing, and reader may impersonate no one.
func rbac() []*unstructured.Unstructured {
	const v = "rbac.authorization.k8s.io/v1"
	roleRef := func(kind, name string) map[string]any {
		return map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": kind, "name": name}
	}
	return []*unstructured.Unstructured{
		obj("v1", "Namespace", "", authNS, nil),
		obj("v1", "Namespace", "", teamNS, nil),
		obj("v1", "ServiceAccount", authNS, "reader", nil),
		obj("v1", "ServiceAccount", authNS, "team-a", nil),
		obj(v, "ClusterRole", "", "ome-e2e-reader", map[string]any{"rules": []any{rule(omeResources...)}}),
		obj(v, "ClusterRole", "", "ome-e2e-cluster-scoped", map[string]any{"rules": []any{rule("clusterbasemodels", "clusterservingruntimes")}}),
		obj(v, "ClusterRoleBinding", "", "ome-e2e-reader", map[string]any{"roleRef": roleRef("ClusterRole", "ome-e2e-reader"),
			"subjects": []any{subject("ServiceAccount", "reader"), subject("User", "alice")}}),
		obj(v, "ClusterRoleBinding", "", "ome-e2e-team-a", map[string]any{"roleRef": roleRef("ClusterRole", "ome-e2e-cluster-scoped"),
			"subjects": []any{subject("ServiceAccount", "team-a")}}),
		obj(v, "Role", teamNS, "ome-e2e-team-a", map[string]any{"rules": []any{rule("basemodels", "servingruntimes", "inferenceservices")}}),
		obj(v, "RoleBinding", teamNS, "ome-e2e-team-a", map[string]any{"roleRef": roleRef("Role", "ome-e2e-team-a"),
			"subjects": []any{subject("ServiceAccount", "team-a")}}),
	}
}

// token asks the API server for a service account's token (TokenRequest).
func token(t *testing.T, sa string) string {
	t.Helper()
	gvr := schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}
	req := obj("authentication.k8s.io/v1", "TokenRequest", authNS, sa, map[string]any{"spec": map[string]any{"expirationSeconds": int64(3600)}})
	got, err := kube.Dynamic.Resource(gvr).Namespace(authNS).Create(ctxT(t), req, metav1.CreateOptions{}, "token")
	if err != nil {
		t.Fatalf("a token for %s: %v", sa, err)
	}
	tok, _, _ := unstructured.NestedString(got.Object, "status", "token")
	if tok == "" {
		t.Fatalf("a token for %s: none in %v", sa, got.Object)
	}
	return tok
}

// kubeconfigDir writes files into a new folder and a kubeconfig beside
// them whose one user is user (YAML, indented under `user:`) and whose
// context's namespace is ns.
func kubeconfigDir(t *testing.T, user, ns string, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		mode := os.FileMode(0o600)
		if strings.HasSuffix(name, ".sh") {
			mode = 0o755
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), mode); err != nil {
			t.Fatal(err)
		}
	}
	ca, err := os.ReadFile(filepath.Join(clusterDir, "pki", "ca.crt"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ca.crt"), ca, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
current-context: e2e
clusters:
- name: ome-local
  cluster:
    server: %s
    certificate-authority: ca.crt
users:
- name: e2e-user
  user:
%s
contexts:
- name: e2e
  context: {cluster: ome-local, user: e2e-user, namespace: %s}
`, state.APIServer, user, ns)
	path := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// matchPairs runs `evaluate match -o json` and returns its pairs as
// "model runtime verdict", sorted; it fails the test on an exit of 2.
func matchPairs(t *testing.T, args ...string) []string {
	t.Helper()
	out, errOut, code := run(t, append([]string{"match", "-o", "json"}, args...)...)
	if code > 1 {
		t.Fatalf("evaluate match %s: exit %d: %s", strings.Join(args, " "), code, errOut)
	}
	var res struct {
		Results []struct {
			Model, Runtime struct{ Kind, Namespace, Name string }
			Compatible     bool
		}
	}
	mustJSON(t, []byte(out), &res)
	var pairs []string
	for _, r := range res.Results {
		pairs = append(pairs, fmt.Sprintf("%s/%s %s/%s %v", r.Model.Namespace, r.Model.Name, r.Runtime.Namespace, r.Runtime.Name, r.Compatible))
	}
	sort.Strings(pairs)
	return pairs
}

// refused runs evaluate and wants exit 2 and one line holding each of want.
func refused(t *testing.T, what string, args []string, want ...string) {
	t.Helper()
	_, errOut, code := run(t, args...)
	line := strings.TrimSpace(errOut)
	ok := code == 2 && !strings.Contains(line, "\n")
	for _, w := range want {
		ok = ok && strings.Contains(line, w)
	}
	if !ok {
		t.Errorf("%s: evaluate %s: want exit 2 and one line with %q, got exit %d:\n%s", what, strings.Join(args, " "), want, code, errOut)
	} else {
		t.Logf("%s: exit 2: %s", what, line)
	}
}

// testLiveCredentials reads the cluster through the built binary with each
// kind of credential a kubeconfig holds, and checks what RBAC refuses.
func testLiveCredentials(t *testing.T) {
	setup := rbac()
	for _, o := range setup {
		if _, err := kube.Apply(ctxT(t), o); err != nil {
			t.Fatalf("%s %s: %v", o.GetKind(), o.GetName(), err)
		}
	}
	// The team's model and runtime, from the examples.
	examples, err := cluster.ReadObjects(
		filepath.Join(repo, "testdata", "examples", "models", "llama-3-2-3b-instruct.yaml"),
		filepath.Join(repo, "testdata", "examples", "runtimes", "vllm-llama-3-2-3b-instruct.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var team []*unstructured.Unstructured
	for _, o := range examples {
		o = o.DeepCopy()
		if o.GetKind() == "ClusterServingRuntime" {
			o.SetKind("ServingRuntime")
		}
		o.SetNamespace(teamNS)
		team = append(team, o)
	}
	team = applyAndReadBack(t, team)
	t.Cleanup(func() {
		deleteAll(t, team)
		// Namespaces stay: without a controller manager, none is ever
		// finalised.
		for i := len(setup) - 1; i >= 0; i-- {
			if setup[i].GetKind() == "Namespace" {
				continue
			}
			if err := kube.Delete(ctxT(t), setup[i]); err != nil {
				t.Errorf("deleting %s %s: %v", setup[i].GetKind(), setup[i].GetName(), err)
			}
		}
	})
	want := matchPairs(t, "--kubeconfig", state.Kubeconfig, "-n", teamNS)
	if len(want) == 0 || !strings.Contains(strings.Join(want, "\n"), teamNS+"/llama-3-2-3b-instruct "+teamNS+"/vllm-llama-3-2-3b-instruct true") {
		t.Fatalf("the admin's read of %s: %q", teamNS, want)
	}
	same := func(what string, args ...string) {
		t.Helper()
		got := matchPairs(t, args...)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: evaluate match %s:\n  %s\nwant what the admin reads:\n  %s", what, strings.Join(args, " "), strings.Join(got, "\n  "), strings.Join(want, "\n  "))
		} else {
			t.Logf("%s: evaluate match %s reads the %d pairs the admin reads", what, strings.Join(args, " "), len(got))
		}
	}
	pki := func(name string) string {
		data, err := os.ReadFile(filepath.Join(clusterDir, "pki", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	reader, teamA := token(t, "reader"), token(t, "team-a")

	// A client certificate and key in files beside the kubeconfig.
	certs := kubeconfigDir(t, "    client-certificate: admin.crt\n    client-key: admin.key", teamNS,
		map[string]string{"admin.crt": pki("admin.crt"), "admin.key": pki("admin.key")})
	same("client certificate", "--kubeconfig", certs)

	// A token file beside the kubeconfig; it wins over an inline token, so
	// that a rotated projected token is read.
	readerKC := kubeconfigDir(t, "    tokenFile: token\n    token: stale-not-a-token", teamNS, map[string]string{"token": reader})
	same("tokenFile", "--kubeconfig", readerKC)

	// An exec plugin named by a path relative to the kubeconfig's folder
	// (the run's working folder is another); its stderr reaches the user.
	plugin := `#!/bin/sh
echo "cred.sh: issuing a token" >&2
printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"%s"}}' "$(cat "$(dirname "$0")/token")"
`
	execKC := kubeconfigDir(t, "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: ./cred.sh\n      interactiveMode: Never", teamNS,
		map[string]string{"cred.sh": plugin, "token": reader})
	same("exec plugin", "--kubeconfig", execKC)
	if _, errOut, _ := run(t, "match", "--kubeconfig", execKC); !strings.Contains(errOut, "cred.sh: issuing a token") {
		t.Errorf("exec plugin: its stderr is not shown: %q", errOut)
	}

	// kubectl's flags alone, without a kubeconfig.
	same("--server, --certificate-authority, --token", "--server", state.APIServer, "--certificate-authority", filepath.Join(filepath.Dir(readerKC), "ca.crt"), "--token", reader, "-n", teamNS)

	// Impersonation: the admin as alice (allowed to list) and as bob (not);
	// reader may not impersonate.
	same("--as alice", "--kubeconfig", state.Kubeconfig, "-n", teamNS, "--as", "alice")
	refused(t, "--as bob", []string{"match", "--kubeconfig", state.Kubeconfig, "-n", teamNS, "--as", "bob"},
		`evaluate: the cluster of context "ome-local" forbids user "bob" to list basemodels.ome.io in namespace "`+teamNS+`" (403 Forbidden)`,
		`kubectl auth can-i list basemodels.ome.io -n `+teamNS+` --context ome-local --as bob`)
	refused(t, "reader --as alice", []string{"match", "--kubeconfig", readerKC, "--as", "alice"},
		`forbids user "system:serviceaccount:`+authNS+`:reader" to impersonate "alice" (--as; 403 Forbidden)`)

	// A user of one namespace: -n (and the context's namespace) work, -A
	// is refused by name.
	teamKC := kubeconfigDir(t, "    tokenFile: token", "default", map[string]string{"token": teamA})
	same("namespace-scoped user, -n", "--kubeconfig", teamKC, "-n", teamNS)
	teamCtxKC := kubeconfigDir(t, "    tokenFile: token", teamNS, map[string]string{"token": teamA})
	same("namespace-scoped user, the context's namespace", "--kubeconfig", teamCtxKC)
	refused(t, "namespace-scoped user, -A", []string{"match", "--kubeconfig", teamKC, "-A"},
		`evaluate: the cluster of context "e2e" forbids user "system:serviceaccount:`+authNS+`:team-a" to list basemodels.ome.io in every namespace (403 Forbidden)`,
		`kubectl auth can-i list basemodels.ome.io -A --context e2e`)
	refused(t, "namespace-scoped user, another namespace", []string{"select", "--kubeconfig", teamKC},
		`forbids user "system:serviceaccount:`+authNS+`:team-a" to list basemodels.ome.io in namespace "default" (403 Forbidden)`)
}

// pagingRuntimes is how many ClusterServingRuntimes testLivePaging creates:
// 3 pages of 500, or OME_E2E_PAGING_RUNTIMES (10000 for a large cluster in
// its FIGURE lines: 20 pages, some four minutes to create and delete).
var pagingRuntimes = func() int {
	if n, err := strconv.Atoi(os.Getenv("OME_E2E_PAGING_RUNTIMES")); err == nil && n > 0 {
		return n
	}
	return 1200
}()

// testLivePaging creates pagingRuntimes ClusterServingRuntimes, checks that
// evaluate reads them all, 500 a page, and measures how long a read takes.
func testLivePaging(t *testing.T) {
	examples, err := cluster.ReadObjects(filepath.Join(repo, "testdata", "examples", "runtimes", "vllm-llama-3-2-3b-instruct.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	gvr := schema.GroupVersionResource{Group: "ome.io", Version: "v1beta1", Resource: "clusterservingruntimes"}
	ri := kube.Dynamic.Resource(gvr)
	const label = "ome-e2e-paging"
	name := func(i int) string { return fmt.Sprintf("ome-e2e-page-%05d", i) }
	// One object a request, 16 at a time: a DeleteCollection of them all
	// outlives the API server's request timeout.
	t.Cleanup(func() {
		start := time.Now()
		err := parallel(pagingRuntimes, func(i int) error {
			err := ri.Delete(ctxT(t), name(i), metav1.DeleteOptions{})
			if apierrors.IsNotFound(err) {
				return nil
			}
			return err
		})
		if err != nil {
			t.Errorf("deleting the paging runtimes: %v", err)
		} else {
			t.Logf("deleted the %d ClusterServingRuntimes in %.1fs", pagingRuntimes, time.Since(start).Seconds())
		}
	})

	start := time.Now()
	err = parallel(pagingRuntimes, func(i int) error {
		o := examples[0].DeepCopy()
		o.SetName(name(i))
		o.SetLabels(map[string]string{label: "true"})
		_, err := ri.Create(ctxT(t), o, metav1.CreateOptions{FieldManager: "ome-e2e"})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("created %d ClusterServingRuntimes in %.1fs", pagingRuntimes, time.Since(start).Seconds())
	all, err := ri.List(ctxT(t), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	total := len(all.Items)
	pages := (total + 499) / 500

	// Gatekeeper (its audit lists every runtime every few seconds) is
	// paused while the API server's count of LIST requests is read around
	// one run, and while the runs are timed.
	resume := pauseGatekeeper(t)
	before := settledListRequests(t)
	model := filepath.Join(repo, "testdata", "examples", "models", "llama-3-2-3b-instruct.yaml")
	pairs := matchPairs(t, "-m", model, "--kubeconfig", state.Kubeconfig, "-n", "ome-e2e-empty")
	lists := listRequests(t) - before
	read := 0
	for _, p := range pairs {
		if strings.HasPrefix(p, "llama-demo/llama-3-2-3b-instruct /ome-e2e-page-") {
			read++
		}
	}
	if read != pagingRuntimes {
		t.Errorf("evaluate match read %d of the %d paging runtimes", read, pagingRuntimes)
	}
	if lists != pages {
		t.Errorf("evaluate match listed the %d ClusterServingRuntimes in %d requests; want %d pages of 500", total, lists, pages)
	} else {
		t.Logf("evaluate match read the %d ClusterServingRuntimes in %d LIST requests (500 a page)", total, lists)
	}

	// The figures, each the median of 5: the same pages listed by
	// client-go in this process (the API server's share), a run that lists
	// every resource, loads the objects and stops (no InferenceService in
	// the namespace), and a run of match on one model.
	median := func(what string, f func() error) {
		var took []time.Duration
		for i := 0; i < 5; i++ {
			start := time.Now()
			if err := f(); err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			took = append(took, time.Since(start))
		}
		sort.Slice(took, func(i, j int) bool { return took[i] < took[j] })
		t.Logf("FIGURE %s, %d ClusterServingRuntimes in %d pages: median %.0f ms (min %.0f, max %.0f, 5 runs)", what, total, pages, ms(took[2]), ms(took[0]), ms(took[4]))
	}
	median("client-go lists them (500 a page, in-process)", func() error {
		opts := metav1.ListOptions{Limit: 500}
		for {
			l, err := ri.List(ctxT(t), opts)
			if err != nil {
				return err
			}
			if opts.Continue = l.GetContinue(); opts.Continue == "" {
				return nil
			}
		}
	})
	evaluateRun := func(code int, args ...string) func() error {
		return func() error {
			if _, errOut, c := run(t, args...); c != code {
				return fmt.Errorf("evaluate %s: exit %d, want %d: %s", strings.Join(args, " "), c, code, errOut)
			}
			return nil
		}
	}
	median("evaluate select --kubeconfig KC -n ome-e2e-empty reads and loads them (whole process)", evaluateRun(0, "select", "--kubeconfig", state.Kubeconfig, "-n", "ome-e2e-empty"))
	median("evaluate match -m MODEL --kubeconfig KC matches one model against them (whole process)", evaluateRun(0, "match", "-m", model, "--kubeconfig", state.Kubeconfig, "-n", "ome-e2e-empty"))
	resume()
}

// pauseGatekeeper stops Gatekeeper's manager (SIGSTOP) until the returned
// function, or the end of the test, resumes it.
func pauseGatekeeper(t *testing.T) (resume func()) {
	t.Helper()
	pid := processPid(t, "gatekeeper")
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	resume = func() { once.Do(func() { _ = syscall.Kill(pid, syscall.SIGCONT) }) }
	t.Cleanup(resume)
	return resume
}

// parallel calls f(0) ... f(n-1), 16 at a time, and returns the first error.
func parallel(n int, f func(i int) error) error {
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	next := make(chan int)
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := f(i); err != nil {
					once.Do(func() { first = fmt.Errorf("#%d: %w", i, err) })
				}
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	return first
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// settledListRequests is listRequests once it holds still for a second: a
// page that Gatekeeper's audit asked for just before it was paused is
// counted when the API server has served it, which may be after the pause.
func settledListRequests(t *testing.T) int {
	t.Helper()
	n := listRequests(t)
	for range 30 {
		time.Sleep(time.Second)
		m := listRequests(t)
		if m == n {
			return n
		}
		n = m
	}
	t.Fatalf("the API server's count of LIST requests of ClusterServingRuntimes still moves with Gatekeeper paused")
	return 0
}

// listRequests is the API server's count of LIST requests of
// ClusterServingRuntimes (apiserver_request_total).
func listRequests(t *testing.T) int {
	t.Helper()
	metrics, err := kube.Raw(ctxT(t), "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(string(metrics), "\n") {
		if !strings.HasPrefix(line, "apiserver_request_total{") || !strings.Contains(line, `resource="clusterservingruntimes"`) || !strings.Contains(line, `verb="LIST"`) {
			continue
		}
		var v float64
		if _, err := fmt.Sscan(line[strings.LastIndex(line, " ")+1:], &v); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		n += int(v)
	}
	return n
}
