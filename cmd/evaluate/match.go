package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/live"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/output"
)

// matchOptions are match's flags.
type matchOptions struct {
	in         inputOptions
	engineName string
	format     string
}

func newMatchCommand(g *globalOptions) *cobra.Command {
	o := &matchOptions{}
	cmd := &cobra.Command{
		Use:     "match [PATH...] [-f PATH...] [-m PATH... -r PATH...]",
		Short:   "Say which runtimes accept which models, and why not",
		Long:    helpText("match"),
		Example: exampleText("match"),
		RunE:    func(cmd *cobra.Command, _ []string) error { return o.run(cmd, g) },
	}
	addInputFlags(cmd, &o.in, true)
	takePathArgs(cmd, &o.in)
	addEngineFlag(cmd, &o.engineName, engine.CEL)
	addReleaseFlag(cmd, g)
	addFormatFlag(cmd, &o.format, output.MatchFormats)
	return cmd
}

// run compiles the policies while it reads the models and runtimes, then
// writes each model's results as they come, and the problems of the input
// after them.
func (o *matchOptions) run(cmd *cobra.Command, g *globalOptions) error {
	if !o.in.given() {
		return badInput(fmt.Errorf("give the models and runtimes: files, folders, -f, -m and -r, - or --cluster"))
	}
	ready := compileMatcher(g, o.engineName)
	input, err := o.in.read(g, cmd, live.ModelsAndRuntimes, false, nil)
	if err != nil {
		return err
	}
	objs := pick(cmd, input.Objects, "match", "models and runtimes", func(o *objects.Object) bool { return o.IsModel() || o.IsRuntime() })
	ms, rs := only(objs, (*objects.Object).IsModel), only(objs, (*objects.Object).IsRuntime)
	// Without models, or without runtimes because none could be read,
	// there is nothing to tell.
	if len(ms) == 0 || len(rs) == 0 && len(input.Problems) > 0 {
		return o.in.nothingToTell(cmd, input, "models")
	}
	noteConfigParsing(cmd, ms)
	// Matching reads values only: the positions of every field, kept for
	// messages about bad input, are dropped, so that the heap the
	// collector scans over and over is the engine's own.
	for _, o := range objs {
		o.Pos = nil
	}
	c := <-ready
	if c.err != nil {
		return c.err
	}
	fitMemoryLimit()
	unserved, err := writeMatches(cmd, o.format, c.m, c.release, ms, rs, input.Problems)
	if err != nil {
		return err
	}
	reportProblems(cmd, input.Problems)
	return exitAfter(input.Problems, unserved)
}

// compiledMatcher is the matcher of compileMatcher, or why there is none.
type compiledMatcher struct {
	release string // the OME release whose rules m applies
	m       engine.Matcher
	err     error
}

// compileMatcher compiles the policies for the engine in the background,
// so that they compile while the files load.
func compileMatcher(g *globalOptions, engineName string) <-chan compiledMatcher {
	ready := make(chan compiledMatcher, 1)
	go func() {
		set, err := g.policies(engineName)
		if err != nil {
			ready <- compiledMatcher{"", nil, badInput(err)}
			return
		}
		m, err := engine.New(engineName, set)
		if err != nil {
			err = badInput(err)
		}
		ready <- compiledMatcher{set.Release, m, err}
	}()
	return ready
}

// writeMatches matches every model against the runtimes OME pairs it with
// and writes the results, each model's as soon as they are known; unserved
// says whether some model has no compatible runtime.
func writeMatches(cmd *cobra.Command, format string, m engine.Matcher, release string, ms, rs []*objects.Object, problems []*objects.InputError) (unserved bool, err error) {
	w, err := output.NewMatchWriter(format, cmd.OutOrStdout())
	if err != nil {
		return false, badInput(err)
	}
	if err := w.Begin(ms, rs); err != nil {
		return false, err
	}
	leftOut, err := engine.MatchObjects(m, ms, rs, func(mo *objects.Object, results []engine.Result) error {
		fitMemoryLimit() // what the engine prepared is live too
		served := false
		for _, r := range results {
			served = served || r.Compatible
		}
		unserved = unserved || !served
		return w.Model(objects.RefOf(mo), results)
	})
	if err != nil {
		return false, err
	}
	return unserved, w.End(output.MatchSummary{OMEVersion: release, LeftOut: leftOut, Problems: output.Problems(problems)})
}
