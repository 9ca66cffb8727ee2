package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/input"
	"github.com/ome-policy/evaluator/live"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/output"
	"github.com/ome-policy/evaluator/policies/policyset"
	"github.com/ome-policy/evaluator/runner"
)

// matchOptions are match's flags.
type matchOptions struct {
	in         inputOptions
	engineName string
	format     string
	modelNames []string
	only       string
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
	cmd.Flags().StringSliceVar(&o.modelNames, "model-name", nil, "match only the models of these names (comma-separated or repeated)")
	cmd.Flags().StringVar(&o.only, "only", "", "show only the models that some runtime accepts or that none does: "+strings.Join(runner.OnlyChoices, ", "))
	checkBeforeRun(cmd, func() error {
		if o.only == "" {
			return nil
		}
		return checkChoice("only", o.only, runner.OnlyChoices)
	})
	return cmd
}

// run compiles the policies while it reads the models and runtimes, then
// writes each model's results as they come, and the problems of the input
// after them.
func (o *matchOptions) run(cmd *cobra.Command, g *globalOptions) error {
	if !o.in.given() {
		return badInput(fmt.Errorf("give the models and runtimes: files, folders, -f, -m and -r, - or --cluster"))
	}
	parts := runner.CompileMatch
	if o.format == "summary" {
		parts |= runner.CompileSelect
	}
	ready := runner.Compile(o.engineName, func() (*policyset.Set, error) { return g.For(o.engineName) }, parts)
	got, err := o.in.read(g, cmd, live.ModelsAndRuntimes, false, nil)
	if err != nil {
		return err
	}
	objs := pick(cmd, got.Objects, "match", "models and runtimes", func(o *objects.Object) bool { return o.IsModel() || o.IsRuntime() })
	ms, rs := input.Only(objs, (*objects.Object).IsModel), input.Only(objs, (*objects.Object).IsRuntime)
	if len(o.modelNames) > 0 && len(ms) > 0 {
		ms = input.Only(ms, func(m *objects.Object) bool { return slices.Contains(o.modelNames, m.Name) })
		if len(ms) == 0 {
			reportProblems(cmd, got.Problems)
			return badInput(fmt.Errorf("no model named %s in %s", strings.Join(o.modelNames, " or "), o.in.sources()))
		}
	}
	// Without models, or without runtimes because none could be read,
	// there is nothing to tell.
	if len(ms) == 0 || len(rs) == 0 && len(got.Problems) > 0 {
		if machineReadable(o.format) {
			if err := o.writeNone(cmd, <-ready, got.Problems); err != nil {
				return err
			}
		}
		return o.in.nothingToTell(cmd, got, "models")
	}
	noteConfigParsing(cmd, objs)
	// Matching reads values only: the positions of every field, kept for
	// messages about bad input, are dropped, so that the heap the
	// collector scans over and over is the engine's own.
	for _, o := range objs {
		o.Pos = nil
	}
	c := <-ready
	if c.Err != nil {
		return badInput(c.Err)
	}
	runner.FitMemoryLimit()
	w, err := output.NewMatchWriter(o.format, cmd.OutOrStdout())
	if err != nil {
		return badInput(err)
	}
	view := runner.MatchView{Only: o.only, Selector: c.Selector, Namespace: o.in.namespace()}
	unserved, err := runner.MatchesIn(view, w, c.Matcher, c.Release, ms, rs, got.Problems, runner.FitMemoryLimit)
	if err != nil {
		return err
	}
	reportProblems(cmd, got.Problems)
	return exitAfter(got.Problems, unserved)
}

// writeNone writes the document of a run with no result: the input's
// problems, if any, and nothing else.
func (o *matchOptions) writeNone(cmd *cobra.Command, c runner.Compiled, problems []*objects.InputError) error {
	if c.Err != nil {
		return badInput(c.Err)
	}
	w, err := output.NewMatchWriter(o.format, cmd.OutOrStdout())
	if err != nil {
		return badInput(err)
	}
	if err := w.Begin(nil, nil); err != nil {
		return err
	}
	return w.End(output.MatchSummary{OMEVersion: c.Release, Problems: output.Problems(problems)})
}
