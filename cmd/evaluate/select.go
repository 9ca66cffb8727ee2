package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/input"
	"github.com/ome-policy/evaluator/output"
	"github.com/ome-policy/evaluator/results"
	"github.com/ome-policy/evaluator/runner"
)

// selectOptions are select's flags.
type selectOptions struct {
	in         inputOptions
	engineName string
	format     string
	strict     bool
	rules      ruleOptions
}

func newSelectCommand(g *globalOptions) *cobra.Command {
	o := &selectOptions{}
	cmd := &cobra.Command{
		Use:     "select [PATH...] [-f PATH...] [-m PATH...] [-r PATH...]",
		Short:   "Say what OME's webhook will do with each InferenceService",
		Long:    helpText("select"),
		Example: exampleText("select"),
		RunE:    func(cmd *cobra.Command, _ []string) error { return o.run(cmd, g) },
	}
	addInputFlags(cmd, &o.in, true)
	addFleetFlags(cmd, &o.in)
	takePathArgs(cmd, &o.in)
	addEngineFlag(cmd, &o.engineName, engine.CEL)
	addReleaseFlag(cmd, g)
	addFormatFlag(cmd, &o.format, output.SelectFormats)
	cmd.Flags().BoolVar(&o.strict, "strict-named-runtime", false, "reject an InferenceService whose named runtime OME's controller would refuse")
	addRulesFlag(cmd, &o.rules, "each InferenceService is shown refused (an error), warned or noted by a rule apart from OME's verdict; an error exits 1 as a refusal does")
	return cmd
}

// run reads the InferenceServices and the cluster's models and runtimes,
// decides on each InferenceService as OME's webhook does, and writes the
// decisions, then the problems of the input.
func (o *selectOptions) run(cmd *cobra.Command, g *globalOptions) error {
	if !o.in.given() {
		return badInput(fmt.Errorf("give the InferenceServices, models and runtimes: files, folders, -f (-m and -r for models and runtimes), - or --cluster"))
	}
	if o.in.fleet() {
		return o.runFleet(cmd, g)
	}
	got, err := o.in.readWithServices(cmd)
	if err != nil {
		return err
	}
	set, team, err := policiesAndRules(cmd, g, o.engineName, &o.rules)
	if err != nil {
		return err
	}
	services, cluster := runner.SplitServices(got.Objects)
	if len(services) == 0 {
		if machineReadable(o.format) {
			if err := output.WriteNoSelections(o.format, cmd.OutOrStdout(), set.Release, got.Problems); err != nil {
				return err
			}
		}
		return o.in.nothingToTell(cmd, got, "InferenceServices")
	}
	fitMemoryLimit()
	sel := runner.Selection{Engine: o.engineName, Set: set, Strict: o.strict, Notice: func(n string) { fmt.Fprintln(cmd.ErrOrStderr(), n) }, Team: team}
	decisions, fails, problems, err := sel.Run(services, cluster)
	if err != nil {
		return err
	}
	got.Problems = append(got.Problems, problems...)
	w, err := output.NewSelectWriter(o.format, cmd.OutOrStdout(), set.Release)
	if err != nil {
		return badInput(err)
	}
	if err := w.Write(decisions, results.Problems(got.Problems)); err != nil {
		return err
	}
	reportProblems(cmd, got.Problems)
	return exitAfter(got.Problems, fails)
}

// runFleet decides on the InferenceServices of each cluster of the fleet
// (with the files' beside, as a run of each cluster alone would), and
// writes the decisions as one output (output.FleetSelectWriter).
func (o *selectOptions) runFleet(cmd *cobra.Command, g *globalOptions) error {
	set, team, err := policiesAndRules(cmd, g, o.engineName, &o.rules)
	if err != nil {
		return err
	}
	fw, err := output.NewFleetSelectWriter(o.format, cmd.OutOrStdout(), set.Release)
	if err != nil {
		return badInput(err)
	}
	problems, fails := false, false
	clusters, err := eachCluster(&o.in, cmd, func(in *inputOptions) (*input.Result, error) {
		return in.readWithServices(cmd)
	}, func(cl results.Cluster, got *input.Result) error {
		services, objs := runner.SplitServices(got.Objects)
		sel := runner.Selection{Engine: o.engineName, Set: set, Strict: o.strict, Notice: func(n string) { fmt.Fprintln(cmd.ErrOrStderr(), n) }, Team: team}
		decisions, failed, ruleProblems, err := sel.Run(services, objs)
		if err != nil {
			return err
		}
		got.Problems = append(got.Problems, ruleProblems...)
		if err := fw.Cluster(cl, decisions, results.Problems(got.Problems)); err != nil {
			return err
		}
		clusterProblems(cmd, cl, got.Problems)
		problems, fails = problems || len(got.Problems) > 0, fails || failed
		return nil
	})
	return closeFleet(cmd, clusters, err, fw.Close, problems, fails)
}
