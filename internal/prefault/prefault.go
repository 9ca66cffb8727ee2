// Package prefault maps the program's machine code into its page tables
// at start, in one system call, where the kernel offers that (Linux 5.14
// and later, MADV_POPULATE_READ). A program imports it for its side
// effect, early:
//
//	import _ "github.com/ome-policy/evaluator/internal/prefault"
//
// Why: evaluate links cel-go, OPA and kube-openapi, and its code is 11 MB.
// Each page of it that runs for the first time costs a page fault, and a
// fault costs tens of microseconds on virtual machines; the package
// initialisers of those libraries alone touch several hundred pages before
// main. Asking for the whole code at once takes about a millisecond
// (when the file is in the page cache, as it is after a build or a run) and
// saves 3 to 4 ms of a one-pair run (47 against 51 ms, measured on a 2-core
// VM). The pages are the binary's own, shared with other processes and
// kept by the page cache; a run's resident memory grows by 1 to 2 MB.
//
// It maps only the code (the executable mapping of the program's file),
// not its read-only data, which is larger and mostly never read. Where the
// kernel refuses, nothing changes.
package prefault

// Populated reports whether the program's code was mapped at
// initialisation.
var Populated bool
