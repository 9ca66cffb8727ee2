package main

import (
	"os"
	"runtime/pprof"
	"sync"
)

// cpuProfile starts a Go CPU profile of the run, written to the file at
// path (for `go tool pprof`), and returns what stops it and closes the
// file, which may be called more than once.
func cpuProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			pprof.StopCPUProfile()
			f.Close()
		})
	}, nil
}
