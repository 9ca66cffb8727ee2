package prefault

import (
	"syscall"
	"unsafe"
)

const madvPopulateRead = 22 // MADV_POPULATE_READ, linux/mman-common.h

// marker is a function of the program: its code's address is in the
// program's executable mapping.
func marker() {}

func init() {
	f := marker
	pc := **(**uintptr)(unsafe.Pointer(&f)) // a func value points at its code pointer
	start, end, ok := mappingOf(pc)
	if !ok {
		return
	}
	_, _, errno := syscall.Syscall(syscall.SYS_MADVISE, start, end-start, madvPopulateRead)
	Populated = errno == 0
}

// mappingOf finds, in /proc/self/maps, the mapping that holds addr. (Plain
// syscalls and no strings or bufio: this runs before most packages'
// initialisers, which is the point.)
func mappingOf(addr uintptr) (start, end uintptr, ok bool) {
	fd, err := syscall.Open("/proc/self/maps", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return 0, 0, false
	}
	defer syscall.Close(fd)
	// The program's own mappings come first; a few lines are enough.
	var buf [4096]byte
	n, err := syscall.Read(fd, buf[:])
	if err != nil || n <= 0 {
		return 0, 0, false
	}
	return findMapping(buf[:n], addr)
}

// findMapping reads maps lines ("start-end perms ...", hexadecimal
// addresses) and returns the range that holds addr.
func findMapping(maps []byte, addr uintptr) (start, end uintptr, ok bool) {
	for len(maps) > 0 {
		line := maps
		maps = nil
		for i, c := range line {
			if c == '\n' {
				line, maps = line[:i], line[i+1:]
				break
			}
		}
		s, i := hexPrefix(line)
		if i == 0 || i >= len(line) || line[i] != '-' {
			continue
		}
		e, j := hexPrefix(line[i+1:])
		if j == 0 {
			continue
		}
		if s <= addr && addr < e {
			return s, e, true
		}
	}
	return 0, 0, false
}

// hexPrefix reads the lowercase hexadecimal number that b starts with and
// says how many bytes it took.
func hexPrefix(b []byte) (uintptr, int) {
	var v uintptr
	for i, c := range b {
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | uintptr(c-'0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | uintptr(c-'a'+10)
		default:
			return v, i
		}
	}
	return v, len(b)
}
