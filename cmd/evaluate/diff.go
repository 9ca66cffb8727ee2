package main

import (
	"github.com/ome-policy/evaluator/input"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ome-policy/evaluator/diff"
	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/output/diffout"
	"github.com/ome-policy/evaluator/policies/policyset"
	"github.com/ome-policy/evaluator/results"
	"github.com/ome-policy/evaluator/runner"
)

// The values of diff's --fail-on.
const (
	failOnRegressions = "regressions"
	failOnChanges     = "changes"
	failOnNever       = "never"
)

var failOnChoices = []string{failOnRegressions, failOnChanges, failOnNever}

// diffOptions are diff's flags.
type diffOptions struct {
	in         inputOptions
	engineName string
	format     string
	base       string
	failOn     string
	// toRelease is the OME release of an upgrade (--to-ome-version): the
	// same objects, judged by the rules of --ome-version and of this one.
	toRelease string
	// showReasons lists the verdicts that hold in other words.
	showReasons bool
	rules       ruleOptions
}

func newDiffCommand(g *globalOptions) *cobra.Command {
	o := &diffOptions{}
	cmd := &cobra.Command{
		Use:     "diff OLD NEW | --base REF PATH... | --cluster -f PATH... | --to-ome-version RELEASE PATH...",
		Short:   "Say what a change does: runtimes gained and lost, InferenceServices moved or refused",
		Long:    helpText("diff"),
		Example: exampleText("diff"),
		RunE:    func(cmd *cobra.Command, args []string) error { return o.run(cmd, g, args) },
	}
	addInputFlags(cmd, &o.in, true)
	addFleetFlags(cmd, &o.in)
	// A change in a folder that diff does not read would pass unseen.
	o.in.UnreadIsProblem = true
	cmd.Flags().StringVar(&o.base, "base", "", "OLD is PATH... as git has it at this commit, branch or tag (NEW: PATH... now)")
	addChoiceFlag(cmd, &o.failOn, "fail-on", "", failOnRegressions, "exit 1 on", failOnChoices)
	addEngineFlag(cmd, &o.engineName, engine.CEL)
	addReleaseFlag(cmd, g)
	cmd.Flags().StringVar(&o.toRelease, "to-ome-version", "", "what an upgrade of OME does to the same objects: the release upgraded to (from --ome-version's): "+
		strings.Join(policyset.EmbeddedReleases(), ", "))
	completeReleases(cmd, "to-ome-version")
	cmd.Flags().BoolVar(&o.showReasons, "show-reasons", false, "also list the verdicts that hold with another reason (text and markdown; json always lists them)")
	addFormatFlag(cmd, &o.format, diffout.Formats)
	addRulesFlag(cmd, &o.rules, "the findings the change makes or clears are listed, and an error it makes is a regression")
	// Both sides' objects and verdicts are held the whole run.
	useMemory(cmd, holdsBothSides)
	return cmd
}

// run reads both sides while the policies compile (runner.Diff), works
// out what the change does and writes it, then the problems of the input.
func (o *diffOptions) run(cmd *cobra.Command, g *globalOptions, args []string) error {
	in := o.in
	in.paths = args // OLD and NEW, or the files of the change
	sb, err := o.rules.sandbox()
	if err != nil {
		return err
	}
	d := runner.Diff{Engine: o.engineName, Policies: &g.Policies, In: in.options(cmd, nil), Base: o.base, ToRelease: o.toRelease, Sources: in.sources(),
		Rules: o.rules.paths, Sandbox: sb}
	if err := d.Sides(args, len(in.files)+len(in.Models)+len(in.Runtimes), &o.in.cluster); err != nil {
		return badInput(err)
	}
	if d.Cluster != nil && o.in.fleet() {
		return o.runFleet(cmd, g, d, args)
	}
	p := newProgress(cmd, "diff: reading", 2)
	defer p.Finish()
	d.Comparing = func() { p.Set("diff: comparing", 1, 2) }
	r, err := d.Run()
	if err != nil {
		return rulesError(cmd, err)
	}
	p.Finish()
	if r.Report == nil {
		if machineReadable(o.format) {
			none := &diff.Report{Models: []diff.ModelChange{}, InferenceServices: []diff.ServiceChange{}, Unmoved: []diff.ObjectChange{}}
			if err := o.write(cmd, none, r); err != nil {
				return err
			}
		}
		return in.nothingToTell(cmd, &input.Result{Problems: r.Problems}, "OME objects")
	}
	if err := o.write(cmd, r.Report, r); err != nil {
		return err
	}
	reportProblems(cmd, r.Problems)
	fail := false
	switch o.failOn {
	case failOnRegressions:
		fail = r.Report.Regressions() > 0
	case failOnChanges:
		fail = r.Report.Changes() > 0
	}
	return exitAfter(r.Problems, fail)
}

// runFleet says what the change does to each cluster of the fleet: each
// cluster (OLD) against itself with the files applied (NEW), as a diff of
// that cluster alone would, written as one output (diffout.FleetWriter).
func (o *diffOptions) runFleet(cmd *cobra.Command, g *globalOptions, d runner.Diff, args []string) error {
	fw, err := diffout.NewFleetWriter(o.format, cmd.OutOrStdout())
	if err != nil {
		return badInput(err)
	}
	in := o.in
	in.paths = args
	problems, fail := false, false
	clusters, err := eachCluster(&in, cmd, func(mine *inputOptions) (runner.DiffResult, error) {
		md := d
		md.In, md.Cluster = mine.options(cmd, nil), &mine.cluster
		return md.Run()
	}, func(cl results.Cluster, r runner.DiffResult) error {
		r.Old = strings.Replace(r.Old, "the cluster", "cluster "+cl.Name, 1)
		r.New = strings.Replace(r.New, "the cluster", "cluster "+cl.Name, 1)
		report := r.Report
		if report == nil {
			report = &diff.Report{Models: []diff.ModelChange{}, InferenceServices: []diff.ServiceChange{}, Unmoved: []diff.ObjectChange{}}
		}
		if err := fw.Cluster(cl, report, diffout.Sides{Old: r.Old, New: r.New, OMEVersion: r.From, ToOMEVersion: r.To,
			Problems: results.Problems(r.Problems), ShowReasons: o.showReasons}); err != nil {
			return err
		}
		clusterProblems(cmd, cl, r.Problems)
		problems = problems || len(r.Problems) > 0
		switch o.failOn {
		case failOnRegressions:
			fail = fail || report.Regressions() > 0
		case failOnChanges:
			fail = fail || report.Changes() > 0
		}
		return nil
	})
	if err != nil {
		return rulesError(cmd, err)
	}
	if err := fw.Close(clusters); err != nil {
		return err
	}
	return fleetExit(cmd, clusters, problems, fail)
}

// write writes report, of the sides of r.
func (o *diffOptions) write(cmd *cobra.Command, report *diff.Report, r runner.DiffResult) error {
	w, err := diffout.NewWriter(o.format, cmd.OutOrStdout())
	if err != nil {
		return badInput(err)
	}
	return w.Write(report, diffout.Sides{Old: r.Old, New: r.New, OMEVersion: r.From, ToOMEVersion: r.To,
		Problems: results.Problems(r.Problems), ShowReasons: o.showReasons})
}
