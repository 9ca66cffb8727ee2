package cluster

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// A process of the control plane: started detached from the caller's
// terminal and output (its own session, standard input from /dev/null, both
// outputs to NAME.log), its pid recorded in NAME.pid and its command line in
// NAME.cmdline, so that a later `down`, in another process, stops exactly
// it: a recorded pid is signalled only while /proc/PID/cmdline is still that
// command line (the system may since have given the pid to another process).
type process struct {
	name string
	dir  string
}

func (p process) logFile() string { return filepath.Join(p.dir, p.name+".log") }
func (p process) pidFile() string { return filepath.Join(p.dir, p.name+".pid") }
func (p process) cmdlineFile() string {
	return filepath.Join(p.dir, p.name+".cmdline")
}

// cmdline is a command line as /proc/PID/cmdline has it: each argument
// followed by a NUL byte.
func cmdline(args []string) []byte {
	var b bytes.Buffer
	for _, a := range args {
		b.WriteString(a)
		b.WriteByte(0)
	}
	return b.Bytes()
}

func (p process) start(binary string, args []string, env []string) error {
	if _, err := os.Stat(binary); err != nil {
		return fmt.Errorf("%s: %s is missing; `make tools` builds it", p.name, binary)
	}
	logf, err := os.OpenFile(p.logFile(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd := exec.Command(binary, args...)
	cmd.Stdout, cmd.Stderr, cmd.Stdin = logf, logf, nil
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: starting %s: %w", p.name, binary, err)
	}
	pid := cmd.Process.Pid
	// Reap it if it dies while this process still runs, so that alive()
	// sees a dead child as dead rather than as a zombie.
	go func() { _ = cmd.Wait() }()
	if err := writeFile(p.cmdlineFile(), cmdline(cmd.Args)); err != nil {
		return err
	}
	if err := writeFile(p.pidFile(), []byte(strconv.Itoa(pid)+"\n")); err != nil {
		return err
	}
	// Start returns while the kernel may still be inside exec, when the
	// child's command line reads as its parent's or as empty: wait, briefly,
	// until it reads as recorded (or the child is gone), so that alive()
	// does not take a child still starting for another process.
	for deadline := time.Now().Add(5 * time.Second); !p.ours(pid) && !gone(pid) && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	return nil
}

// pid is the recorded pid, 0 when there is none.
func (p process) pid() int {
	data, err := os.ReadFile(p.pidFile())
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	return n
}

// ours tells whether pid runs the command line recorded at start. A
// zombie's command line is empty, so it is not ours either; nor is any
// process when no command line was recorded.
func (p process) ours(pid int) bool {
	want, err := os.ReadFile(p.cmdlineFile())
	if err != nil || len(want) == 0 {
		return false
	}
	got, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return err == nil && bytes.Equal(got, want)
}

// alive tells whether the recorded process still runs (and is not a
// zombie), and is still the one started: its pid runs the recorded command
// line.
func (p process) alive() bool {
	pid := p.pid()
	return pid > 0 && p.ours(pid) && !gone(pid)
}

// gone tells whether pid runs no more: no such process, or a zombie.
func gone(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return true
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	// The state follows the command name in parentheses.
	i := bytes.LastIndexByte(stat, ')')
	return i > 0 && i+2 < len(stat) && stat[i+2] == 'Z'
}

// died is the error for a process that exited while it should run: its
// name and the last lines of its log.
func (p process) died() error {
	if pid := p.pid(); pid > 0 && !gone(pid) && !p.ours(pid) {
		got, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		return fmt.Errorf("%s (pid %d) runs %q, not the command line recorded in %s; the last lines of %s:\n%s",
			p.name, pid, bytes.ReplaceAll(got, []byte{0}, []byte{' '}), p.cmdlineFile(), p.logFile(), p.tail(15))
	}
	return fmt.Errorf("%s exited; the last lines of %s:\n%s", p.name, p.logFile(), p.tail(15))
}

func (p process) tail(n int) string {
	data, err := os.ReadFile(p.logFile())
	if err != nil {
		return "  (no log)"
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return "  " + strings.Join(lines, "\n  ")
}

// stop sends SIGTERM to the recorded process, SIGKILL after grace, and
// returns once it has exited. A pid that runs another command line than
// the one recorded is not signalled: the process started is gone.
func (p process) stop(grace time.Duration) error {
	pid := p.pid()
	if pid <= 0 {
		return nil
	}
	if !p.alive() {
		return nil
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("%s (pid %d): %w", p.name, pid, err)
	}
	deadline := time.Now().Add(grace)
	for p.alive() {
		if time.Now().After(deadline) && p.ours(pid) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			deadline = time.Now().Add(grace)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return nil
}

// freePort asks the kernel for a free port on 127.0.0.1.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// checkPortFree fails with a clear message when something already listens
// on the port (a port given by the user, or taken between choice and start).
func checkPortFree(name string, port int) error {
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return fmt.Errorf("%s: port 127.0.0.1:%d is taken: %v", name, port, err)
	}
	return l.Close()
}
