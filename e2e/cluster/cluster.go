// Package cluster owns the local control plane of the end-to-end tests and
// of `make cluster`: etcd, kube-apiserver, Gatekeeper's manager and
// Kyverno's admission controller, built from their Go modules into bin/,
// started on 127.0.0.1 with free ports, their state, logs, pids and admin
// kubeconfig under one folder (bin/cluster/). It installs OME's CRDs and
// the project's Gatekeeper bundle, and returns only when Gatekeeper refuses
// what it should (Kyverno runs with no policy: the checks of the Kyverno
// bundle install it; see kyverno.go).
//
// It knows nothing of OME's rules: what it checks comes from the project's
// files and from `evaluate`.
package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Options says where things are. Zero values mean the repository's layout.
type Options struct {
	Repo   string // the repository's root (policies/, testdata/)
	Bin    string // where etcd, kube-apiserver, gatekeeper and kyverno are (default Repo/bin)
	Dir    string // the state folder (default Bin/cluster)
	Log    func(format string, args ...any)
	Audit  time.Duration // Gatekeeper's --audit-interval (default 10s)
	Budget time.Duration // how long Up may wait for everything (default 4m)
}

func (o *Options) defaults() {
	if o.Repo == "" {
		o.Repo = "."
	}
	if o.Bin == "" {
		o.Bin = filepath.Join(o.Repo, "bin")
	}
	if o.Dir == "" {
		o.Dir = filepath.Join(o.Bin, "cluster")
	}
	if o.Log == nil {
		o.Log = func(string, ...any) {}
	}
	if o.Audit == 0 {
		o.Audit = 10 * time.Second
	}
	if o.Budget == 0 {
		o.Budget = 4 * time.Minute
	}
	// The state records absolute paths, so that it reads the same from
	// any working folder.
	for _, p := range []*string{&o.Repo, &o.Bin, &o.Dir} {
		if abs, err := filepath.Abs(*p); err == nil {
			*p = abs
		}
	}
}

// State is what a running cluster records in Dir/state.json.
type State struct {
	APIServer      string `json:"apiServer"`      // https://127.0.0.1:PORT
	EtcdClient     int    `json:"etcdClient"`     // port
	EtcdPeer       int    `json:"etcdPeer"`       // port
	Webhook        int    `json:"webhook"`        // Gatekeeper's webhook port
	Health         int    `json:"health"`         // Gatekeeper's health port
	KyvernoWebhook int    `json:"kyvernoWebhook"` // Kyverno's webhook port
	KyvernoMetrics int    `json:"kyvernoMetrics"` // Kyverno's metrics port
	Kubeconfig     string `json:"kubeconfig"`     // admin kubeconfig
	AuditInterval  int    `json:"auditInterval"`  // seconds
}

// The processes, in start order; Down stops them in reverse.
var processNames = []string{"etcd", "kube-apiserver", "gatekeeper", "kyverno"}

// Running tells whether any recorded process of the state folder still runs.
func Running(dir string) []string {
	var alive []string
	for _, name := range processNames {
		if (process{name: name, dir: dir}).alive() {
			alive = append(alive, name)
		}
	}
	return alive
}

// ReadState reads a running cluster's state.
func ReadState(dir string) (*State, error) {
	data, err := os.ReadFile(filepath.Join(dir, "state.json"))
	if err != nil {
		return nil, fmt.Errorf("no local cluster in %s (make cluster starts one): %w", dir, err)
	}
	var s State
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "state.json"), err)
	}
	return &s, nil
}

// Up starts the control plane and installs OME's CRDs and the Gatekeeper
// bundle. On failure it stops what it started and says what went wrong.
func Up(ctx context.Context, o Options) (st *State, err error) {
	o.defaults()
	if err := freshStateDir(o.Dir); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, o.Budget)
	defer cancel()
	defer func() {
		if err != nil {
			if derr := stopAll(o.Dir); derr != nil {
				err = errors.Join(err, derr)
			}
		}
	}()
	u := &upRun{o: o, pki: filepath.Join(o.Dir, "pki")}
	for _, step := range []func(context.Context) error{
		u.choosePorts,
		u.writeCredentials,
		u.startEtcd,
		u.startAPIServer,
		u.installCRDs,
		u.startGatekeeper,
		u.installWebhook,
		u.installBundle,
		u.startKyverno,
	} {
		if err := step(ctx); err != nil {
			return nil, err
		}
	}
	o.Log("waiting until Gatekeeper refuses what it should")
	if err := u.kc.waitEnforced(ctx, u.gatekeeper); err != nil {
		return nil, err
	}
	return u.st, nil
}

