// Command ome-cluster starts and stops the project's local control plane (etcd,
// kube-apiserver with OME's CRDs, Gatekeeper with the project's bundle,
// Kyverno's admission controller) on 127.0.0.1. `make cluster` and `make cluster-down` run it.
//
//	ome-cluster up   [-repo DIR] [-bin DIR] [-dir DIR] [-audit-interval 10s]
//	ome-cluster down [-dir DIR]
//	ome-cluster status [-dir DIR]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/ome-policy/evaluator/e2e/cluster"
)

const usage = `usage: ome-cluster up|down|status [flags]

  up      build nothing, start etcd, kube-apiserver, Gatekeeper and Kyverno from
          -bin on 127.0.0.1, install OME's CRDs and the Gatekeeper bundle (no
          Kyverno policy), return when Gatekeeper refuses what it should; the
          admin kubeconfig is DIR/kubeconfig
  down    stop the processes recorded in DIR (by pid), wait until they exited,
          and remove DIR
  status  list the recorded processes that still run

examples:
  ome-cluster up -repo . -bin bin
  KUBECONFIG=bin/cluster/kubeconfig kubectl get crd
  ome-cluster down -dir bin/cluster
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	fs := flag.NewFlagSet("ome-cluster "+os.Args[1], flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprint(os.Stderr, usage); fs.PrintDefaults() }
	repo := fs.String("repo", ".", "the repository's root")
	bin := fs.String("bin", "", "folder of etcd, kube-apiserver, gatekeeper and kyverno (default REPO/bin)")
	dir := fs.String("dir", "", "state folder (default BIN/cluster)")
	audit := fs.Duration("audit-interval", 10*time.Second, "Gatekeeper's audit interval")
	if err := fs.Parse(os.Args[2:]); err != nil {
		os.Exit(2)
	}
	if *bin == "" {
		*bin = filepath.Join(*repo, "bin")
	}
	if *dir == "" {
		*dir = filepath.Join(*bin, "cluster")
	}
	switch os.Args[1] {
	case "up":
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		start := time.Now()
		st, err := cluster.Up(ctx, cluster.Options{
			Repo: *repo, Bin: *bin, Dir: *dir, Audit: *audit,
			Log: func(f string, a ...any) { fmt.Fprintf(os.Stderr, "cluster: "+f+"\n", a...) },
		})
		if err != nil {
			fmt.Fprintf(os.Stderr, "ome-cluster up: %v\n", err)
			os.Exit(1)
		}
		fmt.Printf("cluster: ready in %.1fs: API server %s, Gatekeeper webhook 127.0.0.1:%d, Kyverno webhook 127.0.0.1:%d\n", time.Since(start).Seconds(), st.APIServer, st.Webhook, st.KyvernoWebhook)
		fmt.Printf("export KUBECONFIG=%s\n", st.Kubeconfig)
	case "down":
		if err := cluster.Down(*dir); err != nil {
			fmt.Fprintf(os.Stderr, "ome-cluster down: %v\n", err)
			os.Exit(1)
		}
	case "status":
		alive := cluster.Running(*dir)
		if len(alive) == 0 {
			fmt.Println("no local cluster process runs from", *dir)
			os.Exit(1)
		}
		fmt.Println("running:", strings.Join(alive, ", "))
	default:
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
}
