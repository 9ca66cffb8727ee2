package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ome-policy/evaluator/diff"
	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/input"
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
	o.in.unreadIsProblem = true
	cmd.Flags().StringVar(&o.base, "base", "", "OLD is PATH... as git has it at this commit, branch or tag (NEW: PATH... now)")
	cmd.Flags().StringVar(&o.failOn, "fail-on", failOnRegressions, "exit 1 on: "+strings.Join(failOnChoices, ", "))
	checkBeforeRun(cmd, func() error { return checkChoice("fail-on", o.failOn, failOnChoices) })
	addEngineFlag(cmd, &o.engineName, engine.CEL)
	addReleaseFlag(cmd, g)
	cmd.Flags().StringVar(&o.toRelease, "to-ome-version", "", "what an upgrade of OME does to the same objects: the release upgraded to (from --ome-version's): "+
		strings.Join(policyset.EmbeddedReleases(), ", "))
	cmd.Flags().BoolVar(&o.showReasons, "show-reasons", false, "also list the verdicts that hold with another reason (text and markdown; json always lists them)")
	addFormatFlag(cmd, &o.format, diffout.Formats)
	// Both sides' objects and verdicts are held the whole run.
	useMemory(cmd, holdsBothSides)
	return cmd
}

// run reads both sides while the policies compile, works out what the
// change does and writes it, then the problems of the input.
func (o *diffOptions) run(cmd *cobra.Command, g *globalOptions, args []string) error {
	if err := o.checkSides(args); err != nil {
		return err
	}
	if o.toRelease != "" {
		return o.upgrade(cmd, g, args)
	}
	ready := runner.Compile(o.engineName, func() (*policyset.Set, error) { return g.For(o.engineName) }, runner.CompileMatch|runner.CompileSelect)
	p := newProgress(cmd, "diff: reading", 2)
	defer p.finish()
	sides, err := o.read(cmd, g, args)
	if err != nil {
		return badInput(err)
	}
	p.set("diff: comparing", 1, 2)
	if len(sides.Old)+len(sides.New) == 0 {
		in := o.in
		in.paths = args
		if machineReadable(o.format) {
			c := <-ready
			if c.Err != nil {
				return badInput(c.Err)
			}
			p.finish()
			out := diffout.Sides{Old: sides.OldLabel, New: sides.NewLabel, OMEVersion: c.Release, ToOMEVersion: c.Release}
			if err := o.writeNone(cmd, out, sides.Problems); err != nil {
				return err
			}
		}
		return in.nothingToTell(cmd, &objects.Input{Problems: sides.Problems}, "OME objects")
	}
	for _, side := range [][]*objects.Object{sides.Old, sides.New} {
		if err := objects.CheckTimestamps(side); err != nil {
			return badInput(err)
		}
	}
	c := <-ready
	if c.Err != nil {
		return badInput(c.Err)
	}
	report, err := diff.Compute(c.Matcher, c.Selector, sides.Old, sides.New)
	if err != nil {
		return err
	}
	p.finish()
	out := diffout.Sides{Old: sides.OldLabel, New: sides.NewLabel, OMEVersion: c.Release, ToOMEVersion: c.Release}
	return o.write(cmd, report, out, sides.Problems)
}

// write writes the report and the problems of the input, and ends as
// --fail-on says.
func (o *diffOptions) write(cmd *cobra.Command, report *diff.Report, sides diffout.Sides, problems []*objects.InputError) error {
	w, err := diffout.NewWriter(o.format, cmd.OutOrStdout())
	if err != nil {
		return badInput(err)
	}
	sides.Problems = output.Problems(problems)
	sides.ShowReasons = o.showReasons
	if err := w.Write(report, sides); err != nil {
		return err
	}
	reportProblems(cmd, problems)
	fail := false
	switch o.failOn {
	case failOnRegressions:
		fail = report.Regressions() > 0
	case failOnChanges:
		fail = report.Changes() > 0
	}
	return exitAfter(problems, fail)
}

