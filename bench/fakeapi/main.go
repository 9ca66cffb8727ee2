// Command fakeapi serves a fleet of fake Kubernetes API servers for
// bench/fleet.sh: -clusters servers on 127.0.0.1, each over TLS with a
// certificate of its own, each listing a synthetic cluster of OME's shape
// (evaluate generate's: -models ClusterBaseModels and -runtimes
// ClusterServingRuntimes, seed -seed plus the cluster's number) 500
// objects a page, as kube-apiserver pages a list, and a kube-system
// namespace of a UID of its own; each answer waits -latency, as a remote
// API server's round trip would. It writes a kubeconfig of one context a
// cluster (c00, c01, ...) to -kubeconfig, then serves until it is
// stopped (SIGINT, SIGTERM).
package main

import (
	"encoding/json"
	"encoding/pem"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ome-policy/evaluator/objects/synth"
)

func main() {
	clusters := flag.Int("clusters", 10, "how many clusters")
	models := flag.Int("models", 300, "ClusterBaseModels a cluster")
	runtimes := flag.Int("runtimes", 1000, "ClusterServingRuntimes a cluster")
	seed := flag.Int64("seed", 1, "the first cluster's seed (the others: seed+1, ...)")
	kubeconfig := flag.String("kubeconfig", "", "the kubeconfig to write")
	latency := flag.Duration("latency", 0, "how long each answer waits, as a remote API server's round trip")
	flag.Parse()
	if *kubeconfig == "" {
		fmt.Fprintln(os.Stderr, "fakeapi: give -kubeconfig FILE")
		os.Exit(2)
	}
	var cfg strings.Builder
	cfg.WriteString("apiVersion: v1\nkind: Config\ncurrent-context: c00\nusers:\n- name: bench\n  user: {token: bench}\nclusters:\n")
	var contexts strings.Builder
	dir := filepath.Dir(*kubeconfig)
	for i := range *clusters {
		ms, rs := synth.Cluster(*seed+int64(i), *models, *runtimes)
		srv := httptest.NewTLSServer(handler(*latency, fmt.Sprintf("kube-system-%02d", i), map[string][]map[string]any{
			"/apis/ome.io/v1beta1/clusterbasemodels":      ms,
			"/apis/ome.io/v1beta1/clusterservingruntimes": rs,
		}))
		defer srv.Close()
		ca := filepath.Join(dir, fmt.Sprintf("ca-%02d.crt", i))
		if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
			fmt.Fprintln(os.Stderr, "fakeapi:", err)
			os.Exit(1)
		}
		fmt.Fprintf(&cfg, "- name: c%02d\n  cluster: {server: %q, certificate-authority: %q}\n", i, srv.URL, ca)
		fmt.Fprintf(&contexts, "- name: c%02d\n  context: {cluster: c%02d, user: bench, namespace: default}\n", i, i)
	}
	cfg.WriteString("contexts:\n" + contexts.String())
	// Written whole, then renamed: the script waits for the file.
	if err := os.WriteFile(*kubeconfig+".tmp", []byte(cfg.String()), 0o600); err == nil {
		err = os.Rename(*kubeconfig+".tmp", *kubeconfig)
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	<-stop
}

// handler serves lists (path -> items), a page of ?limit= at a time with a
// continue token, and the kube-system namespace of uid; any other path is
// an empty list.
func handler(latency time.Duration, uid string, lists map[string][]map[string]any) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(latency)
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/api/v1/namespaces/kube-system" {
			_ = json.NewEncoder(w).Encode(map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "kube-system", "uid": uid}})
			return
		}
		items := lists[r.URL.Path]
		start, _ := strconv.Atoi(r.URL.Query().Get("continue"))
		end := len(items)
		if limit, _ := strconv.Atoi(r.URL.Query().Get("limit")); limit > 0 {
			end = min(start+limit, len(items))
		}
		meta := map[string]any{}
		if end < len(items) {
			meta["continue"] = strconv.Itoa(end)
		}
		page := items[min(start, end):end]
		if page == nil {
			page = []map[string]any{}
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"apiVersion": "ome.io/v1beta1", "kind": "List", "metadata": meta, "items": page})
	})
}
