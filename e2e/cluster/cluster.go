// Package cluster owns the local control plane of the end-to-end tests and
// of `make cluster`: etcd, kube-apiserver and Gatekeeper's manager, built
// from their Go modules into bin/, started on 127.0.0.1 with free ports,
// their state, logs, pids and admin kubeconfig under one folder
// (bin/cluster/). It installs OME's CRDs and the project's Gatekeeper
// bundle, and returns only when Gatekeeper refuses what it should.
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
	Bin    string // where etcd, kube-apiserver and gatekeeper are (default Repo/bin)
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
	APIServer     string `json:"apiServer"`     // https://127.0.0.1:PORT
	EtcdClient    int    `json:"etcdClient"`    // port
	EtcdPeer      int    `json:"etcdPeer"`      // port
	Webhook       int    `json:"webhook"`       // Gatekeeper's webhook port
	Health        int    `json:"health"`        // Gatekeeper's health port
	Kubeconfig    string `json:"kubeconfig"`    // admin kubeconfig
	AuditInterval int    `json:"auditInterval"` // seconds
}

// The processes, in start order; Down stops them in reverse.
var processNames = []string{"etcd", "kube-apiserver", "gatekeeper"}

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
	if alive := Running(o.Dir); len(alive) > 0 {
		return nil, fmt.Errorf("a local cluster is already running from %s (%s): `make cluster-down` stops it", o.Dir, strings.Join(alive, ", "))
	}
	if err := os.RemoveAll(o.Dir); err != nil {
		return nil, err
	}
	// Gatekeeper's audit keeps its listing cache in audit/.
	if err := os.MkdirAll(filepath.Join(o.Dir, "audit"), 0o755); err != nil {
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

	st = &State{AuditInterval: int(o.Audit / time.Second)}
	ports := []*int{&st.EtcdClient, &st.EtcdPeer, new(int), &st.Webhook, &st.Health}
	seen := map[int]bool{}
	for _, p := range ports {
		for *p == 0 || seen[*p] {
			if *p, err = freePort(); err != nil {
				return nil, err
			}
		}
		seen[*p] = true
	}
	apiPort := *ports[2]
	st.APIServer = fmt.Sprintf("https://127.0.0.1:%d", apiPort)
	st.Kubeconfig = filepath.Join(o.Dir, "kubeconfig")

	pki := filepath.Join(o.Dir, "pki")
	ca, err := newAuthority()
	if err != nil {
		return nil, err
	}
	if err := writeFile(filepath.Join(pki, "ca.crt"), ca.certPEM); err != nil {
		return nil, err
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
		if err := ca.issue(filepath.Join(pki, c.cert), filepath.Join(pki, c.key), c.cn, c.groups, c.server); err != nil {
			return nil, err
		}
	}
	if err := writeServiceAccountKey(filepath.Join(pki, "sa.key")); err != nil {
		return nil, err
	}
	if err := writeKubeconfig(st.Kubeconfig, st.APIServer, pki); err != nil {
		return nil, err
	}
	if err := writeState(o.Dir, st); err != nil {
		return nil, err
	}

	// etcd
	etcd := process{name: "etcd", dir: o.Dir}
	for _, p := range []int{st.EtcdClient, st.EtcdPeer} {
		if err := checkPortFree("etcd", p); err != nil {
			return nil, err
		}
	}
	o.Log("starting etcd on 127.0.0.1:%d", st.EtcdClient)
	client := fmt.Sprintf("http://127.0.0.1:%d", st.EtcdClient)
	peer := fmt.Sprintf("http://127.0.0.1:%d", st.EtcdPeer)
	if err := etcd.start(filepath.Join(o.Bin, "etcd"), []string{
		"--name=local", "--data-dir=" + filepath.Join(o.Dir, "etcd"),
		"--listen-client-urls=" + client, "--advertise-client-urls=" + client,
		"--listen-peer-urls=" + peer, "--initial-advertise-peer-urls=" + peer,
		"--initial-cluster=local=" + peer, "--log-level=warn",
		"--quota-backend-bytes=2147483648",
	}, nil); err != nil {
		return nil, err
	}
	if err := waitHTTP(ctx, etcd, http.DefaultClient, client+"/health"); err != nil {
		return nil, err
	}

	// kube-apiserver
	apiserver := process{name: "kube-apiserver", dir: o.Dir}
	if err := checkPortFree("kube-apiserver", apiPort); err != nil {
		return nil, err
	}
	o.Log("starting kube-apiserver on %s", st.APIServer)
	if err := apiserver.start(filepath.Join(o.Bin, "kube-apiserver"), []string{
		"--etcd-servers=" + client,
		"--bind-address=127.0.0.1", "--advertise-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(apiPort),
		"--tls-cert-file=" + filepath.Join(pki, "apiserver.crt"),
		"--tls-private-key-file=" + filepath.Join(pki, "apiserver.key"),
		"--client-ca-file=" + filepath.Join(pki, "ca.crt"),
		"--service-account-issuer=https://127.0.0.1:" + strconv.Itoa(apiPort),
		"--service-account-key-file=" + filepath.Join(pki, "sa.key"),
		"--service-account-signing-key-file=" + filepath.Join(pki, "sa.key"),
		"--authorization-mode=RBAC",
		"--service-cluster-ip-range=10.96.0.0/16",
		"--endpoint-reconciler-type=none",
		"--profiling=false",
		"--v=0",
	}, nil); err != nil {
		return nil, err
	}
	kc, err := newKube(st.Kubeconfig)
	if err != nil {
		return nil, err
	}
	if err := waitHTTP(ctx, apiserver, kc.http, st.APIServer+"/readyz"); err != nil {
		return nil, err
	}

	// CRDs: OME's, then Gatekeeper's (from its module), and its namespace.
	gkDeploy, err := gatekeeperDeploy(ctx)
	if err != nil {
		return nil, err
	}
	gkObjects, err := readObjects(gkDeploy)
	if err != nil {
		return nil, err
	}
	omeCRDs, err := readObjects(filepath.Join(o.Repo, "testdata", "ome-crds"))
	if err != nil {
		return nil, err
	}
	o.Log("installing OME's and Gatekeeper's CRDs")
	var install []object
	for _, obj := range append(omeCRDs, gkObjects...) {
		if k := obj.GetKind(); k == "CustomResourceDefinition" || k == "Namespace" {
			install = append(install, obj)
		}
	}
	if err := kc.applyAll(ctx, install); err != nil {
		return nil, err
	}
	if err := kc.waitCRDsEstablished(ctx, install); err != nil {
		return nil, err
	}

	// Gatekeeper's manager, every default operation, out of cluster.
	gatekeeper := process{name: "gatekeeper", dir: o.Dir}
	for _, p := range []int{st.Webhook, st.Health} {
		if err := checkPortFree("gatekeeper", p); err != nil {
			return nil, err
		}
	}
	o.Log("starting Gatekeeper's webhook on 127.0.0.1:%d", st.Webhook)
	if err := gatekeeper.start(filepath.Join(o.Bin, "gatekeeper"), []string{
		"--kubeconfig=" + st.Kubeconfig,
		"--debug-use-fake-pod",
		"--disable-cert-rotation",
		"--cert-dir=" + filepath.Join(pki, "gatekeeper"),
		"--host=127.0.0.1",
		"--port=" + strconv.Itoa(st.Webhook),
		"--health-addr=127.0.0.1:" + strconv.Itoa(st.Health),
		"--metrics-addr=0",
		// Gatekeeper's Prometheus exporter listens on every address and
		// has no flag for the host, so the harness keeps it off; the API
		// server's own webhook latency metric stands in for it.
		"--metrics-backend=stackdriver", "--stackdriver-only-when-available",
		"--audit-interval=" + strconv.Itoa(st.AuditInterval),
		"--api-cache-dir=" + filepath.Join(o.Dir, "audit"),
		"--disable-opa-builtin={http.send}",
		"--shutdown-delay=0",
		"--log-level=INFO",
	}, []string{"POD_NAMESPACE=gatekeeper-system"}); err != nil {
		return nil, err
	}
	if err := waitHTTP(ctx, gatekeeper, http.DefaultClient, fmt.Sprintf("http://127.0.0.1:%d/readyz", st.Health)); err != nil {
		return nil, err
	}

	// Gatekeeper's validating webhook, as its chart sets it, pointed at
	// the local webhook with the local CA.
	var webhooks []object
	for _, obj := range gkObjects {
		if obj.GetKind() == "ValidatingWebhookConfiguration" {
			if err := pointWebhooks(obj, st.Webhook, ca.certPEM); err != nil {
				return nil, fmt.Errorf("%s: %w", gkDeploy, err)
			}
			webhooks = append(webhooks, obj)
		}
	}
	if len(webhooks) != 1 {
		return nil, fmt.Errorf("%s: expected one ValidatingWebhookConfiguration, found %d", gkDeploy, len(webhooks))
	}
	o.Log("installing the webhook configuration, sync.yaml, the templates and two constraints")
	if err := kc.applyAll(ctx, webhooks); err != nil {
		return nil, err
	}
	gk := filepath.Join(o.Repo, "policies", "gatekeeper")
	bundle, err := readObjects(
		filepath.Join(gk, "sync.yaml"),
		filepath.Join(gk, "omeruntimeselection", "template.yaml"),
		filepath.Join(gk, "omeversionlint", "template.yaml"),
	)
	if err != nil {
		return nil, err
	}
	if err := kc.applyAll(ctx, bundle); err != nil {
		return nil, err
	}
	constraints, err := readObjects(
		filepath.Join(gk, "omeruntimeselection", "samples", "default", "constraint.yaml"),
		filepath.Join(gk, "omeversionlint", "samples", "deny-errors", "constraint.yaml"),
	)
	if err != nil {
		return nil, err
	}
	if err := kc.applyWhenServed(ctx, gatekeeper, constraints); err != nil {
		return nil, err
	}
	o.Log("waiting until Gatekeeper refuses what it should")
	if err := kc.waitEnforced(ctx, gatekeeper); err != nil {
		return nil, err
	}
	return st, nil
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
	out, err := exec.CommandContext(ctx, "go", "mod", "download", "-json", "github.com/open-policy-agent/gatekeeper/v3@"+GatekeeperVersion).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return "", fmt.Errorf("go mod download gatekeeper %s: %v\n%s", GatekeeperVersion, err, ee.Stderr)
		}
		return "", fmt.Errorf("go mod download gatekeeper %s: %w", GatekeeperVersion, err)
	}
	var mod struct{ Dir, Error string }
	if err := json.Unmarshal(out, &mod); err != nil {
		return "", err
	}
	if mod.Error != "" {
		return "", fmt.Errorf("go mod download gatekeeper %s: %s", GatekeeperVersion, mod.Error)
	}
	return filepath.Join(mod.Dir, "deploy", "gatekeeper.yaml"), nil
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
