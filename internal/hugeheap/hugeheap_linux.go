//go:build linux && (amd64 || arm64 || loong64 || ppc64le || riscv64 || s390x)

package hugeheap

import (
	"syscall"
	"unsafe"
)

const (
	madvHugepage = 14       // MADV_HUGEPAGE, linux/mman-common.h
	arenaBytes   = 64 << 20 // the runtime's heap arena on 64-bit Linux
)

// early is the package's first heap allocation: it lies in the heap's
// first arena, near where the heap begins.
var early = new([16]byte)

func init() {
	if !wanted(godebug()) {
		return
	}
	// A block that nothing keeps, of which only the address is used: the
	// runtime maps heap for it, and the collection that its size starts at
	// once, in the background, frees it (or the next one does).
	end := uintptr(unsafe.Pointer(unsafe.SliceData(make([]byte, Reserve)))) + Reserve
	start := uintptr(unsafe.Pointer(early)) &^ (arenaBytes - 1)
	if end > start {
		_, _, errno := syscall.Syscall(syscall.SYS_MADVISE, start, end-start, madvHugepage)
		Marked = errno == 0
	}
}

func godebug() string {
	v, _ := syscall.Getenv("GODEBUG")
	return v
}
