package live

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/require"
)

// fakeAPI is an API server for OME's group: it lists items (path -> items)
// a page of `limit` at a time, wants the bearer token "secret" (or a client
// certificate), and forbids what forbid says.
type fakeAPI struct {
	mu       sync.Mutex
	noOME    bool
	items    map[string][]map[string]any
	forbid   func(r *http.Request) string // the API server's 403 message, "" to allow
	expire   bool                         // the first continue token has expired
	delay    time.Duration
	warn     string // a Warning header on each list
	requests []*http.Request
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.requests = append(f.requests, r)
	f.mu.Unlock()
	time.Sleep(f.delay)
	status := func(code int, reason, msg string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_ = json.NewEncoder(w).Encode(map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Failure", "message": msg, "reason": reason, "code": code})
	}
	if r.Header.Get("Authorization") != "Bearer secret" && !strings.HasPrefix(r.Header.Get("Authorization"), "Bearer eyJ") && (r.TLS == nil || len(r.TLS.PeerCertificates) == 0) {
		status(http.StatusUnauthorized, "Unauthorized", "Unauthorized")
		return
	}
	if f.forbid != nil {
		if msg := f.forbid(r); msg != "" {
			status(http.StatusForbidden, "Forbidden", msg)
			return
		}
	}
	if f.noOME || !strings.HasPrefix(r.URL.Path, "/apis/ome.io/v1beta1/") {
		status(http.StatusNotFound, "NotFound", "the server could not find the requested resource")
		return
	}
	q := r.URL.Query()
	limit, _ := strconv.Atoi(q.Get("limit"))
	items := f.items[r.URL.Path]
	start := 0
	if c := q.Get("continue"); c != "" {
		if f.expire {
			f.expire = false
			status(http.StatusGone, "Expired", "The provided continue parameter is too old to display a consistent list result.")
			return
		}
		start, _ = strconv.Atoi(c)
	}
	end := len(items)
	if limit > 0 {
		end = min(start+limit, len(items))
	}
	meta := map[string]any{}
	if end < len(items) {
		meta["continue"] = strconv.Itoa(end)
	}
	page := items[start:end]
	if page == nil {
		page = []map[string]any{}
	}
	w.Header().Set("Content-Type", "application/json")
	if f.warn != "" {
		w.Header().Add("Warning", `299 - "`+f.warn+`"`)
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"apiVersion": "ome.io/v1beta1", "kind": "List", "metadata": meta, "items": page})
}

func (f *fakeAPI) paths() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, r := range f.requests {
		out = append(out, r.URL.RequestURI())
	}
	return out
}

func (f *fakeAPI) last() *http.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.requests[len(f.requests)-1]
}

