// Package hugeheap backs the process's Go heap with transparent huge pages
// (2 MiB) where Linux offers them on request (THP "madvise" mode, the
// common default). A program imports it for its side effect, as early as it
// can:
//
//	import _ "github.com/ome-policy/evaluator/internal/hugeheap"
//
// Why: the Go runtime maps its heap in 4 MiB steps with plain mmap and
// never asks for huge pages, so every 4 KiB page the heap touches first
// costs one page fault. On virtual machines a fault costs tens of
// microseconds: evaluate's one-pair run took over a thousand of them, most
// of its time, and a catalog run ten thousand.
//
// How: at initialisation, before the heavier packages allocate, it
// allocates one large block that it never writes to, so that the runtime
// maps that much heap at once, and marks the heap's address range with
// MADV_HUGEPAGE; the block's size starts a collection, in the background,
// that frees it. Later allocations land in that range, and each first
// touch of a 2 MiB region is one fault instead of 512. The block costs
// address space, not memory.
//
// It does nothing when GODEBUG has disablethp=1 (the runtime's own switch
// against huge pages), and on other systems than Linux.
package hugeheap

// Reserve is how much heap address space is mapped and marked at start: as
// much as evaluate's heap holds at most under its memory limit. Growth past
// it gets ordinary pages.
const Reserve = 64 << 20

// Marked reports whether the heap's range was marked for huge pages at
// initialisation.
var Marked bool

// wanted reports whether GODEBUG (the value of the environment variable)
// leaves huge pages allowed: the last disablethp setting wins, as in the
// runtime. (No strings package: this runs before most packages' init.)
func wanted(godebug string) bool {
	ok := true
	for godebug != "" {
		kv := godebug
		godebug = ""
		for i := 0; i < len(kv); i++ {
			if kv[i] == ',' {
				kv, godebug = kv[:i], kv[i+1:]
				break
			}
		}
		switch kv {
		case "disablethp=1":
			ok = false
		case "disablethp=0":
			ok = true
		}
	}
	return ok
}