// writeNone writes the report of a diff with no object on either side:
// no change, and the input's problems.
func (o *diffOptions) writeNone(cmd *cobra.Command, sides diffout.Sides, problems []*objects.InputError) error {
	w, err := diffout.NewWriter(o.format, cmd.OutOrStdout())
	if err != nil {
		return badInput(err)
	}
	sides.Problems = output.Problems(problems)
	sides.ShowReasons = o.showReasons
	return w.Write(&diff.Report{Models: []diff.ModelChange{}, InferenceServices: []diff.ServiceChange{}, Unmoved: []diff.ObjectChange{}}, sides)
}

// upgrade says what an OME upgrade does to the same objects: the files
// (with their folders) and -f's, or the cluster, judged by the rules of
// --ome-version and of --to-ome-version.
func (o *diffOptions) upgrade(cmd *cobra.Command, g *globalOptions, args []string) error {
	up, err := runner.NewUpgrade(&g.Policies, o.toRelease, o.engineName)
	if err != nil {
		return badInput(err)
	}
	up.Compile()
	in := o.in
	in.paths = args
	p := newProgress(cmd, "diff: reading", 2)
	defer p.finish()
	got, err := in.read(g, cmd, runner.LiveDiffResources, false, nil)
	if err != nil {
		return err
	}
	objs := got.Objects
	if len(objs) == 0 {
		if machineReadable(o.format) {
			p.finish()
			what := in.sources()
			sides := diffout.Sides{Old: what + " on OME " + up.From, New: what + " on OME " + up.To, OMEVersion: up.From, ToOMEVersion: up.To}
			if err := o.writeNone(cmd, sides, got.Problems); err != nil {
				return err
			}
		}
		return in.nothingToTell(cmd, got, "OME objects")
	}
	if err := objects.CheckTimestamps(objs); err != nil {
		return badInput(err)
	}
	p.set("diff: comparing", 1, 2)
	report, err := up.Report(objs)
	if err != nil {
		return err
	}
	p.finish()
	what := in.sources()
	sides := diffout.Sides{Old: what + " on OME " + up.From, New: what + " on OME " + up.To, OMEVersion: up.From, ToOMEVersion: up.To}
	return o.write(cmd, report, sides, got.Problems)
}

// checkSides refuses a command line that names no OLD and NEW.
func (o *diffOptions) checkSides(args []string) error {
	paths := len(args) + len(o.in.files) + len(o.in.models) + len(o.in.runtimes)
	switch inCluster := o.in.cluster.enabled(); {
	case o.toRelease != "" && o.base != "":
		return badInput(fmt.Errorf("--to-ome-version compares the same objects under two OME releases, --base two versions of the files: give one"))
	case o.toRelease != "":
		if paths == 0 && !inCluster {
			return badInput(fmt.Errorf("give the objects to judge under both releases: PATH..., -f PATH or --cluster"))
		}
	case o.base != "" && inCluster:
		return badInput(fmt.Errorf("--base and --cluster compare with different things: give one"))
	case o.base != "" || inCluster:
		if paths == 0 {
			return badInput(fmt.Errorf("give the files of the change: PATH... or -f PATH"))
		}
	case len(args) != 2:
		return badInput(fmt.Errorf("give OLD and NEW, or --base REF PATH..., or --cluster -f PATH... (got %d argument(s))", len(args)))
	case paths > len(args):
		// Each of OLD and NEW is a whole side.
		return badInput(fmt.Errorf("OLD and NEW are each a whole side: -f, -m and -r go with --base, --cluster and --to-ome-version"))
	}
	return nil
}

// read reads OLD and NEW from where the flags say.
func (o *diffOptions) read(cmd *cobra.Command, g *globalOptions, args []string) (input.Sides, error) {
	in := o.in.options(g, cmd, nil)
	switch {
	case o.base != "":
		in.Paths = append(append([]string{}, args...), o.in.files...)
		return input.ReadBase(in, o.base)
	case o.in.cluster.enabled():
		all, err := g.All()
		if err != nil {
			return input.Sides{}, err
		}
		release, err := g.Chosen(all)
		if err != nil {
			return input.Sides{}, err
		}
		in.Paths = append(append([]string{}, args...), o.in.files...)
		return runner.ReadClusterChange(in, &o.in.cluster, release)
	}
	return input.ReadOldNew(in, args[0], args[1])
}