// kubeconfig writes a kubeconfig for srv beside its CA file and a token
// file, with the users and contexts the tests use, and any more users.
func kubeconfig(t *testing.T, srv *httptest.Server, moreUsers string) string {
	t.Helper()
	dir := t.TempDir()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
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
  user: {tokenFile: token, token: stale}
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
- name: extra
  context: {cluster: local, user: extra}
`, srv.URL, moreUsers)
	path := filepath.Join(dir, "config")
	require.NoError(t, os.WriteFile(path, []byte(cfg), 0o600))
	return path
}

// flags are kubectl's flags as the command line --kubeconfig=KUBECONFIG
// ARGS... leaves them.
func flags(t *testing.T, kubeconfig string, args ...string) Flags {
	t.Helper()
	var f Flags
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	f.AddFlags(fs)
	require.NoError(t, fs.Parse(append([]string{"--kubeconfig=" + kubeconfig}, args...)))
	return f
}

func fetch(t *testing.T, f Flags, o Options, rs ...Resource) ([]List, error) {
	t.Helper()
	c, err := Connect(f, o)
	if err != nil {
		return nil, err
	}
	return c.Fetch(context.Background(), rs)
}

func items(n int, ns string) []map[string]any {
	out := make([]map[string]any, n)
	for i := range out {
		meta := map[string]any{"name": fmt.Sprintf("m%04d", i), "managedFields": []any{map[string]any{"manager": "kubectl"}}}
		if ns != "" {
			meta["namespace"] = ns
		}
		out[i] = map[string]any{"metadata": meta, "spec": map[string]any{}}
	}
	return out
}

func TestFetch(t *testing.T) {
	api := &fakeAPI{items: map[string][]map[string]any{
		"/apis/ome.io/v1beta1/namespaces/team-a/basemodels": items(1201, "team-a"),
		"/apis/ome.io/v1beta1/clusterservingruntimes":       items(3, ""),
	}}
	srv := httptest.NewTLSServer(api)
	defer srv.Close()
	kc := kubeconfig(t, srv, "")

	lists, err := fetch(t, flags(t, kc), Options{}, BaseModels, ClusterServingRuntimes)
	require.NoError(t, err)
	require.Equal(t, []string{
		"/apis/ome.io/v1beta1/namespaces/team-a/basemodels?limit=500",
		"/apis/ome.io/v1beta1/namespaces/team-a/basemodels?continue=500&limit=500",
		"/apis/ome.io/v1beta1/namespaces/team-a/basemodels?continue=1000&limit=500",
		"/apis/ome.io/v1beta1/clusterservingruntimes?limit=500",
	}, api.paths(), "500 a page, the context's namespace")
	require.Len(t, lists, 2)
	require.Equal(t, "cluster dev: basemodels in team-a", lists[0].Name)
	require.Equal(t, 1201, lists[0].N)
	docs := strings.Split(string(lists[0].Data), "\n---\n")
	require.Len(t, docs, 1201, "every page, an object a document")
	for i, doc := range docs {
		var it map[string]any
		require.NoError(t, json.Unmarshal([]byte(doc), &it))
		require.Equal(t, "ome.io/v1beta1", it["apiVersion"])
		require.Equal(t, "BaseModel", it["kind"])
		require.Equal(t, fmt.Sprintf("m%04d", i), it["metadata"].(map[string]any)["name"])
		require.NotContains(t, it["metadata"], "managedFields")
	}
	require.Equal(t, "cluster dev: clusterservingruntimes", lists[1].Name)

	// -n and --context; -A.
	api.requests = nil
	lists, err = fetch(t, flags(t, kc, "--context", "other", "-n", "team-b"), Options{}, ServingRuntimes)
	require.NoError(t, err)
	require.Equal(t, []string{"/apis/ome.io/v1beta1/namespaces/team-b/servingruntimes?limit=500"}, api.paths())
	require.Equal(t, "cluster other: servingruntimes in team-b", lists[0].Name)
	api.requests = nil
	_, err = fetch(t, flags(t, kc, "--context", "other"), Options{}, ServingRuntimes)
	require.NoError(t, err)
	require.Equal(t, []string{"/apis/ome.io/v1beta1/namespaces/default/servingruntimes?limit=500"}, api.paths(), "a context without a namespace: default")
	api.requests = nil
	_, err = fetch(t, flags(t, kc), Options{AllNamespaces: true}, InferenceServices)
	require.NoError(t, err)
	require.Equal(t, []string{"/apis/ome.io/v1beta1/inferenceservices?limit=500"}, api.paths())

	// $KUBECONFIG, a list whose missing files are skipped.
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "missing")+string(filepath.ListSeparator)+kc)
	_, err = fetch(t, flags(t, ""), Options{}, BaseModels)
	require.NoError(t, err)
}

// A continue token that expired starts the list again, once.
func TestFetchExpiredContinue(t *testing.T) {
	api := &fakeAPI{expire: true, items: map[string][]map[string]any{"/apis/ome.io/v1beta1/clusterbasemodels": items(5, "")}}
	srv := httptest.NewTLSServer(api)
	defer srv.Close()
	lists, err := fetch(t, flags(t, kubeconfig(t, srv, "")), Options{PageSize: 2}, ClusterBaseModels)
	require.NoError(t, err)
	require.Equal(t, 5, lists[0].N)
	require.Len(t, api.paths(), 1+1+3)
}

func TestCredentials(t *testing.T) {
	api := &fakeAPI{}
	srv := httptest.NewTLSServer(api)
	defer srv.Close()

	// An exec plugin named by a path relative to the kubeconfig's folder,
	// run from another folder.
	kc := kubeconfig(t, srv, `- name: extra
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: ./cred.sh
      interactiveMode: Never`)
	script := "#!/bin/sh\necho '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\"status\":{\"token\":\"secret\"}}'\n"
	require.NoError(t, os.WriteFile(filepath.Join(filepath.Dir(kc), "cred.sh"), []byte(script), 0o755))
	t.Chdir(t.TempDir())
	_, err := fetch(t, flags(t, kc, "--context", "extra"), Options{}, ClusterBaseModels)
	require.NoError(t, err, "exec plugin")

	// tokenFile wins over an inline token (context dev has both).
	_, err = fetch(t, flags(t, kc), Options{}, ClusterBaseModels)
	require.NoError(t, err, "tokenFile")

	// --token replaces the kubeconfig's; --as, --as-group, --as-uid and
	// --as-user-extra impersonate.
	_, err = fetch(t, flags(t, kc, "--context", "refused", "--token", "secret", "--as", "alice", "--as-group", "team-a",
		"--as-uid", "1001", "--as-user-extra", "scopes=view", "--as-user-extra", "scopes=list"), Options{}, ClusterBaseModels)
	require.NoError(t, err, "--token")
	require.Equal(t, "alice", api.last().Header.Get("Impersonate-User"))
	require.Equal(t, "team-a", api.last().Header.Get("Impersonate-Group"))
	require.Equal(t, "1001", api.last().Header.Get("Impersonate-Uid"))
	require.Equal(t, []string{"view", "list"}, api.last().Header.Values("Impersonate-Extra-Scopes"))

	// --server, --certificate-authority and --token without any kubeconfig.
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "none"))
	_, err = fetch(t, flags(t, "", "-s", srv.URL, "--certificate-authority", filepath.Join(filepath.Dir(kc), "ca.crt"), "--token", "secret"), Options{}, ClusterBaseModels)
	require.NoError(t, err, "--server")

	// oidc, the auth-provider compiled in: its id-token while it is valid.
	claims := base64.RawURLEncoding.EncodeToString([]byte(`{"exp":` + strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10) + `}`))
	idToken := "eyJhbGciOiJSUzI1NiJ9." + claims + ".c2ln"
	kc = kubeconfig(t, srv, `- name: extra
  user:
    auth-provider:
      name: oidc
      config: {idp-issuer-url: "https://issuer.example", client-id: evaluate, id-token: "`+idToken+`"}`)
	_, err = fetch(t, flags(t, kc, "--context", "extra"), Options{}, ClusterBaseModels)
	require.NoError(t, err, "oidc")
	require.Equal(t, "Bearer "+idToken, api.last().Header.Get("Authorization"))
}

func TestClientCertificate(t *testing.T) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true, IsCA: true}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	require.NoError(t, err)
	caCert, err := x509.ParseCertificate(caDER)
	require.NoError(t, err)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	der, err := x509.CreateCertificate(rand.Reader, &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "alice"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}, caCert, &key.PublicKey, caKey)
	require.NoError(t, err)
	keyDER, err := x509.MarshalECPrivateKey(key)
	require.NoError(t, err)

	api := &fakeAPI{}
	srv := httptest.NewUnstartedServer(api)
	pool := x509.NewCertPool()
	pool.AddCert(caCert)
	srv.TLS = &tls.Config{ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool}
	srv.StartTLS()
	defer srv.Close()
	kc := kubeconfig(t, srv, `- name: extra
  user: {client-certificate: alice.crt, client-key: alice.key}`)
	dir := filepath.Dir(kc)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "alice.crt"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "alice.key"), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600))
	_, err = fetch(t, flags(t, kc, "--context", "extra"), Options{}, ClusterBaseModels)
	require.NoError(t, err)
	require.Equal(t, "alice", api.last().TLS.PeerCertificates[0].Subject.CommonName)
}

// Each failure is one line that names the cause and the fix.
func TestFetchErrors(t *testing.T) {
	api := &fakeAPI{}
	srv := httptest.NewTLSServer(api)
	defer srv.Close()
	kc := kubeconfig(t, srv, `- name: extra
  user:
    auth-provider: {name: gcp, config: {}}`)
	dir := filepath.Dir(kc)
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(text), 0o600))
		return path
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := "https://" + l.Addr().String()
	require.NoError(t, l.Close())
	unreachable := write("unreachable", `{"current-context":"x","clusters":[{"name":"c","cluster":{"server":"`+closed+`"}}],"contexts":[{"name":"x","context":{"cluster":"c"}}]}`)
	azure := write("azure", strings.Replace(mustRead(t, kc), "name: gcp", "name: azure", 1))
	failing := write("failing", strings.Replace(mustRead(t, kc), "auth-provider: {name: gcp, config: {}}", "exec: {apiVersion: client.authentication.k8s.io/v1, command: ./fail.sh, interactiveMode: Never}", 1))
	write("fail.sh", "#!/bin/sh\necho 'login expired' >&2\nexit 3\n")
	require.NoError(t, os.Chmod(filepath.Join(dir, "fail.sh"), 0o755))
	home := t.TempDir()

	refuse := func(user string) string {
		return fmt.Sprintf(`servingruntimes.ome.io is forbidden: User %q cannot list resource "servingruntimes" in API group "ome.io" in the namespace "team-a"`, user)
	}
	forbidAll := func(*http.Request) string { return refuse("system:serviceaccount:team-a:reader") }
	for _, c := range []struct {
		name string
		args []string     // flags after --kubeconfig=KC
		set  func(*Flags) // what no flag of AddFlags sets
		opts Options
		r    Resource
		api  *fakeAPI
		env  map[string]string
		want string
	}{
		{name: "unreachable", args: []string{"--kubeconfig", unreachable},
			want: `cannot reach the cluster of context "x" at ` + closed + `: dial tcp ` + l.Addr().String() + `: connect: connection refused`},
		{name: "refused credentials", args: []string{"--context", "refused"},
			want: `the cluster of context "refused" refused the credentials of user "wrong" (401 Unauthorized) listing basemodels.ome.io in namespace "default": they are wrong or expired; renew them, then check with: kubectl auth can-i list basemodels.ome.io -n default --context refused`},
		{name: "forbidden in a namespace", api: &fakeAPI{forbid: forbidAll}, r: ServingRuntimes,
			want: `the cluster of context "dev" forbids user "system:serviceaccount:team-a:reader" to list servingruntimes.ome.io in namespace "team-a" (403 Forbidden): ask for the right, and check it with: kubectl auth can-i list servingruntimes.ome.io -n team-a --context dev`},
		{name: "forbidden in every namespace", api: &fakeAPI{forbid: forbidAll}, r: ServingRuntimes, opts: Options{AllNamespaces: true},
			want: `forbids user "system:serviceaccount:team-a:reader" to list servingruntimes.ome.io in every namespace (403 Forbidden): ask for the right, and check it with: kubectl auth can-i list servingruntimes.ome.io -A --context dev`},
		{name: "forbidden cluster-wide, impersonating", api: &fakeAPI{forbid: func(r *http.Request) string { return refuse(r.Header.Get("Impersonate-User")) }}, r: ClusterServingRuntimes,
			args: []string{"--as", "bob"},
			want: `forbids user "bob" to list clusterservingruntimes.ome.io (cluster-scoped) (403 Forbidden): ask for the right, and check it with: kubectl auth can-i list clusterservingruntimes.ome.io --context dev --as bob`},
		{name: "impersonation refused", api: &fakeAPI{forbid: func(r *http.Request) string {
			return `users "alice" is forbidden: User "system:serviceaccount:team-a:reader" cannot impersonate resource "users" in API group "" at the cluster scope`
		}}, args: []string{"--as", "alice"},
			want: `the cluster of context "dev" forbids user "system:serviceaccount:team-a:reader" to impersonate "alice" (--as; 403 Forbidden): users "alice" is forbidden: User "system:serviceaccount:team-a:reader" cannot impersonate resource "users" in API group "" at the cluster scope`},
		{name: "no OME CRDs", api: &fakeAPI{noOME: true},
			want: `the cluster of context "dev" has no OME CRDs (the server doesn't have a resource type "basemodels" in ome.io/v1beta1): OME is not installed in that cluster; install OME, or choose another cluster with --context`},
		{name: "auth-provider gcp", args: []string{"--context", "extra"},
			want: `user "extra" of the cluster of context "extra" authenticates with the auth-provider "gcp", which is not compiled in (only oidc is): use the exec plugin gke-gcloud-auth-plugin`},
		{name: "auth-provider azure", args: []string{"--kubeconfig", azure, "--context", "extra"},
			want: `authenticates with the auth-provider "azure", which is not compiled in (only oidc is): use the exec plugin kubelogin`},
		{name: "failing exec plugin", args: []string{"--kubeconfig", failing, "--context", "extra"},
			want: `the credential plugin of user "extra" of the cluster of context "extra" failed: getting credentials: exec: executable ` + filepath.Join(dir, "fail.sh") + ` failed with exit code 3`},
		{name: "unknown context", args: []string{"--context", "prod"},
			want: `the kubeconfig has no context "prod" (kubectl config get-contexts lists them)`},
		{name: "unknown user", args: []string{"--user", "nobody"},
			want: `the kubeconfig has no user "nobody" (--user; kubectl config get-users lists them)`},
		{name: "unknown cluster", set: func(f *Flags) { f.Overrides.Context.Cluster = "nowhere" },
			want: `the kubeconfig has no cluster "nowhere" (--cluster=NAME; kubectl config get-clusters lists them)`},
		{name: "missing kubeconfig", args: []string{"--kubeconfig", filepath.Join(dir, "none")},
			want: `kubeconfig: stat ` + filepath.Join(dir, "none") + `: no such file or directory`},
		{name: "no kubeconfig at all", args: []string{"--kubeconfig="},
			env:  map[string]string{"KUBECONFIG": "", "HOME": home, "KUBERNETES_SERVICE_HOST": ""},
			want: `no kubeconfig: none at $KUBECONFIG or ~/.kube/config, and not in a pod; give --kubeconfig, set KUBECONFIG, or give --server with credentials`},
		{name: "request timeout", api: &fakeAPI{delay: 2 * time.Second}, args: []string{"--request-timeout", "200ms"},
			want: `the cluster of context "dev" at ` + srv.URL + ` did not answer in time (--request-timeout) listing basemodels.ome.io in namespace "team-a": `},
	} {
		t.Run(c.name, func(t *testing.T) {
			api.mu.Lock()
			api.noOME, api.forbid, api.delay = false, nil, 0
			if c.api != nil {
				api.noOME, api.forbid, api.delay = c.api.noOME, c.api.forbid, c.api.delay
			}
			api.mu.Unlock()
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			f := flags(t, kc, c.args...)
			if c.set != nil {
				c.set(&f)
			}
			r := c.r
			if r.Kind == "" {
				r = BaseModels
			}
			_, err := fetch(t, f, c.opts, r)
			require.Error(t, err)
			require.Contains(t, err.Error(), c.want)
			require.NotContains(t, err.Error(), "\n")
		})
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(data)
}

// A redirect to another server is not followed: the credentials would go
// with it.
func TestRedirectElsewhere(t *testing.T) {
	var got []string
	var mu sync.Mutex
	other := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Header.Get("Authorization"))
		mu.Unlock()
	}))
	defer other.Close()
	api := &fakeAPI{}
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/clusterbasemodels") {
			http.Redirect(w, r, other.URL+r.URL.RequestURI(), http.StatusFound)
			return
		}
		if strings.HasSuffix(r.URL.Path, "/clusterservingruntimes") {
			http.Redirect(w, r, "/apis/ome.io/v1beta1/basemodels", http.StatusFound)
			return
		}
		api.ServeHTTP(w, r)
	}))
	defer srv.Close()
	kc := kubeconfig(t, srv, "")
	_, err := fetch(t, flags(t, kc), Options{}, ClusterBaseModels)
	require.EqualError(t, err, `the cluster of context "dev" at `+srv.URL+` redirected the list of clusterbasemodels.ome.io to `+other.URL+`, which is not followed: the credentials are for `+srv.URL+` only`)
	require.Empty(t, got, "the other server got no request")
	_, err = fetch(t, flags(t, kc), Options{}, ClusterServingRuntimes)
	require.NoError(t, err, "a redirect on the same server is followed")
}

