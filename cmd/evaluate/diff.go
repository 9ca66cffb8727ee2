package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ome-policy/evaluator/diff"
	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/engine/policyset"
	"github.com/ome-policy/evaluator/live"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/objects/crdschema"
	"github.com/ome-policy/evaluator/output"
	"github.com/ome-policy/evaluator/output/diffout"
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
	addInputFlags(cmd, &o.in, false)
	cmd.Flags().StringVar(&o.base, "base", "", "OLD is PATH... as git has it at this commit, branch or tag (NEW: PATH... now)")
	cmd.Flags().StringVar(&o.failOn, "fail-on", failOnRegressions, "exit 1 on: "+strings.Join(failOnChoices, ", "))
	checkBeforeRun(cmd, func() error { return checkChoice("fail-on", o.failOn, failOnChoices) })
	addEngineFlag(cmd, &o.engineName, engine.CEL)
	addReleaseFlag(cmd, g)
	cmd.Flags().StringVar(&o.toRelease, "to-ome-version", "", "what an upgrade of OME does to the same objects: the release upgraded to (from --ome-version's): "+
		strings.Join(policyset.EmbeddedReleases(), ", "))
	cmd.Flags().BoolVar(&o.showReasons, "show-reasons", false, "also list the verdicts that hold with another reason (text and markdown; json always lists them)")
	addFormatFlag(cmd, &o.format, diffout.Formats)
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
	// Both sides' objects and verdicts are held the whole run.
	defer liftMemoryLimit()()
	ready := compileDiff(g, o.engineName)
	p := newProgress(cmd, "diff: reading", 2)
	defer p.finish()
	old, new, problems, sides, err := o.read(cmd, g, args)
	if err != nil {
		return err
	}
	p.set("diff: comparing", 1, 2)
	if len(old)+len(new) == 0 {
		in := o.in
		in.paths = args
		return in.nothingToTell(cmd, &objects.Input{Problems: problems}, "OME objects")
	}
	for _, side := range [][]*objects.Object{old, new} {
		if err := objects.CheckTimestamps(side); err != nil {
			return badInput(err)
		}
	}
	c := <-ready
	if c.err != nil {
		return c.err
	}
	report, err := diff.Compute(c.m, c.s, old, new)
	if err != nil {
		return err
	}
	p.finish()
	sides.OMEVersion, sides.ToOMEVersion = c.release, c.release
	return o.write(cmd, report, sides, problems)
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

// upgrade says what an OME upgrade does to the same objects: the files
// (with their folders) and -f's, or the cluster, judged by the rules of
// --ome-version and of --to-ome-version.
func (o *diffOptions) upgrade(cmd *cobra.Command, g *globalOptions, args []string) error {
	all, err := g.allPolicies()
	if err != nil {
		return badInput(err)
	}
	from, err := g.chosenRelease(all)
	if err != nil {
		return err
	}
	to, err := knownRelease(all, o.toRelease, "--to-ome-version")
	if err != nil {
		return err
	}
	if to == from {
		return badInput(fmt.Errorf("--to-ome-version: both sides are OME %s: name another release than --ome-version's (%s)",
			to, strings.Join(policyset.EmbeddedReleases(), ", ")))
	}
	defer liftMemoryLimit()()
	before := compileUpgradeSide(o.engineName, func() (*policyset.Set, error) { return all.Only(o.engineName).ForRelease(from) })
	after := compileUpgradeSide(o.engineName, func() (*policyset.Set, error) { return all.Only(o.engineName).ForRelease(to) })
	in := o.in
	in.paths = args
	p := newProgress(cmd, "diff: reading", 2)
	defer p.finish()
	input, err := in.read(g, cmd, liveDiffResources, false, nil)
	if err != nil {
		return err
	}
	objs := input.Objects
	if len(objs) == 0 {
		return in.nothingToTell(cmd, input, "OME objects")
	}
	if err := objects.CheckTimestamps(objs); err != nil {
		return badInput(err)
	}
	b, a := <-before, <-after
	for _, c := range []compiledDiff{b, a} {
		if c.err != nil {
			return c.err
		}
	}
	p.set("diff: comparing", 1, 2)
	report, err := diff.Upgrade(diff.Engines{M: b.m, S: b.s, X: b.x, Release: from}, diff.Engines{M: a.m, S: a.s, X: a.x, Release: to}, objs)
	if err != nil {
		return err
	}
	p.finish()
	what := in.sources()
	sides := diffout.Sides{Old: what + " on OME " + from, New: what + " on OME " + to, OMEVersion: from, ToOMEVersion: to}
	return o.write(cmd, report, sides, input.Problems)
}

// checkSides refuses a command line that names no OLD and NEW.
func (o *diffOptions) checkSides(args []string) error {
	paths := len(args) + len(o.in.files)
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
	case len(args) != 2 || len(o.in.files) > 0:
		return badInput(fmt.Errorf("give OLD and NEW, or --base REF PATH..., or --cluster -f PATH... (got %d argument(s))", len(args)))
	}
	return nil
}

// read reads OLD and NEW from where the flags say.
func (o *diffOptions) read(cmd *cobra.Command, g *globalOptions, args []string) (old, new []*objects.Object, problems []*objects.InputError, sides diffout.Sides, err error) {
	switch {
	case o.base != "":
		return readBase(g, cmd, &o.in, o.base, args)
	case o.in.cluster.enabled():
		return readCluster(g, cmd, &o.in, append(append([]string{}, args...), o.in.files...))
	}
	return readOldNew(g, cmd, &o.in, args[0], args[1])
}

