// Command plaingo is the benchmarks' denominator: a hand-written Go matcher
// that does the same work as `evaluate match -o json` (reads the same files
// with the same loader, matches every pair with the runtime-level checks,
// writes every pair with its reason and per-entry differences, streaming)
// but with the rules in Go (internal/reference) instead of policies. It is not
// part of the product.
//
// With -dump it only writes the models it read as one YAML file (a folder
// of config.json becomes its ClusterBaseModel), which is how bench/run.sh
// gives the catalog's models to bench/bare.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/input"
	"github.com/ome-policy/evaluator/internal/reference"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/output"
	"github.com/ome-policy/evaluator/results"
)

type paths []string

func (p *paths) String() string     { return strings.Join(*p, ",") }
func (p *paths) Set(s string) error { *p = append(*p, s); return nil }

func main() {
	var models, runtimes paths
	flag.Var(&models, "m", "models: file or folder (repeatable)")
	flag.Var(&runtimes, "r", "runtimes: file or folder (repeatable)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile to this file")
	dump := flag.Bool("dump", false, "write the models as YAML documents and exit")
	flag.Parse()
	if *dump {
		if err := dumpModels(models); err != nil {
			fmt.Fprintln(os.Stderr, "plaingo:", err)
			os.Exit(2)
		}
		return
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "plaingo:", err)
			os.Exit(2)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, "plaingo:", err)
			os.Exit(2)
		}
		defer pprof.StopCPUProfile()
	}
	if err := run(models, runtimes); err != nil {
		fmt.Fprintln(os.Stderr, "plaingo:", err)
		pprof.StopCPUProfile()
		os.Exit(2)
	}
}

func run(models, runtimes []string) error {
	ms, err := input.Load(models, input.LoadOptions{ModelFolders: true})
	if err != nil {
		return err
	}
	rs, err := input.Load(runtimes, input.LoadOptions{})
	if err != nil {
		return err
	}
	// What kubectl apply would leave, as evaluate reads its objects.
	ms, _ = objects.Deduplicate(ms)
	rs, _ = objects.Deduplicate(rs)
	out := bufio.NewWriterSize(os.Stdout, 1<<16)
	w, err := output.NewMatchWriter("json", out)
	if err != nil {
		return err
	}
	if err := w.Begin(ms, rs); err != nil {
		return err
	}
	leftOut := 0
	for _, m := range ms {
		var results []engine.Result
		for _, r := range rs {
			if !objects.InScope(m, r) {
				leftOut++
				continue
			}
			v := reference.Match(m.Spec(), r.Spec())
			res := engine.Result{Model: objects.RefOf(m), Runtime: objects.RefOf(r)}
			res.Compatible, res.Reason = v.Compatible, v.Reason
			res.Entries = make([]engine.EntryResult, len(v.Entries))
			for i, e := range v.Entries {
				res.Entries[i] = engine.EntryResult{Index: e.Index, Matched: e.Matched, Differences: e.Differences}
			}
			results = append(results, res)
		}
		if err := w.Model(objects.RefOf(m), results); err != nil {
			return err
		}
	}
	// internal/reference states OME's newest release, evaluate's default;
	// bench/run.sh fails on any difference from evaluate's output.
	if err := w.End(results.MatchSummary{OMEVersion: "v1.2.2", LeftOut: leftOut}); err != nil {
		return err
	}
	return out.Flush()
}

// dumpModels writes the models of the paths as YAML documents.
func dumpModels(models []string) error {
	ms, err := input.Load(models, input.LoadOptions{ModelFolders: true})
	if err != nil {
		return err
	}
	ms, _ = objects.Deduplicate(ms)
	enc := yaml.NewEncoder(os.Stdout)
	for _, m := range ms {
		meta := map[string]any{"name": m.Name}
		if m.Namespace != "" {
			meta["namespace"] = m.Namespace
		}
		doc := map[string]any{"apiVersion": m.APIVersion, "kind": m.Kind, "metadata": meta, "spec": m.Spec()}
		if err := enc.Encode(doc); err != nil {
			return err
		}
	}
	return enc.Close()
}