// A certificate authority together with insecure-skip-tls-verify is
// refused, not silently accepted.
func TestCAAndInsecure(t *testing.T) {
	srv := httptest.NewTLSServer(&fakeAPI{})
	defer srv.Close()
	kc := kubeconfig(t, srv, "")
	insecure := filepath.Join(filepath.Dir(kc), "insecure")
	require.NoError(t, os.WriteFile(insecure, []byte(strings.Replace(mustRead(t, kc), "certificate-authority: ca.crt", "certificate-authority: ca.crt, insecure-skip-tls-verify: true", 1)), 0o600))
	_, err := fetch(t, flags(t, insecure), Options{}, ClusterBaseModels)
	require.Error(t, err)
	t.Log(err)
	require.NotContains(t, err.Error(), "\n")
}

// The API server's warnings are written as kubectl writes them, once.
func TestWarnings(t *testing.T) {
	api := &fakeAPI{warn: "ome.io/v1beta1 BaseModel is deprecated", items: map[string][]map[string]any{"/apis/ome.io/v1beta1/clusterbasemodels": items(3, "")}}
	srv := httptest.NewTLSServer(api)
	defer srv.Close()
	var out bytes.Buffer
	_, err := fetch(t, flags(t, kubeconfig(t, srv, "")), Options{Warnings: &out, PageSize: 1}, ClusterBaseModels)
	require.NoError(t, err)
	require.Equal(t, "Warning: ome.io/v1beta1 BaseModel is deprecated\n", out.String())
}

// Progress is told after each page how many objects the read brought.
func TestProgress(t *testing.T) {
	api := &fakeAPI{items: map[string][]map[string]any{"/apis/ome.io/v1beta1/clusterservingruntimes": items(1200, "")}}
	srv := httptest.NewTLSServer(api)
	defer srv.Close()
	kc := kubeconfig(t, srv, "")

	var told []string
	_, err := fetch(t, flags(t, kc), Options{Progress: func(plural string, read int) {
		told = append(told, fmt.Sprintf("%s %d", plural, read))
	}}, ClusterServingRuntimes)
	require.NoError(t, err)
	require.Equal(t, []string{"clusterservingruntimes 500", "clusterservingruntimes 1000", "clusterservingruntimes 1200"}, told)
}
