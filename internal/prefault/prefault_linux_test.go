package prefault

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

func TestFindMapping(t *testing.T) {
	const maps = "00400000-00f37000 r-xp 00000000 fe:00 123  /usr/bin/evaluate\n" +
		"00f37000-02092000 r--p 00b37000 fe:00 123  /usr/bin/evaluate\n" +
		"c000000000-c004000000 rw-p 00000000 00:00 0\n" +
		"not a mapping line\n" +
		"7ffd1000-7ffd3000 r-xp 00000000 00:00 0  [vdso]"
	for _, tc := range []struct {
		addr       uintptr
		start, end uintptr
		ok         bool
	}{
		{0x400000, 0x400000, 0xf37000, true},
		{0xf36fff, 0x400000, 0xf37000, true},
		{0xf37000, 0xf37000, 0x2092000, true},
		{0xc000001000, 0xc000000000, 0xc004000000, true},
		{0x7ffd2fff, 0x7ffd1000, 0x7ffd3000, true},
		{0x3fffff, 0, 0, false},
		{0x2092000, 0, 0, false},
	} {
		t.Run(fmt.Sprintf("%#x", tc.addr), func(t *testing.T) {
			s, e, ok := findMapping([]byte(maps), tc.addr)
			require.Equal(t, tc.ok, ok)
			require.Equal(t, tc.start, s)
			require.Equal(t, tc.end, e)
		})
	}
	_, _, ok := findMapping(nil, 0x400000)
	require.False(t, ok)
}

// When the kernel took the request, the code's mapping is wholly resident:
// its Rss in /proc/self/smaps is its size.
func TestCodeIsResident(t *testing.T) {
	if !Populated {
		t.Skip("the kernel refused MADV_POPULATE_READ (Linux before 5.14?)")
	}
	f := marker
	pc := **(**uintptr)(unsafe.Pointer(&f))
	start, _, ok := mappingOf(pc)
	require.True(t, ok)
	size, rss := smapsSizes(t, start)
	require.Positive(t, size)
	require.Equal(t, size, rss, "Rss of the code mapping at %#x, in kB", start)
}

// smapsSizes gives the Size and Rss lines, in kB, of the mapping that
// starts at start.
func smapsSizes(t *testing.T, start uintptr) (size, rss int) {
	f, err := os.Open("/proc/self/smaps")
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		line := sc.Text()
		// A mapping's first line starts with its range; its fields'
		// lines with a name and a colon.
		if first, _, _ := strings.Cut(line, " "); strings.Contains(first, "-") && !strings.HasSuffix(first, ":") {
			s, _ := hexPrefix([]byte(first)) // zero-padded in smaps
			in = s == start
			continue
		}
		if !in {
			continue
		}
		var n int
		if _, err := fmt.Sscanf(line, "Size: %d kB", &n); err == nil {
			size = n
		}
		if _, err := fmt.Sscanf(line, "Rss: %d kB", &n); err == nil {
			rss = n
		}
	}
	require.NoError(t, sc.Err())
	return size, rss
}