// upRun is what Up's steps hand on to the next.
type upRun struct {
	o          Options
	st         *State
	pki        string     // the certificates' folder
	apiPort    int        // kube-apiserver's port
	ca         *authority // signs every certificate, and is the webhook's CA
	etcdURL    string     // etcd's client URL
	kc         *Kube      // the admin client, once the API server runs
	gkDeploy   string     // Gatekeeper's deployment manifest
	gkObjects  []object   // its objects
	gatekeeper process
	kyConfig   []object // Kyverno's ConfigMaps, applied before it starts
	kyverno    process
}

// freshStateDir refuses to start over a running cluster, then empties the
// state folder (with audit/, where Gatekeeper's audit keeps its cache).
func freshStateDir(dir string) error {
	if alive := Running(dir); len(alive) > 0 {
		return fmt.Errorf("a local cluster is already running from %s (%s): `make cluster-down` stops it", dir, strings.Join(alive, ", "))
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	return os.MkdirAll(filepath.Join(dir, "audit"), 0o755)
}

// choosePorts picks seven distinct free ports and the API server's URL.
func (u *upRun) choosePorts(context.Context) error {
	u.st = &State{AuditInterval: int(u.o.Audit / time.Second), Kubeconfig: filepath.Join(u.o.Dir, "kubeconfig")}
	ports := []*int{&u.st.EtcdClient, &u.st.EtcdPeer, &u.apiPort, &u.st.Webhook, &u.st.Health, &u.st.KyvernoWebhook, &u.st.KyvernoMetrics}
	seen := map[int]bool{}
	for _, p := range ports {
		for *p == 0 || seen[*p] {
			var err error
			if *p, err = freePort(); err != nil {
				return err
			}
		}
		seen[*p] = true
	}
	u.st.APIServer = fmt.Sprintf("https://127.0.0.1:%d", u.apiPort)
	return nil
}

// writeCredentials writes the CA, the servers' and the admin's
// certificates, the service-account key, the admin kubeconfig and the
// state.
func (u *upRun) writeCredentials(context.Context) error {
	ca, err := newAuthority()
	if err != nil {
		return err
	}
	u.ca = ca
	if err := writeFile(filepath.Join(u.pki, "ca.crt"), ca.certPEM); err != nil {
		return err
	}
	for _, c := range []struct {
		cert, key, cn string
		groups        []string
		server        bool
	}{
		{"apiserver.crt", "apiserver.key", "kube-apiserver", nil, true},
		{"admin.crt", "admin.key", "admin", []string{"system:masters"}, false},
		{"gatekeeper/tls.crt", "gatekeeper/tls.key", "gatekeeper-webhook", nil, true},
	} {
		if err := ca.issue(filepath.Join(u.pki, c.cert), filepath.Join(u.pki, c.key), c.cn, c.groups, c.server); err != nil {
			return err
		}
	}
	if err := writeServiceAccountKey(filepath.Join(u.pki, "sa.key")); err != nil {
		return err
	}
	if err := writeKubeconfig(u.st.Kubeconfig, u.st.APIServer, u.pki); err != nil {
		return err
	}
	return writeState(u.o.Dir, u.st)
}

// startEtcd starts etcd and waits until it is healthy.
func (u *upRun) startEtcd(ctx context.Context) error {
	etcd := process{name: "etcd", dir: u.o.Dir}
	for _, p := range []int{u.st.EtcdClient, u.st.EtcdPeer} {
		if err := checkPortFree("etcd", p); err != nil {
			return err
		}
	}
	u.o.Log("starting etcd on 127.0.0.1:%d", u.st.EtcdClient)
	u.etcdURL = fmt.Sprintf("http://127.0.0.1:%d", u.st.EtcdClient)
	peer := fmt.Sprintf("http://127.0.0.1:%d", u.st.EtcdPeer)
	if err := etcd.start(filepath.Join(u.o.Bin, "etcd"), []string{
		"--name=local", "--data-dir=" + filepath.Join(u.o.Dir, "etcd"),
		"--listen-client-urls=" + u.etcdURL, "--advertise-client-urls=" + u.etcdURL,
		"--listen-peer-urls=" + peer, "--initial-advertise-peer-urls=" + peer,
		"--initial-cluster=local=" + peer, "--log-level=warn",
		"--quota-backend-bytes=2147483648",
	}, nil); err != nil {
		return err
	}
	return waitHTTP(ctx, etcd, http.DefaultClient, u.etcdURL+"/health")
}

// startAPIServer starts kube-apiserver on etcd and waits until it is ready.
func (u *upRun) startAPIServer(ctx context.Context) error {
	apiserver := process{name: "kube-apiserver", dir: u.o.Dir}
	if err := checkPortFree("kube-apiserver", u.apiPort); err != nil {
		return err
	}
	u.o.Log("starting kube-apiserver on %s", u.st.APIServer)
	if err := apiserver.start(filepath.Join(u.o.Bin, "kube-apiserver"), []string{
		"--etcd-servers=" + u.etcdURL,
		"--bind-address=127.0.0.1", "--advertise-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(u.apiPort),
		"--tls-cert-file=" + filepath.Join(u.pki, "apiserver.crt"),
		"--tls-private-key-file=" + filepath.Join(u.pki, "apiserver.key"),
		"--client-ca-file=" + filepath.Join(u.pki, "ca.crt"),
		"--service-account-issuer=https://127.0.0.1:" + strconv.Itoa(u.apiPort),
		"--service-account-key-file=" + filepath.Join(u.pki, "sa.key"),
		"--service-account-signing-key-file=" + filepath.Join(u.pki, "sa.key"),
		"--authorization-mode=RBAC",
		"--service-cluster-ip-range=10.96.0.0/16",
		"--endpoint-reconciler-type=none",
		"--profiling=false",
		"--v=0",
	}, nil); err != nil {
		return err
	}
	kc, err := newKube(u.st.Kubeconfig)
	if err != nil {
		return err
	}
	u.kc = kc
	return waitHTTP(ctx, apiserver, kc.http, u.st.APIServer+"/readyz")
}

// installCRDs installs OME's CRDs, then Gatekeeper's and Kyverno's (from
// their modules) and their namespaces, and waits until they are
// established.
func (u *upRun) installCRDs(ctx context.Context) error {
	gkDeploy, err := gatekeeperDeploy(ctx)
	if err != nil {
		return err
	}
	u.gkDeploy = gkDeploy
	if u.gkObjects, err = readObjects(gkDeploy); err != nil {
		return err
	}
	// The newest OME release's CRDs, at the folder's top (its folders hold
	// what older releases change).
	crdFiles, err := filepath.Glob(filepath.Join(u.o.Repo, "testdata", "ome-crds", "*.yaml"))
	if err != nil || len(crdFiles) == 0 {
		return fmt.Errorf("OME's CRDs: no testdata/ome-crds/*.yaml (%v)", err)
	}
	omeCRDs, err := readObjects(crdFiles...)
	if err != nil {
		return err
	}
	kyManifest, err := kyvernoManifest(ctx)
	if err != nil {
		return err
	}
	kyObjects, err := readObjects(kyManifest)
	if err != nil {
		return err
	}
	kyCRDs, kyConfig := kyvernoSetup(kyObjects)
	u.kyConfig = kyConfig
	u.o.Log("installing OME's, Gatekeeper's and Kyverno's CRDs")
	var install []object
	for _, obj := range append(append(omeCRDs, u.gkObjects...), kyCRDs...) {
		if k := obj.GetKind(); k == "CustomResourceDefinition" || k == "Namespace" {
			install = append(install, obj)
		}
	}
	if err := u.kc.applyAll(ctx, install); err != nil {
		return err
	}
	return u.kc.waitCRDsEstablished(ctx, install)
}

// startGatekeeper starts Gatekeeper's manager, every default operation, out
// of cluster, and waits until it is ready.
func (u *upRun) startGatekeeper(ctx context.Context) error {
	u.gatekeeper = process{name: "gatekeeper", dir: u.o.Dir}
	for _, p := range []int{u.st.Webhook, u.st.Health} {
		if err := checkPortFree("gatekeeper", p); err != nil {
			return err
		}
	}
	u.o.Log("starting Gatekeeper's webhook on 127.0.0.1:%d", u.st.Webhook)
	if err := u.gatekeeper.start(filepath.Join(u.o.Bin, "gatekeeper"), []string{
		"--kubeconfig=" + u.st.Kubeconfig,
		"--debug-use-fake-pod",
		"--disable-cert-rotation",
		"--cert-dir=" + filepath.Join(u.pki, "gatekeeper"),
		"--host=127.0.0.1",
		"--port=" + strconv.Itoa(u.st.Webhook),
		"--health-addr=127.0.0.1:" + strconv.Itoa(u.st.Health),
		"--metrics-addr=0",
		// Gatekeeper's Prometheus exporter listens on every address and
		// has no flag for the host, so the harness keeps it off; the API
		// server's own webhook latency metric stands in for it.
		"--metrics-backend=stackdriver", "--stackdriver-only-when-available",
		"--audit-interval=" + strconv.Itoa(u.st.AuditInterval),
		"--api-cache-dir=" + filepath.Join(u.o.Dir, "audit"),
		"--disable-opa-builtin={http.send}",
		"--shutdown-delay=0",
		"--log-level=INFO",
	}, []string{"POD_NAMESPACE=gatekeeper-system"}); err != nil {
		return err
	}
	return waitHTTP(ctx, u.gatekeeper, http.DefaultClient, fmt.Sprintf("http://127.0.0.1:%d/readyz", u.st.Health))
}

// installWebhook installs Gatekeeper's validating webhook, as its chart
// sets it, pointed at the local webhook with the local CA.
func (u *upRun) installWebhook(ctx context.Context) error {
	var webhooks []object
	for _, obj := range u.gkObjects {
		if obj.GetKind() == "ValidatingWebhookConfiguration" {
			if err := pointWebhooks(obj, u.st.Webhook, u.ca.certPEM); err != nil {
				return fmt.Errorf("%s: %w", u.gkDeploy, err)
			}
			webhooks = append(webhooks, obj)
		}
	}
	if len(webhooks) != 1 {
		return fmt.Errorf("%s: expected one ValidatingWebhookConfiguration, found %d", u.gkDeploy, len(webhooks))
	}
	u.o.Log("installing the webhook configuration")
	return u.kc.applyAll(ctx, webhooks)
}

// UpConstraints are the constraints of the Gatekeeper bundle that Up
// installs: the warning constraint is left out, so that the end-to-end
// checks see the warnings of policies/kubernetes alone.
var UpConstraints = []string{"ome-runtime-selection", "ome-version-lint-errors"}

// installBundle installs the Gatekeeper bundle as `kubectl apply -k
// policies/gatekeeper` does, rendered by kustomize: the sync config and the
// templates, then (once Gatekeeper serves their kinds) UpConstraints.
func (u *upRun) installBundle(ctx context.Context) error {
	u.o.Log("installing policies/gatekeeper (kustomize): sync config, templates, %s", strings.Join(UpConstraints, ", "))
	objs, err := Kustomize(filepath.Join(u.o.Repo, "policies", "gatekeeper"))
	if err != nil {
		return err
	}
	bundle, constraints, err := splitConstraints(objs, UpConstraints)
	if err != nil {
		return err
	}
	if err := u.kc.applyAll(ctx, bundle); err != nil {
		return err
	}
	return u.kc.applyWhenServed(ctx, u.gatekeeper, constraints)
}

// splitConstraints parts a bundle's objects into the others and the
// constraints (group constraints.gatekeeper.sh) of the names given, failing
// when one of those is missing.
func splitConstraints(objs []object, names []string) (others, constraints []object, err error) {
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	for _, obj := range objs {
		if obj.GroupVersionKind().Group != "constraints.gatekeeper.sh" {
			others = append(others, obj)
			continue
		}
		if want[obj.GetName()] {
			constraints = append(constraints, obj)
			delete(want, obj.GetName())
		}
	}
	if len(want) > 0 {
		var missing []string
		for _, n := range names {
			if want[n] {
				missing = append(missing, n)
			}
		}
		return nil, nil, fmt.Errorf("the Gatekeeper bundle has no constraint %s", strings.Join(missing, ", "))
	}
	return others, constraints, nil
}

// Down stops the processes recorded in dir, in reverse start order, waits
// until each has exited, and removes the state folder.
func Down(dir string) error {
	if err := stopAll(dir); err != nil {
		return err
	}
	return os.RemoveAll(dir)
}

func stopAll(dir string) error {
	var errs []error
	for i := len(processNames) - 1; i >= 0; i-- {
		if err := (process{name: processNames[i], dir: dir}).stop(20 * time.Second); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func writeState(dir string, st *State) error {
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	return writeFile(filepath.Join(dir, "state.json"), append(data, '\n'))
}

// waitHTTP polls url until it answers 200, the process dies, or ctx ends.
func waitHTTP(ctx context.Context, p process, client *http.Client, url string) error {
	var last string
	for {
		if !p.alive() {
			return p.died()
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		resp, err := client.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = resp.Status
		} else {
			last = err.Error()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s was not ready at %s in time (last answer: %s); the last lines of %s:\n%s", p.name, url, last, p.logFile(), p.tail(15))
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// gatekeeperDeploy finds Gatekeeper's deploy/gatekeeper.yaml in the Go
// module cache, downloading the pinned module if need be.
func gatekeeperDeploy(ctx context.Context) (string, error) {
	dir, err := moduleDir(ctx, "github.com/open-policy-agent/gatekeeper/v3", GatekeeperVersion)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "deploy", "gatekeeper.yaml"), nil
}

// moduleDir is the folder of module@version in the Go module cache,
// downloaded if need be (outside any module's requirements, so that a
// module with replace directives, such as Kyverno's, downloads too).
func moduleDir(ctx context.Context, module, version string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", "mod", "download", "-json", module+"@"+version)
	cmd.Env = append(cmd.Environ(), "GOFLAGS=-mod=mod")
	out, err := cmd.Output()
	var mod struct{ Dir, Error string }
	if jerr := json.Unmarshal(out, &mod); jerr == nil && mod.Error != "" {
		return "", fmt.Errorf("go mod download %s@%s: %s", module, version, mod.Error)
	}
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return "", fmt.Errorf("go mod download %s@%s: %v\n%s", module, version, err, ee.Stderr)
		}
		return "", fmt.Errorf("go mod download %s@%s: %w", module, version, err)
	}
	return mod.Dir, nil
}

// GatekeeperVersion is the Gatekeeper whose manager and CRDs the cluster runs.
const GatekeeperVersion = "v3.23.1"

func writeKubeconfig(path, server, pki string) error {
	read := func(name string) (string, error) {
		data, err := os.ReadFile(filepath.Join(pki, name))
		return string(data), err
	}
	ca, err := read("ca.crt")
	if err != nil {
		return err
	}
	crt, err := read("admin.crt")
	if err != nil {
		return err
	}
	key, err := read("admin.key")
	if err != nil {
		return err
	}
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: ome-local
  cluster:
    server: %s
    certificate-authority-data: %s
users:
- name: admin
  user:
    client-certificate-data: %s
    client-key-data: %s
contexts:
- name: ome-local
  context:
    cluster: ome-local
    user: admin
current-context: ome-local
`, server, base64Std(ca), base64Std(crt), base64Std(key))
	return writeFile(path, []byte(cfg))
}
