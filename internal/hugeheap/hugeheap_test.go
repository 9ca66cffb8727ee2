package hugeheap

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

func TestWanted(t *testing.T) {
	for _, c := range []struct {
		godebug string
		want    bool
	}{
		{"", true},
		{"disablethp=0", true},
		{"disablethp=1", false},
		{"inittrace=1,disablethp=1", false},
		{"disablethp=1,inittrace=1", false},
		{"disablethp=1,disablethp=0", true},
		{"disablethp=0,disablethp=1", false},
		{"xdisablethp=1,disablethp=10", true},
		{",,", true},
	} {
		require.Equal(t, c.want, wanted(c.godebug), "GODEBUG=%q", c.godebug)
	}
}

// TestHeapIsMarked finds the mapping that holds a fresh heap object in
// /proc/self/smaps and requires the kernel's hg flag (MADV_HUGEPAGE) on it.
func TestHeapIsMarked(t *testing.T) {
	if runtime.GOOS != "linux" || unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("huge pages are asked for on 64-bit Linux only")
	}
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil {
		t.Skip("this kernel has no transparent huge pages")
	}
	if !wanted(os.Getenv("GODEBUG")) {
		require.False(t, Marked, "GODEBUG has disablethp=1")
		return
	}
	require.True(t, Marked, "init did not mark the heap")
	// The block init dropped is freed by a collection that may still run;
	// after this one, the heap's free pages are the marked ones.
	runtime.GC()
	obj := make([]byte, 1<<20)
	addr := uintptr(unsafe.Pointer(unsafe.SliceData(obj)))
	flags, err := vmFlags(addr)
	require.NoError(t, err)
	require.Contains(t, strings.Fields(flags), "hg", "mapping of %#x has VmFlags %q", addr, flags)
	runtime.KeepAlive(obj)
}

// vmFlags gives the VmFlags line of the mapping in /proc/self/smaps that
// holds addr.
func vmFlags(addr uintptr) (string, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return "", err
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x ", &lo, &hi); n == 2 {
			in = lo <= addr && addr < hi
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return strings.TrimPrefix(line, "VmFlags:"), nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", fmt.Errorf("no mapping holds %#x", addr)
}
