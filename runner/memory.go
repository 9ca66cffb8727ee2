package runner

import (
	"math"
	"os"
	"runtime/debug"
	"runtime/metrics"
)

// How a run holds memory, said in one place: a soft memory limit for the
// runs that stream (Streaming, set once by the command line), moved for a
// run that holds what it reads (HoldData, LiftMemoryLimit), or raised as
// what is read grows (FitMemoryLimit). GOMEMLIMIT and GOGC, when set,
// always decide.

// Garbage collection of a run that streams, unless GOMEMLIMIT and GOGC
// say otherwise. Results stream out, so what is live stays small (a few
// tens of MB even for hundreds of thousands of pairs): the collector may
// let the heap grow to four times that (streamingGCPercent), which saves
// most collections on a catalog, but never past streamingMemoryLimit, so
// the memory Go holds stays under 72 MiB however many pairs there are. The
// process's resident memory adds the pages of the binary it has read
// (client-go's among them once their packages are initialised; clean
// pages, shared with the page cache).
const (
	streamingMemoryLimit = 72 << 20
	streamingGCPercent   = 300
)

// Streaming sets the collector for a process whose runs stream (evaluate's
// default, which HoldData and LiftMemoryLimit change for a run).
func Streaming() {
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		debug.SetMemoryLimit(streamingMemoryLimit)
	}
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(streamingGCPercent)
	}
}

// HoldData sets the collector for a command whose live data grows with
// its input (report's page, lint's objects), unlike the streaming commands
// that Streaming's limit is for: under it the collector would run without
// pause. No memory limit, and the heap may grow to twice what is live, not
// four times (as fast, with less memory). GOMEMLIMIT and GOGC still
// decide. It returns what puts the settings back.
func HoldData() (restore func()) {
	restoreLimit, percent := LiftMemoryLimit(), -1
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

// LiftMemoryLimit lifts the memory limit and keeps Streaming's GOGC, for diff:
// it holds both sides' objects and verdicts, and collections must stay few
// (under GOGC=100 a diff of every runtime took 2.1 times one match, over
// its target of 2; under Streaming's GOGC, 1.65 times). GOMEMLIMIT still decides.
// It returns what puts the limit back.
func LiftMemoryLimit() (restore func()) {
	limit := debug.SetMemoryLimit(-1)
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		debug.SetMemoryLimit(math.MaxInt64)
	}
	return func() { debug.SetMemoryLimit(limit) }
}

// FitMemoryLimit raises the soft memory limit to twice what is live,
// as the inputs are read and once they are, when they alone come near
// it: under a limit below what is live the collector runs without pause
// (a match of 300 models against 11,200 runtimes took four times as long).
// GOMEMLIMIT still decides.
func FitMemoryLimit() {
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
