// Command evaluate checks OME runtime selection offline: which serving
// runtimes accept which models, and why not, using the CEL and Rego
// policies that state OME's rules.
package main

import (
	"os"
	"runtime/debug"
)

// memoryLimit is the soft heap limit the Go runtime aims for unless
// GOMEMLIMIT says otherwise: results stream out, so what is live stays small,
// and collecting garbage a little sooner keeps the process's peak memory
// from growing with the number of pairs.
const memoryLimit = 80 << 20

func main() {
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		debug.SetMemoryLimit(memoryLimit)
	}
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
