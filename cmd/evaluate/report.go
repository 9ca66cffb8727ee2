package main

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/input"
	"github.com/ome-policy/evaluator/report"
	"github.com/ome-policy/evaluator/results"
	"github.com/ome-policy/evaluator/runner"
)

// The formats of report's -o: the page, or the document it is built from.
var reportFormats = []string{"html", "json"}

// reportOptions are report's flags.
type reportOptions struct {
	in         inputOptions
	engineName string
	format     string
	out        string
	rules      ruleOptions
}

func newReportCommand(g *globalOptions) *cobra.Command {
	o := &reportOptions{}
	cmd := &cobra.Command{
		Use:     "report [PATH...] [-f PATH...] [-m PATH... -r PATH...] --out FILE.html | -o json",
		Short:   "Write the compatibility of every model and runtime as one HTML page",
		Long:    helpText("report"),
		Example: exampleText("report"),
		RunE:    func(cmd *cobra.Command, _ []string) error { return o.run(cmd, g) },
	}
	addInputFlags(cmd, &o.in, true)
	addFleetFlags(cmd, &o.in)
	takePathArgs(cmd, &o.in)
	addEngineFlag(cmd, &o.engineName, engine.CEL)
	addReleaseFlag(cmd, g)
	cmd.Flags().StringVar(&o.out, "out", "", "the file to write (- for standard output; -o json writes there without it)")
	cmd.Flags().StringVarP(&o.format, "output", "o", "html", "output format: "+strings.Join(reportFormats, ", "))
	checkBeforeRun(cmd, func() error { return o.checkFormat(cmd) })
	addRulesFlag(cmd, &o.rules, "their findings are listed on the page with lint's")
	// A page's data is held whole until it is written (hundreds of MB for
	// 300 x 700).
	useMemory(cmd, holdsData)
	return cmd
}

// checkFormat checks -o, and keeps an older use of it working: -o FILE
// (a value that is no format, with --out not given) is --out FILE, with a
// notice that says so.
func (o *reportOptions) checkFormat(cmd *cobra.Command) error {
	if slices.Contains(reportFormats, o.format) {
		return nil
	}
	if o.out != "" || !strings.ContainsAny(o.format, "./") && o.format != "-" {
		return checkChoice("output", o.format, reportFormats)
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "notice: -o %s is deprecated and will be refused in the next release: -o is the format (%s); write --out %s\n",
		o.format, strings.Join(reportFormats, ", "), o.format)
	o.out, o.format = o.format, "html"
	return nil
}

// run reads the models, runtimes and InferenceServices, builds the page,
// writes it, and says on standard error what it holds.
func (o *reportOptions) run(cmd *cobra.Command, g *globalOptions) error {
	if o.out == "" && o.format == "html" {
		return badInput(fmt.Errorf("give the page to write with --out FILE.html (- for standard output)"))
	}
	if !o.in.given() {
		return badInput(fmt.Errorf("give the models and runtimes: files, folders, -f, -m and -r, - or --cluster"))
	}
	if o.in.fleet() {
		return o.runFleet(cmd, g)
	}
	got, err := o.in.readWithServices(cmd)
	if err != nil {
		return err
	}
	in, err := report.Of(got.Objects, o.in.sources())
	if err != nil {
		reportProblems(cmd, got.Problems)
		return badInput(err)
	}
	set, team, err := policiesAndRules(cmd, g, o.engineName, &o.rules)
	if err != nil {
		return err
	}
	write := report.Write
	if o.format == "json" {
		write = report.WriteJSON
	}
	p := newProgress(cmd, "matching", len(in.Models))
	in.Engine, in.Policies, in.Progress, in.Rules, in.Decide = o.engineName, set, p.Set, team, runner.Decider(o.engineName, set)
	var page bytes.Buffer
	sum, err := write(&page, in)
	p.Finish()
	if err != nil {
		return err
	}
	if err := o.writePage(cmd, page.Bytes()); err != nil {
		return err
	}
	fmt.Fprintln(cmd.ErrOrStderr(), sum.Says(o.out, page.Len(), len(in.Services)))
	reportProblems(cmd, got.Problems)
	// Once the page is written, what it shows is no failure: match and
	// select are the commands that exit 1 on a refusal.
	return exitAfter(got.Problems, false)
}

// runFleet builds the page of each cluster of the fleet (with the files'
// objects beside, as a run of each cluster alone would) and writes them as
// one page (report.WriteFleet): the clusters listed in its header, a
// cluster filter to choose the one shown. A cluster that cannot be read,
// or holds no models or runtimes, is named, and the run exits 2.
func (o *reportOptions) runFleet(cmd *cobra.Command, g *globalOptions) error {
	set, team, err := policiesAndRules(cmd, g, o.engineName, &o.rules)
	if err != nil {
		return err
	}
	var clusters []report.FleetCluster
	problems := false
	read, err := eachCluster(&o.in, cmd, func(in *inputOptions) (*input.Result, error) {
		return in.readWithServices(cmd)
	}, func(cl results.Cluster, got *input.Result) error {
		clusterProblems(cmd, cl, got.Problems)
		problems = problems || len(got.Problems) > 0
		in, err := report.Of(got.Objects, "cluster "+cl.Name)
		if err != nil {
			clusters = append(clusters, report.FleetCluster{Cluster: cl, Error: err.Error()})
			fmt.Fprintf(cmd.ErrOrStderr(), "evaluate: %s\n", err)
			problems = true
			return nil
		}
		in.Engine, in.Policies, in.Rules, in.Decide = o.engineName, set, team, runner.Decider(o.engineName, set)
		in.Title = "OME compatibility report: cluster " + cl.Name
		clusters = append(clusters, report.FleetCluster{Cluster: cl, In: in})
		return nil
	})
	if err != nil {
		return err
	}
	// Every cluster, in the order of the contexts, those not read too.
	var all []report.FleetCluster
	for _, c := range read {
		if c.Error != "" {
			all = append(all, report.FleetCluster{Cluster: c.Cluster, Error: c.Error})
			continue
		}
		for _, f := range clusters {
			if f.Cluster.Name == c.Name {
				all = append(all, f)
			}
		}
	}
	write := report.WriteFleet
	if o.format == "json" {
		write = report.WriteFleetJSON
	}
	var page bytes.Buffer
	sum, err := write(&page, all)
	if err != nil {
		return err
	}
	if err := o.writePage(cmd, page.Bytes()); err != nil {
		return err
	}
	fmt.Fprintln(cmd.ErrOrStderr(), sum.Says(o.out, page.Len(), 0))
	return fleetExit(cmd, read, problems, false)
}

// writePage writes the page to --out's file, or to standard output for -
// or, with -o json, without --out.
func (o *reportOptions) writePage(cmd *cobra.Command, page []byte) error {
	if o.out == "-" || o.out == "" {
		_, err := cmd.OutOrStdout().Write(page)
		return err
	}
	if err := os.WriteFile(o.out, page, 0o644); err != nil {
		return badInput(fmt.Errorf("--out: %w", err))
	}
	return nil
}