// compiledDiff is what diff evaluates with, or why there is none.
type compiledDiff struct {
	release string // the OME release whose rules m and s apply
	m       engine.Matcher
	s       engine.Selector
	x       engine.Explainer // an upgrade's only: says what rule moved a pair
	err     error
}

// compileUpgradeSide compiles, in the background, one side of an upgrade:
// what compileDiffFor compiles, and the explainer.
func compileUpgradeSide(engineName string, policies func() (*policyset.Set, error)) <-chan compiledDiff {
	ready := make(chan compiledDiff, 1)
	go func() {
		c := <-compileDiffFor(engineName, policies)
		if c.err == nil {
			set, err := policies()
			if err == nil {
				c.x, err = engine.NewExplainer(engineName, set)
			}
			if err != nil {
				c.err = badInput(err)
			}
		}
		ready <- c
	}()
	return ready
}

// compileDiff compiles the policies for the engine in the background, so
// that they compile while the files load.
func compileDiff(g *globalOptions, engineName string) <-chan compiledDiff {
	return compileDiffFor(engineName, func() (*policyset.Set, error) { return g.policies(engineName) })
}

// compileDiffFor compiles, in the background, the policies that policies
// gives.
func compileDiffFor(engineName string, policies func() (*policyset.Set, error)) <-chan compiledDiff {
	ready := make(chan compiledDiff, 1)
	go func() {
		set, err := policies()
		if err != nil {
			ready <- compiledDiff{err: badInput(err)}
			return
		}
		m, err := engine.New(engineName, set)
		if err != nil {
			ready <- compiledDiff{err: badInput(err)}
			return
		}
		s, err := engine.NewSelector(engineName, set)
		if err != nil {
			err = badInput(err)
		}
		ready <- compiledDiff{release: set.Release, m: m, s: s, err: err}
	}()
	return ready
}

// readSide reads paths (with their folders) and -f's files as one side;
// showFile, when not nil, names the files read as the user knows them.
func readSide(g *globalOptions, cmd *cobra.Command, in *inputOptions, paths, files []string, showFile func(string) string) (*objects.Input, error) {
	side := inputOptions{paths: paths, files: files, recursive: in.recursive, cluster: in.cluster, showFile: showFile}
	return side.read(g, cmd, nil, false, nil)
}

// readOldNew reads OLD and NEW.
func readOldNew(g *globalOptions, cmd *cobra.Command, in *inputOptions, oldPath, newPath string) (old, new []*objects.Object, problems []*objects.InputError, sides diffout.Sides, err error) {
	o, err := readSide(g, cmd, in, []string{oldPath}, nil, nil)
	if err != nil {
		return nil, nil, nil, sides, err
	}
	n, err := readSide(g, cmd, in, []string{newPath}, nil, nil)
	if err != nil {
		return nil, nil, nil, sides, err
	}
	return o.Objects, n.Objects, append(o.Problems, n.Problems...),
		diffout.Sides{Old: oldPath, New: newPath}, nil
}

// readCluster reads the cluster as OLD, and NEW as the cluster with the
// files applied, as the API server would store them: the defaults of OME's
// CRDs filled in; an object of the same kind, namespace and name replaced
// (keeping the cluster's creationTimestamp), a new one added (created now).
func readCluster(g *globalOptions, cmd *cobra.Command, in *inputOptions, paths []string) (old, new []*objects.Object, problems []*objects.InputError, sides diffout.Sides, err error) {
	live := &objects.Input{}
	if err := in.cluster.readInto(cmd, liveDiffResources, live, objects.ReadOptions{}); err != nil {
		return nil, nil, nil, sides, err
	}
	finishRead(cmd, live)
	// Files without a namespace go where kubectl diff would put them: -n,
	// else the context's namespace.
	side := inputOptions{paths: paths, recursive: in.recursive, cluster: in.cluster}
	ns := in.cluster.client.Namespace()
	side.cluster.flags.Overrides.Context.Namespace = ns
	files, err := side.read(g, cmd, nil, false, nil)
	if err != nil {
		return nil, nil, nil, sides, err
	}
	old, applied := live.Objects, files.Objects
	all, err := g.allPolicies()
	if err != nil {
		return nil, nil, nil, sides, badInput(err)
	}
	release, err := g.chosenRelease(all)
	if err != nil {
		return nil, nil, nil, sides, err
	}
	// The API server fills in what OME's CRDs default: without it, a file
	// that says what the cluster holds would differ from it.
	for i, o := range applied {
		if applied[i], err = crdschema.WithDefaults(o, release); err != nil {
			return nil, nil, nil, sides, err
		}
	}
	new = diff.Apply(old, applied, time.Now().UTC())
	for _, o := range applied {
		if o.Namespace != "" && o.Namespace != ns && !in.cluster.allNamespaces {
			fmt.Fprintf(cmd.ErrOrStderr(), "%s:%d: notice: %s is in namespace %s, which was not read (the cluster was read in %s): it counts as new; -A reads every namespace\n",
				o.File, o.Line, o.Ref(), o.Namespace, ns)
		}
	}
	sides = diffout.Sides{Old: "the cluster", New: "the cluster with " + strings.Join(paths, ", ") + " applied"}
	return old, new, append(live.Problems, files.Problems...), sides, nil
}

// liveDiffResources are what diff reads of a cluster: every OME resource.
var liveDiffResources = append(append([]live.Resource{}, live.ModelsAndRuntimes...), live.InferenceServices)
