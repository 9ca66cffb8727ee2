// Command evaluate checks OME runtime selection offline: which serving
// runtimes accept which models, and why not, using the CEL and Rego
// policies that state OME's rules.
package main

import (
	"os"
	"runtime/debug"
)

// Garbage collection, unless GOMEMLIMIT and GOGC say otherwise. Results
// stream out, so what is live stays small (a few tens of MB even for
// hundreds of thousands of pairs): the collector may let the heap grow to
// four times that (gcPercent), which saves most collections on a catalog,
// but never past memoryLimit, so the memory Go holds stays under 72 MiB
// however many pairs there are. The process's resident memory adds the
// pages of the binary it has read (client-go's among them once their
// packages are initialised; clean pages, shared with the page cache).
const (
	memoryLimit = 72 << 20
	gcPercent   = 300
)

func main() {
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		debug.SetMemoryLimit(memoryLimit)
	}
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(gcPercent)
	}
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
