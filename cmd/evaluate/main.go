// Command evaluate checks OME runtime selection offline: which serving
// runtimes accept which models, and why not, using the CEL and Rego
// policies that state OME's rules.
package main

import (
	"math"
	"os"
	"runtime/debug"
	"runtime/metrics"
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

// holdingData sets the collector for a command whose live data grows with
// its input (report's page, lint's objects), unlike the streaming commands
// that main's limit is for: under it the collector would run without
// pause. No memory limit, and the heap may grow to twice what is live, not
// four times (as fast, with less memory). GOMEMLIMIT and GOGC still
// decide. It returns what puts the settings back.
func holdingData() (restore func()) {
	restoreLimit, percent := liftMemoryLimit(), -1
	if _, set := os.LookupEnv("GOGC"); !set {
		percent = debug.SetGCPercent(100)
	}
	return func() {
		restoreLimit()
		if percent != -1 {
			debug.SetGCPercent(percent)
		}
	}
}

// liftMemoryLimit lifts main's memory limit and keeps its GOGC, for diff:
// it holds both sides' objects and verdicts, and collections must stay few
// (under GOGC=100 a diff of every runtime took 2.1 times one match, over
// its target of 2; under main's GOGC, 1.65 times). GOMEMLIMIT still decides.
// It returns what puts the limit back.
func liftMemoryLimit() (restore func()) {
	limit := debug.SetMemoryLimit(-1)
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		debug.SetMemoryLimit(math.MaxInt64)
	}
	return func() { debug.SetMemoryLimit(limit) }
}

// fitMemoryLimit raises main's soft memory limit to twice what is live,
// as the inputs are read and once they are, when they alone come near
// it: under a limit below what is live the collector runs without pause
// (a match of 300 models against 11,200 runtimes took four times as long).
// GOMEMLIMIT still decides.
func fitMemoryLimit() {
	if _, set := os.LookupEnv("GOMEMLIMIT"); set {
		return
	}
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(live)
	if live[0].Value.Kind() != metrics.KindUint64 {
		return
	}
	if limit := 2 * int64(live[0].Value.Uint64()); limit > debug.SetMemoryLimit(-1) {
		debug.SetMemoryLimit(limit)
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
