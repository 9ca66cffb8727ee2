// Command measure runs a command once and prints its wall time in
// milliseconds, its peak resident memory in KiB and its CPU time (user and
// system) in milliseconds ("ms kib cpu_ms"), for
// bench/run.sh. The command's standard output goes to the file named by -o
// (or is discarded); its exit code is ignored, as `evaluate match` exits 1
// when a model has no runtime.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"
)

func main() {
	out := flag.String("o", "", "file for the command's standard output")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: measure [-o FILE] COMMAND [ARG...]")
		os.Exit(2)
	}
	cmd := exec.Command(flag.Arg(0), flag.Args()[1:]...)
	cmd.Stdout = io.Discard
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			fmt.Fprintln(os.Stderr, "measure:", err)
			os.Exit(2)
		}
		defer f.Close()
		cmd.Stdout = f
	}
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, "measure:", err)
		os.Exit(2)
	}
	rss := int64(0)
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = ru.Maxrss // KiB on Linux
	}
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	fmt.Printf("%d %d %d\n", wall.Milliseconds(), rss, cpu.Milliseconds())
}
