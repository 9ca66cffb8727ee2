package main

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// The product's code prefault (internal/prefault), written again here so
// that bare shares no code with the product and neither side wins by its
// page faults: map the program's executable mapping at start with
// MADV_POPULATE_READ. (Bare's code is small, so this gains it little.)
func init() {
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		return
	}
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return
	}
	for _, line := range bytes.Split(maps, []byte("\n")) {
		f := bytes.Fields(line)
		if len(f) < 6 || string(f[1]) != "r-xp" || string(f[5]) != exe {
			continue
		}
		from, to, _ := strings.Cut(string(f[0]), "-")
		lo, err1 := strconv.ParseUint(from, 16, 64)
		hi, err2 := strconv.ParseUint(to, 16, 64)
		if err1 == nil && err2 == nil && hi > lo {
			syscall.Syscall(syscall.SYS_MADVISE, uintptr(lo), uintptr(hi-lo), 22) // MADV_POPULATE_READ
		}
		return
	}
}
