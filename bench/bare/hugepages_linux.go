//go:build linux && (amd64 || arm64 || loong64 || ppc64le || riscv64 || s390x)

package main

import (
	"strings"
	"syscall"
	"unsafe"
)

// The product's huge-page heap (internal/hugeheap), written again here so
// that bare shares no code with the product: neither side wins by its
// page faults. Map 64 MiB of heap with one untouched block, mark the
// heap's first arena through the block's end with MADV_HUGEPAGE, and let
// the collection the block starts free it: the heap's later pages fault in
// 2 MiB at a time.
func init() {
	// GODEBUG's last disablethp setting wins, as in the runtime.
	godebug, _ := syscall.Getenv("GODEBUG")
	off := false
	for _, kv := range strings.Split(godebug, ",") {
		if v, ok := strings.CutPrefix(kv, "disablethp="); ok && (v == "0" || v == "1") {
			off = v == "1"
		}
	}
	if off {
		return
	}
	lo := uintptr(unsafe.Pointer(heapStart)) &^ (64<<20 - 1)
	hi := uintptr(unsafe.Pointer(&make([]byte, 64<<20)[0])) + 64<<20
	if hi > lo {
		syscall.Syscall(syscall.SYS_MADVISE, lo, hi-lo, 14)
	}
}

// heapStart is a heap object allocated early, in the heap's first arena.
var heapStart = new(int64)
