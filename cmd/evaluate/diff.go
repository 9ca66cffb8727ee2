package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/ome-policy/evaluator/diff"
	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/output"
	"github.com/ome-policy/evaluator/output/diffout"
	"github.com/ome-policy/evaluator/policies/policyset"
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
	// A change in a folder that diff does not read would pass unseen.
	o.in.UnreadIsProblem = true
	cmd.Flags().StringVar(&o.base, "base", "", "OLD is PATH... as git has it at this commit, branch or tag (NEW: PATH... now)")
	addChoiceFlag(cmd, &o.failOn, "fail-on", "", failOnRegressions, "exit 1 on", failOnChoices)
	addEngineFlag(cmd, &o.engineName, engine.CEL)
	addReleaseFlag(cmd, g)
	cmd.Flags().StringVar(&o.toRelease, "to-ome-version", "", "what an upgrade of OME does to the same objects: the release upgraded to (from --ome-version's): "+
		strings.Join(policyset.EmbeddedReleases(), ", "))
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
	d := runner.Diff{Engine: o.engineName, Policies: &g.Policies, In: in.options(g, cmd, nil), Base: o.base, ToRelease: o.toRelease, Sources: in.sources(),
		Rules: o.rules.paths, Sandbox: sb}
	if err := d.Sides(args, len(in.files)+len(in.Models)+len(in.Runtimes), &o.in.cluster); err != nil {
		return badInput(err)
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
		return in.nothingToTell(cmd, &objects.Input{Problems: r.Problems}, "OME objects")
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

// write writes report, of the sides of r.
func (o *diffOptions) write(cmd *cobra.Command, report *diff.Report, r runner.DiffResult) error {
	w, err := diffout.NewWriter(o.format, cmd.OutOrStdout())
	if err != nil {
		return badInput(err)
	}
	return w.Write(report, diffout.Sides{Old: r.Old, New: r.New, OMEVersion: r.From, ToOMEVersion: r.To,
		Problems: output.Problems(r.Problems), ShowReasons: o.showReasons})
}
