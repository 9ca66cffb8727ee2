// Command evaluate checks OME runtime selection offline: which serving
// runtimes accept which models, and why not, using the CEL and Rego
// policies that state OME's rules.
package main

import (
	"math"
	"os"
	"runtime/debug"
)

// Garbage collection, unless GOMEMLIMIT and GOGC say otherwise. Results
// stream out, so what is live stays small (a few tens of MB even for
// hundreds of thousands of pairs): the collector may let the heap grow to
// four times that (gcPercent), which saves most collections on a catalog,
// but never past memoryLimit, so the process's peak memory stays under
// 100 MB however many pairs there are.
const (
	memoryLimit = 72 << 20
	gcPercent   = 300
)

// holdingData sets the collector for a command whose live data grows with
// its input (report's page, lint's objects), unlike the streaming commands
// that main's limit is for: under it the collector would run without
// pause. No memory limit, and the heap may grow to twice what is live, not
// four times (as fast, with less memory). GOMEMLIMIT and GOGC still
// decide. It returns what puts the settings back.
func holdingData() (restore func()) {
	limit, percent := debug.SetMemoryLimit(-1), -1
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		debug.SetMemoryLimit(math.MaxInt64)
	}
	if _, set := os.LookupEnv("GOGC"); !set {
		percent = debug.SetGCPercent(100)
	}
	return func() {
		debug.SetMemoryLimit(limit)
		if percent != -1 {
			debug.SetGCPercent(percent)
		}
	}
}

func main() {
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		debug.SetMemoryLimit(memoryLimit)
	}
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(gcPercent)
	}
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
