package live

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// fakeAPI is an API server that serves OME's group (unless noOME), lists
// from items, pages of two, and wants the bearer token "secret".
type fakeAPI struct {
	noOME bool
	items map[string][]map[string]any // path -> items
	paths []string                    // requested paths, in order
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.paths = append(f.paths, r.URL.Path)
	if r.Header.Get("Authorization") != "Bearer secret" {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"kind":"Status","message":"Unauthorized"}`))
		return
	}
	if r.URL.Path == "/apis/ome.io/v1beta1" {
		if f.noOME {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte(`{"resources":[{"name":"basemodels"},{"name":"clusterbasemodels"},{"name":"servingruntimes"},{"name":"clusterservingruntimes"},{"name":"inferenceservices"}]}`))
		return
	}
	items, ok := f.items[r.URL.Path]
	if !ok {
		items = []map[string]any{}
	}
	start := 0
	if c := r.URL.Query().Get("continue"); c != "" {
		_, _ = fmt.Sscan(c, &start)
	}
	end := min(start+2, len(items))
	page := map[string]any{"items": items[start:end], "metadata": map[string]any{}}
	if end < len(items) {
		page["metadata"] = map[string]any{"continue": fmt.Sprint(end)}
	}
	_ = json.NewEncoder(w).Encode(page)
}

func writeKubeconfig(t *testing.T, srv *httptest.Server, extraUser string) string {
	t.Helper()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ca.crt"), ca, 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "token"), []byte("secret\n"), 0o600))
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
current-context: dev
clusters:
- name: local
  cluster: {server: %q, certificate-authority: ca.crt}
users:
- name: file-token
  user: {tokenFile: token}
- name: inline
  user: {token: secret}
- name: wrong
  user: {token: nope}
%s
contexts:
- name: dev
  context: {cluster: local, user: file-token, namespace: team-a}
- name: other
  context: {cluster: local, user: inline}
- name: refused
  context: {cluster: local, user: wrong}
- name: plugin
  context: {cluster: local, user: plugin}
`, srv.URL, extraUser)
	path := filepath.Join(dir, "config")
	require.NoError(t, os.WriteFile(path, []byte(cfg), 0o600))
	return path
}

func TestFetch(t *testing.T) {
	api := &fakeAPI{items: map[string][]map[string]any{
		"/apis/ome.io/v1beta1/namespaces/team-a/basemodels": {
			{"metadata": map[string]any{"name": "a", "namespace": "team-a", "managedFields": []any{1}}},
			{"metadata": map[string]any{"name": "b", "namespace": "team-a"}},
			{"metadata": map[string]any{"name": "c", "namespace": "team-a"}},
		},
		"/apis/ome.io/v1beta1/clusterservingruntimes": {{"metadata": map[string]any{"name": "r"}}},
	}}
	srv := httptest.NewTLSServer(api)
	defer srv.Close()
	kc := writeKubeconfig(t, srv, "")

	lists, err := Fetch(context.Background(), Options{Kubeconfig: kc}, []Resource{BaseModels, ClusterServingRuntimes})
	require.NoError(t, err)
	require.Len(t, lists, 2)
	require.Equal(t, "cluster dev: basemodels in team-a", lists[0].Name)
	var l struct {
		Kind  string
		Items []map[string]any
	}
	require.NoError(t, json.Unmarshal(lists[0].Data, &l))
	require.Equal(t, "List", l.Kind)
	require.Len(t, l.Items, 3, "every page")
	for _, it := range l.Items {
		require.Equal(t, "ome.io/v1beta1", it["apiVersion"])
		require.Equal(t, "BaseModel", it["kind"])
		require.NotContains(t, it["metadata"], "managedFields")
	}
	require.Equal(t, "cluster dev: clusterservingruntimes", lists[1].Name)

	// -n, -A and --context.
	api.paths = nil
	_, err = Fetch(context.Background(), Options{Kubeconfig: kc, Context: "other", Namespace: "team-b"}, []Resource{ServingRuntimes})
	require.NoError(t, err)
	require.Contains(t, api.paths, "/apis/ome.io/v1beta1/namespaces/team-b/servingruntimes")
	api.paths = nil
	_, err = Fetch(context.Background(), Options{Kubeconfig: kc, AllNamespaces: true}, []Resource{InferenceServices})
	require.NoError(t, err)
	require.Contains(t, api.paths, "/apis/ome.io/v1beta1/inferenceservices")
	// $KUBECONFIG, a list whose missing files are skipped.
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "missing")+string(filepath.ListSeparator)+kc)
	_, err = Fetch(context.Background(), Options{}, []Resource{BaseModels})
	require.NoError(t, err)
}

func TestFetchExecPlugin(t *testing.T) {
	srv := httptest.NewTLSServer(&fakeAPI{})
	defer srv.Close()
	script := filepath.Join(t.TempDir(), "cred.sh")
	require.NoError(t, os.WriteFile(script, []byte("#!/bin/sh\necho '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\"status\":{\"token\":\"secret\"}}'\n"), 0o755))
	kc := writeKubeconfig(t, srv, fmt.Sprintf("- name: plugin\n  user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: %q}}", script))
	_, err := Fetch(context.Background(), Options{Kubeconfig: kc, Context: "plugin"}, []Resource{BaseModels})
	require.NoError(t, err)
}

// Each failure is one line that says what is wrong.
func TestFetchErrors(t *testing.T) {
	api := &fakeAPI{}
	srv := httptest.NewTLSServer(api)
	defer srv.Close()
	kc := writeKubeconfig(t, srv, "")

	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := "https://" + l.Addr().String()
	require.NoError(t, l.Close())
	unreachable := filepath.Join(t.TempDir(), "config")
	require.NoError(t, os.WriteFile(unreachable, []byte(`{"current-context":"x","clusters":[{"name":"c","cluster":{"server":"`+closed+`"}}],"contexts":[{"name":"x","context":{"cluster":"c"}}]}`), 0o600))
	badCA := filepath.Join(t.TempDir(), "config")
	require.NoError(t, os.WriteFile(badCA, []byte(`{"current-context":"x","clusters":[{"name":"c","cluster":{"server":"https://127.0.0.1:1","certificate-authority-data":"`+base64.StdEncoding.EncodeToString([]byte("not pem"))+`"}}],"contexts":[{"name":"x","context":{"cluster":"c"}}]}`), 0o600))

	for _, c := range []struct {
		name string
		opts Options
		ome  bool
		want string
	}{
		{"unreachable", Options{Kubeconfig: unreachable}, true, `cannot reach the cluster of context "x" at ` + closed},
		{"refused credentials", Options{Kubeconfig: kc, Context: "refused"}, true, `the cluster of context "refused" refused the credentials (401 Unauthorized)`},
		{"no OME CRDs", Options{Kubeconfig: kc}, false, `the cluster of context "dev" has no OME CRDs (ome.io/v1beta1 is not served): install OME's CRDs`},
		{"unknown context", Options{Kubeconfig: kc, Context: "prod"}, true, `context "prod" is not in the kubeconfig`},
		{"missing kubeconfig", Options{Kubeconfig: filepath.Join(t.TempDir(), "none")}, true, "kubeconfig "},
		{"bad CA", Options{Kubeconfig: badCA}, true, `context "x": the certificate authority holds no PEM certificate`},
	} {
		t.Run(c.name, func(t *testing.T) {
			api.noOME = !c.ome
			_, err := Fetch(context.Background(), c.opts, Models)
			require.Error(t, err)
			require.Contains(t, err.Error(), c.want)
			require.NotContains(t, err.Error(), "\n")
		})
	}
}
