// Command kube-apiserver is Kubernetes v1.35.4's API server, built from the
// k8s.io/kubernetes module so that `make cluster` needs nothing but Go. It is
// a tools module of its own: the product's go.mod never sees Kubernetes.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
)

func main() { os.Exit(cli.Run(app.NewAPIServerCommand())) }
