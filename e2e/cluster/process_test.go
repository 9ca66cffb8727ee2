package cluster

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A process that exits is reported with the last lines of its log; stop
// waits until a running one has exited; a recorded pid is all stop needs.
func TestProcess(t *testing.T) {
	dir := t.TempDir()
	const sh = "/bin/sh"
	if _, err := os.Stat(sh); err != nil {
		t.Skip("no /bin/sh")
	}

	died := process{name: "dies", dir: dir}
	if err := died.start(sh, []string{"-c", "echo first; echo 'listen: address already in use'; exit 3"}, nil); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for died.alive() && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if died.alive() {
		t.Fatal("the process did not exit")
	}
	msg := died.died().Error()
	if !strings.Contains(msg, "dies exited") || !strings.Contains(msg, "address already in use") || !strings.Contains(msg, filepath.Join(dir, "dies.log")) {
		t.Errorf("died: %s", msg)
	}

	// sleep itself, not under sh: stopping sh would leave its sleep behind.
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep")
	}
	runs := process{name: "runs", dir: dir}
	if err := runs.start(sleep, []string{"60"}, nil); err != nil {
		t.Fatal(err)
	}
	if !runs.alive() {
		t.Fatal("the process does not run")
	}
	// Another process (such as `make cluster-down`) knows it by its pid file.
	again := process{name: "runs", dir: dir}
	if err := again.stop(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	if runs.alive() {
		t.Error("still running after stop")
	}
	if err := (process{name: "never", dir: dir}).stop(time.Second); err != nil {
		t.Errorf("stopping a process that never started: %v", err)
	}
	if err := (process{name: "x", dir: dir}).start(filepath.Join(dir, "missing"), nil, nil); err == nil || !strings.Contains(err.Error(), "make tools") {
		t.Errorf("a missing binary: %v", err)
	}
}

func TestCheckPortFree(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	err = checkPortFree("etcd", port)
	if err == nil || !strings.Contains(err.Error(), "is taken") || !strings.Contains(err.Error(), "etcd") {
		t.Errorf("a taken port: %v", err)
	}
	free, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	if err := checkPortFree("etcd", free); err != nil {
		t.Errorf("a free port: %v", err)
	}
}

// Up refuses to start a second cluster over a running one.
func TestUpRefusesARunningCluster(t *testing.T) {
	dir := t.TempDir()
	p := process{name: "etcd", dir: dir}
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep")
	}
	if err := p.start(sleep, []string{"60"}, nil); err != nil {
		t.Fatalf("starting the process under test: %v", err)
	}
	defer func() { _ = p.stop(5 * time.Second) }()
	_, err = Up(t.Context(), Options{Dir: dir, Bin: dir})
	if err == nil || !strings.Contains(err.Error(), "already running") {
		t.Errorf("Up over a running cluster: %v", err)
	}
	if !p.alive() {
		t.Error("Up stopped the running cluster's process")
	}
}

// A recorded pid that now runs another command line (the process started
// has exited and the system gave its pid to another) is not ours: not
// alive, and stop leaves it alone. Without a recorded command line nothing
// is signalled either.
func TestStopChecksTheCommandLine(t *testing.T) {
	dir := t.TempDir()
	ours := process{name: "etcd", dir: dir}
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep")
	}
	if err := ours.start(sleep, []string{"60"}, nil); err != nil {
		t.Fatalf("starting the process under test: %v", err)
	}
	defer func() { _ = ours.stop(5 * time.Second) }()
	if !ours.alive() {
		t.Fatal("the process started does not run")
	}
	recorded, err := os.ReadFile(ours.pidFile())
	if err != nil {
		t.Fatal(err)
	}

	// Another process, which this package did not start, under the pid file.
	other := exec.Command(sleep, "61")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = other.Process.Kill(); _ = other.Wait() }()
	if err := os.WriteFile(ours.pidFile(), []byte(strconv.Itoa(other.Process.Pid)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if ours.alive() {
		t.Error("a pid that runs another command line counts as the process started")
	}
	if err := ours.stop(time.Second); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(other.Process.Pid, 0); err != nil {
		t.Fatalf("stop signalled a process it did not start: %v", err)
	}
	if got := Running(dir); len(got) != 0 {
		t.Errorf("Running: %v", got)
	}

	// No command line recorded: not signalled.
	if err := os.WriteFile(ours.pidFile(), recorded, 0o644); err != nil {
		t.Fatal(err)
	}
	if !ours.alive() {
		t.Fatal("the process started, back under its pid file, does not run")
	}
	cmdline, err := os.ReadFile(ours.cmdlineFile())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(ours.cmdlineFile()); err != nil {
		t.Fatal(err)
	}
	if ours.alive() {
		t.Error("a pid without a recorded command line counts as the process started")
	}
	if err := os.WriteFile(ours.cmdlineFile(), cmdline, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := ours.stop(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(recorded)))
	if ours.alive() || syscall.Kill(pid, 0) == nil && ours.ours(pid) {
		t.Error("the process started still runs after stop")
	}
}

// A process is alive as soon as start returns: start waits until the kernel
// has finished exec, when the child's command line reads as recorded (until
// then it reads as its parent's, or empty, which once made `make e2e` take
// a starting etcd for another process).
func TestAliveRightAfterStart(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep")
	}
	dir := t.TempDir()
	for i := range 30 {
		p := process{name: "sleep" + strconv.Itoa(i), dir: dir}
		if err := p.start(sleep, []string{"60"}, nil); err != nil {
			t.Fatal(err)
		}
		alive := p.alive()
		if err := p.stop(5 * time.Second); err != nil {
			t.Fatal(err)
		}
		if !alive {
			t.Fatalf("start %d: not alive right after start: %v", i, p.died())
		}
	}
}
