package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"
	"unicode/utf8"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// openPTY opens a pseudo-terminal of cols columns: the terminal side, for
// a command to write to, and what was written to it, once the terminal is
// closed (the line discipline's \r\n as \n). It skips the test where the
// system has no pseudo-terminals.
func openPTY(t *testing.T, cols int) (tty *os.File, written func() string) {
	t.Helper()
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	ioctl := func(f *os.File, req uintptr, arg unsafe.Pointer) error {
		if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), req, uintptr(arg)); e != 0 {
			return e
		}
		return nil
	}
	var n uint32
	var unlock int32
	if err := ioctl(ptmx, syscall.TIOCGPTN, unsafe.Pointer(&n)); err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	require.NoError(t, ioctl(ptmx, syscall.TIOCSPTLCK, unsafe.Pointer(&unlock)))
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	size := struct{ rows, cols, x, y uint16 }{rows: 50, cols: uint16(cols)}
	require.NoError(t, ioctl(tty, syscall.TIOCSWINSZ, unsafe.Pointer(&size)))
	var out bytes.Buffer
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(&out, ptmx) // ends with EIO once the terminal is closed
		close(done)
	}()
	t.Cleanup(func() { ptmx.Close() })
	return tty, func() string {
		tty.Close()
		<-done
		return strings.ReplaceAll(out.String(), "\r\n", "\n")
	}
}

// runOn runs evaluate with standard output on stdout and standard error
// on stderr.
func runOn(stdout, stderr io.Writer, args ...string) int {
	return run(args, strings.NewReader(""), stdout, stderr)
}

// The text of match and select fits a terminal's width, wrapped, no word
// lost; to anything else its lines are whole.
func TestTextFitsTheTerminal(t *testing.T) {
	isvc := at("testdata/select/many-exclusions.yaml")
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"match", []string{"match", "-m", exModels, "-r", exRuntimes}},
		{"select", []string{"select", "-R", "-f", isvc, "-r", at("testdata/catalog/runtimes")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var whole, errOut bytes.Buffer
			code := runOn(&whole, &errOut, tc.args...)
			tty, written := openPTY(t, 80)
			var errOnTTY bytes.Buffer
			require.Equal(t, code, runOn(tty, &errOnTTY, tc.args...), errOnTTY.String())
			wrapped := written()
			longest := 0
			for _, l := range strings.Split(whole.String(), "\n") {
				longest = max(longest, utf8.RuneCountInString(l))
			}
			require.Greater(t, longest, 80, "the case must have lines wider than the terminal")
			for _, l := range strings.Split(wrapped, "\n") {
				require.LessOrEqual(t, utf8.RuneCountInString(l), 80, "%q", l)
			}
			require.Equal(t, strings.Fields(whole.String()), strings.Fields(wrapped), "the same words, in the same order")
		})
	}
}

// Progress shows on standard error when it is a terminal, and the run
// has taken long enough; elsewhere nothing.
func TestProgressOnATerminalOnly(t *testing.T) {
	old := showProgressAfter
	showProgressAfter = 0
	defer func() { showProgressAfter = old }()
	args := []string{"lint", "-R", at("testdata/catalog/runtimes"), "-o", "json"}

	var out, errOut bytes.Buffer
	code := runOn(&out, &errOut, args...)
	require.NotContains(t, errOut.String(), "linting", "no terminal: no progress")

	tty, written := openPTY(t, 120)
	var out2 bytes.Buffer
	require.Equal(t, code, runOn(&out2, tty, args...))
	onTTY := written()
	require.Contains(t, onTTY, "linting")
	require.Equal(t, out.String(), out2.String(), "standard output is the same")
	// Cleared at the end: what stays is standard error's own text.
	lines := strings.Split(strings.TrimRight(onTTY, "\n"), "\n")
	last := lines[len(lines)-1]
	require.NotContains(t, last[strings.LastIndex(last, "\r")+1:], "linting")
}
