package main

import (
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/ome-policy/evaluator/live"
)

// Which flags read the cluster, and what namespaceFlag says, without any
// kubeconfig being read.
func TestClusterFlags(t *testing.T) {
	for _, c := range []struct {
		args    []string
		enabled bool
		ns      string
		name    string // --cluster=NAME
	}{
		{args: nil},
		{args: []string{"-n", "team-a"}, ns: "team-a"},
		{args: []string{"--namespace=team-b", "-A"}, ns: "team-b"},
		{args: []string{"--request-timeout", "5s"}},
		{args: []string{"--cluster"}, enabled: true},
		{args: []string{"--cluster", "-n", "x"}, enabled: true, ns: "x"},
		{args: []string{"--cluster=prod"}, enabled: true, name: "prod"},
		{args: []string{"--kubeconfig", "k"}, enabled: true},
		{args: []string{"--context", "c"}, enabled: true},
		{args: []string{"--user", "u"}, enabled: true},
		{args: []string{"-s", "https://127.0.0.1:6443"}, enabled: true},
		{args: []string{"--server", "https://127.0.0.1:6443"}, enabled: true},
		{args: []string{"--token", "t"}, enabled: true},
		{args: []string{"--as", "bob"}, enabled: true},
		{args: []string{"--as-group", "g"}, enabled: true},
		{args: []string{"--as-uid", "1"}, enabled: true},
		{args: []string{"--certificate-authority", "ca.crt"}, enabled: true},
		{args: []string{"--client-certificate", "c.crt", "--client-key", "c.key"}, enabled: true},
		{args: []string{"--insecure-skip-tls-verify"}, enabled: true},
		{args: []string{"--tls-server-name", "api"}, enabled: true},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			var cl clusterOptions
			cmd := &cobra.Command{Use: "x", RunE: func(*cobra.Command, []string) error { return nil }}
			addClusterFlags(cmd, &cl)
			require.NoError(t, cmd.ParseFlags(c.args))
			require.Equal(t, c.enabled, cl.Enabled())
			require.Equal(t, c.ns, cl.NamespaceFlag())
			require.Equal(t, c.name, cl.Cluster.Name)
		})
	}
	// A value of --cluster must follow an = sign.
	var cl clusterOptions
	cmd := &cobra.Command{Use: "x"}
	addClusterFlags(cmd, &cl)
	require.NoError(t, cmd.ParseFlags([]string{"--cluster", "prod"}))
	require.True(t, cl.Enabled())
	require.Equal(t, "", cl.Cluster.Name)
	require.Equal(t, []string{"prod"}, cmd.Flags().Args())
}

// `evaluate match --help` shows kubectl's flags, apart from the command's.
func TestClusterFlagsHelp(t *testing.T) {
	for _, command := range []string{"match", "select", "explain", "lint", "report", "gatekeeper violations"} {
		r := evaluate(t, time.Minute, "", append(strings.Fields(command), "--help")...)
		require.Equal(t, 0, r.code)
		_, cluster, ok := strings.Cut(r.stdout, "\nCluster Flags (kubectl's; each but -n, -A and --request-timeout implies --cluster):\n")
		require.True(t, ok, "%s --help:\n%s", command, r.stdout)
		for _, f := range []string{"--kubeconfig", "--context", "--cluster[=NAME]", "--user", "-n, --namespace", "-A, --all-namespaces", "--as ", "--as-group",
			"--as-uid", "--token", "-s, --server", "--certificate-authority", "--insecure-skip-tls-verify", "--request-timeout"} {
			require.Contains(t, cluster, f, command)
		}
		require.NotContains(t, cluster, "--output", command)
		require.NotContains(t, cluster, "--cache-dir", command)
	}
}

// A run that reads only files reads no kubeconfig (and so builds no
// client): the kubeconfig is a named pipe, whose opening would block the run.
func TestFilesOnlyReadNoKubeconfig(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "kubeconfig")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	home := filepath.Join(dir, "home")
	require.NoError(t, os.MkdirAll(filepath.Join(home, ".kube"), 0o700))
	require.NoError(t, syscall.Mkfifo(filepath.Join(home, ".kube", "config"), 0o600))
	t.Setenv("KUBECONFIG", fifo)
	t.Setenv("HOME", home)
	t.Setenv("KUBERNETES_SERVICE_HOST", "127.0.0.1")
	t.Setenv("KUBERNETES_SERVICE_PORT", "1")

	r := evaluate(t, 30*time.Second, "", "match", "-m", exModels, "-r", exRuntimes, "-n", "llama-demo", "-A", "--request-timeout", "1s")
	require.Equal(t, 0, r.code, r.stderr)
	r = evaluate(t, 30*time.Second, "", "select", "-R", "-f", at("testdata/examples"))
	require.Equal(t, 1, r.code, r.stderr)
	r = evaluate(t, 30*time.Second, "", "lint", at("testdata/examples/runtimes"))
	require.Less(t, r.code, 2, r.stderr)

	// The pipe does catch a read: with --cluster the run opens it.
	opened := make(chan struct{})
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err == nil {
			close(opened)
			_, _ = f.WriteString("not: [a kubeconfig")
			f.Close()
		}
	}()
	r = evaluate(t, 30*time.Second, "", "match", "-m", exModels, "-r", exRuntimes, "--cluster")
	require.Equal(t, 2, r.code)
	require.Contains(t, r.stderr, "evaluate: kubeconfig: ")
	select {
	case <-opened:
	case <-time.After(5 * time.Second):
		t.Fatal("with --cluster, the kubeconfig was not read")
	}
}

