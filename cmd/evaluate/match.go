package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/input"
	"github.com/ome-policy/evaluator/live"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/output"
	"github.com/ome-policy/evaluator/policies/policyset"
	"github.com/ome-policy/evaluator/results"
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
	addFleetFlags(cmd, &o.in)
	takePathArgs(cmd, &o.in)
	addEngineFlag(cmd, &o.engineName, engine.CEL)
	addReleaseFlag(cmd, g)
	addFormatFlag(cmd, &o.format, output.MatchFormats)
	cmd.Flags().StringSliceVar(&o.modelNames, "model-name", nil, "match only the models of these names (comma-separated or repeated)")
	addChoiceFlag(cmd, &o.only, "only", "", "", "show only the models that some runtime accepts or that none does", runner.OnlyChoices)
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
	if o.in.fleet() {
		return o.runFleet(cmd, g, ready)
	}
	got, err := o.in.read(cmd, live.ModelsAndRuntimes, false, nil)
	if err != nil {
		return err
	}
	objs := pick(cmd, got.Objects, "match", "models and runtimes", func(o *objects.Object) bool { return o.IsModel() || o.IsRuntime() })
	ms, rs := input.Only(objs, (*objects.Object).IsModel), input.Only(objs, (*objects.Object).IsRuntime)
	if ms, err = runner.NamedModels(ms, o.modelNames); err != nil {
		reportProblems(cmd, got.Problems)
		return badInput(fmt.Errorf("%w in %s", err, o.in.sources()))
	}
	// Without models, or without runtimes because none could be read,
	// there is nothing to tell.
	if len(ms) == 0 || len(rs) == 0 && len(got.Problems) > 0 {
		if machineReadable(o.format) {
			c := <-ready
			if c.Err != nil {
				return badInput(c.Err)
			}
			if err := output.WriteNoMatches(o.format, cmd.OutOrStdout(), c.Release, got.Problems); err != nil {
				return err
			}
		}
		return o.in.nothingToTell(cmd, got, "models")
	}
	for _, n := range input.ModelNotices(objs) {
		fmt.Fprintln(cmd.ErrOrStderr(), n)
	}
	c := <-ready
	if c.Err != nil {
		return badInput(c.Err)
	}
	fitMemoryLimit()
	w, err := output.NewMatchWriter(o.format, cmd.OutOrStdout())
	if err != nil {
		return badInput(err)
	}
	view := runner.MatchView{Only: o.only, Selector: c.Selector, Namespace: o.in.cluster.FilesNamespace()}
	unserved, err := runner.MatchesIn(view, w, c.Matcher, c.Release, ms, rs, got.Problems, fitMemoryLimit)
	if err != nil {
		return err
	}
	reportProblems(cmd, got.Problems)
	return exitAfter(got.Problems, unserved)
}

// runFleet matches the models and runtimes of each cluster of the fleet,
// each cluster's as a run of it alone would, and writes them as one
// output (output.FleetMatchWriter).
func (o *matchOptions) runFleet(cmd *cobra.Command, g *globalOptions, ready <-chan runner.Compiled) error {
	c := <-ready
	if c.Err != nil {
		return badInput(c.Err)
	}
	fw, err := output.NewFleetMatchWriter(o.format, cmd.OutOrStdout(), c.Release)
	if err != nil {
		return badInput(err)
	}
	problems, unserved := false, false
	clusters, err := eachCluster(&o.in, cmd, func(in *inputOptions) (*input.Result, error) {
		return in.read(cmd, live.ModelsAndRuntimes, false, nil)
	}, func(cl results.Cluster, got *input.Result) error {
		objs := pick(cmd, got.Objects, "match", "models and runtimes", func(o *objects.Object) bool { return o.IsModel() || o.IsRuntime() })
		ms, rs := input.Only(objs, (*objects.Object).IsModel), input.Only(objs, (*objects.Object).IsRuntime)
		ms, err := runner.NamedModels(ms, o.modelNames)
		if err != nil {
			got.Problems = append(got.Problems, &objects.InputError{File: "cluster " + cl.Name, Msg: err.Error()})
		}
		for _, n := range input.ModelNotices(objs) {
			fmt.Fprintln(cmd.ErrOrStderr(), n)
		}
		w, err := fw.Cluster(cl)
		if err != nil {
			return err
		}
		view := runner.MatchView{Only: o.only, Selector: c.Selector, Namespace: o.in.cluster.FilesNamespace()}
		none, err := runner.MatchesIn(view, w, c.Matcher, c.Release, ms, rs, got.Problems, fitMemoryLimit)
		if err != nil {
			return err
		}
		clusterProblems(cmd, cl, got.Problems)
		problems, unserved = problems || len(got.Problems) > 0, unserved || none
		return nil
	})
	return closeFleet(cmd, clusters, err, fw.Close, problems, unserved)
}
