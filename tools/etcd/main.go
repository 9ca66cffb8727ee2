// Command etcd is etcd v3.6.16's server, built from its Go module so that
// `make cluster` needs nothing but Go. It is a tools module of its own: the
// product's go.mod never sees etcd's dependencies.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