// fakeCluster serves lists of OME's resources by path, and refuses what
// forbid names (path -> user).
func fakeCluster(t *testing.T, lists map[string][]any, forbid map[string]string) (kubeconfig string) {
	t.Helper()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if user, ok := forbid[r.URL.Path]; ok {
			w.WriteHeader(http.StatusForbidden)
			_ = json.NewEncoder(w).Encode(map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "Forbidden", "code": 403,
				"message": fmt.Sprintf("forbidden: User %q cannot list resource", user)})
			return
		}
		items := lists[r.URL.Path]
		if items == nil {
			items = []any{}
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"apiVersion": "ome.io/v1beta1", "kind": "List", "metadata": map[string]any{}, "items": items})
	}))
	t.Cleanup(srv.Close)
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ca.crt"), ca, 0o600))
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
current-context: test
clusters:
- name: test
  cluster: {server: %q, certificate-authority: ca.crt}
users:
- name: tester
  user: {token: t}
contexts:
- name: test
  context: {cluster: test, user: tester, namespace: llama-demo}
`, srv.URL)
	path := filepath.Join(dir, "config")
	require.NoError(t, os.WriteFile(path, []byte(cfg), 0o600))
	return path
}

func readYAML(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var v map[string]any
	require.NoError(t, yaml.Unmarshal(data, &v))
	return v
}

// The cluster's objects come after the files': on the same kind, namespace
// and name, the cluster's copy wins.
func TestClusterCopyWins(t *testing.T) {
	file := at("testdata/examples/runtimes/vllm-llama-3-2-3b-instruct.yaml")
	rt := readYAML(t, file)
	rt["spec"].(map[string]any)["disabled"] = true
	kc := fakeCluster(t, map[string][]any{"/apis/ome.io/v1beta1/clusterservingruntimes": {rt}}, nil)

	var in inputOptions
	cmd := &cobra.Command{Use: "x"}
	addInputFlags(cmd, &in, false)
	require.NoError(t, cmd.ParseFlags([]string{"--kubeconfig", kc, "-f", file}))
	input, err := in.read(cmd, live.Runtimes, false, nil)
	require.NoError(t, err)
	require.Empty(t, input.Problems)
	require.Len(t, input.Objects, 1)
	kept := input.Objects
	require.Equal(t, "cluster test: clusterservingruntimes", kept[0].File)
	require.Len(t, input.Replaced, 1)
	require.Equal(t, file, input.Replaced[0].File)
	require.Equal(t, true, kept[0].Spec()["disabled"])
}

// A large cluster loads: each object is a document of its own, so the
// loader's limit of nodes per document applies to each, not to the whole
// list (8,000 of these runtimes are well over a million nodes).
func TestClusterManyObjects(t *testing.T) {
	rt := readYAML(t, at("testdata/examples/runtimes/vllm-llama-3-2-3b-instruct.yaml"))
	var items []any
	for i := 0; i < 8000; i++ {
		meta := map[string]any{"name": fmt.Sprintf("rt-%04d", i)}
		items = append(items, map[string]any{"metadata": meta, "spec": rt["spec"]})
	}
	kc := fakeCluster(t, map[string][]any{"/apis/ome.io/v1beta1/clusterservingruntimes": items}, nil)
	var in inputOptions
	cmd := &cobra.Command{Use: "x"}
	addInputFlags(cmd, &in, false)
	require.NoError(t, cmd.ParseFlags([]string{"--kubeconfig", kc}))
	input, err := in.read(cmd, []live.Resource{live.ClusterServingRuntimes}, false, nil)
	require.NoError(t, err)
	require.Empty(t, input.Problems)
	objs := input.Objects
	require.Len(t, objs, 8000)
	require.Equal(t, "rt-7999", objs[7999].Name)
	require.Equal(t, "ClusterServingRuntime", objs[7999].Kind)
}

// A refusal is exit 2 and one line naming the user, the resource, the
// namespace and the check.
func TestClusterRefusal(t *testing.T) {
	kc := fakeCluster(t, nil, map[string]string{"/apis/ome.io/v1beta1/namespaces/team-a/basemodels": "alice"})
	r := evaluate(t, time.Minute, "", "match", "--kubeconfig", kc, "-n", "team-a")
	require.Equal(t, 2, r.code)
	require.Equal(t, `evaluate: the cluster of context "test" forbids user "alice" to list basemodels.ome.io in namespace "team-a" (403 Forbidden): ask for the right, and check it with: kubectl auth can-i list basemodels.ome.io -n team-a --context test`+"\n", r.stderr)
}
