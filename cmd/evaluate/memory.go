package main

import (
	"math"
	"os"
	"runtime/debug"
	"runtime/metrics"

	"github.com/spf13/cobra"

	"github.com/ome-policy/evaluator/engine"
)

// How a command holds memory is said once, where the command is made
// (useMemory), and set up in one place, before it runs (memoryFor, called
// by the root command): a command streams under streaming's limit by default,
// the limit following what is read as it grows (fitMemoryLimit, in the
// reading of the input and between match's models); lint and report hold
// what they read (holdsData); diff holds both sides (holdsBothSides).
const (
	memoryAnnotation = "evaluate/memory"
	holdsData        = "holds-data"
	holdsBothSides   = "holds-both-sides"
)

// useMemory says how cmd holds memory: holdsData or holdsBothSides.
func useMemory(cmd *cobra.Command, use string) {
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	cmd.Annotations[memoryAnnotation] = use
}

// memoryFor sets the collector up for cmd, as useMemory said, and returns
// what puts the settings back.
func memoryFor(cmd *cobra.Command) (restore func()) {
	switch cmd.Annotations[memoryAnnotation] {
	case holdsData:
		return holdData()
	case holdsBothSides:
		return liftMemoryLimit()
	}
	return func() {}
}

// How a run holds memory, said in one place: a soft memory limit for the
// runs that stream (streaming, set once by the command line), moved for a
// run that holds what it reads (holdData, liftMemoryLimit), or raised as
// what is read grows (fitMemoryLimit). GOMEMLIMIT and GOGC, when set,
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

// streaming sets the collector for a process whose runs stream (evaluate's
// default, which holdData and liftMemoryLimit change for a run).
func streaming() {
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		debug.SetMemoryLimit(streamingMemoryLimit)
	}
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(streamingGCPercent)
	}
}

// holdData sets the collector for a command whose live data grows with
// its input (report's page, lint's objects), unlike the streaming commands
// that streaming's limit is for: under it the collector would run without
// pause. No memory limit, and the heap may grow to twice what is live, not
// four times (as fast, with less memory). GOMEMLIMIT and GOGC still
// decide. It returns what puts the settings back.
func holdData() (restore func()) {
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

// A run that holds what it reads (holdsData) and, for a team's rules
// that read OME's decisions, decides them about all of it holds every
// object and OME's matcher at once: under holdData's GOGC=100 the heap
// grew to twice all that. On CEL, whose decisions leave the reasons out
// (engine.NewForDecisions) and allocate about half as much, the collector
// lets the heap grow by half what is live instead (decisionsGCPercent), as
// often collecting for the same time: bench/lint.sh's row of 300 models
// and 11,200 runtimes with --rules went from 709 MB to 392 MB, in 0.70
// times the CPU time. Rego builds its reasons with its verdicts, and under
// GOGC=50 took 1.17 times as long (700 runtimes): it keeps holdData's.
const decisionsGCPercent = 50

// holdDecisions sets the collector for a run of cmd whose team's rules
// read OME's decisions, decided on the engine named, when cmd holds what
// it reads; GOGC still decides. holdData's restore puts back what was set
// before it.
func holdDecisions(cmd *cobra.Command, engineName string) {
	if cmd.Annotations[memoryAnnotation] != holdsData || engineName != engine.CEL {
		return
	}
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(decisionsGCPercent)
	}
}

// liftMemoryLimit lifts the memory limit and keeps streaming's GOGC, for diff:
// it holds both sides' objects and verdicts, and collections must stay few
// (under GOGC=100 a diff of every runtime took 2.1 times one match, over
// its target of 2; under streaming's GOGC, 1.65 times). GOMEMLIMIT still decides.
// It returns what puts the limit back.
func liftMemoryLimit() (restore func()) {
	limit := debug.SetMemoryLimit(-1)
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		debug.SetMemoryLimit(math.MaxInt64)
	}
	return func() { debug.SetMemoryLimit(limit) }
}

// fitMemoryLimit raises the soft memory limit to twice what is live,
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
