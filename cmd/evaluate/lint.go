package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/input"
	"github.com/ome-policy/evaluator/live"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/output"
	"github.com/ome-policy/evaluator/results"
	"github.com/ome-policy/evaluator/runner"
)

// lintOptions are lint's flags.
type lintOptions struct {
	in         inputOptions
	engineName string
	format     string
	crossCheck bool
	failOnWarn bool
	noColor    bool
	listRules  bool
	disable    []string
	enableOnly []string
	rules      ruleOptions
}

func newLintCommand(g *globalOptions) *cobra.Command {
	o := &lintOptions{}
	cmd := &cobra.Command{
		Use:     "lint [PATH...] [-f PATH...]",
		Short:   "Find versions, operators and names that will never match, before you apply them",
		Long:    helpText("lint"),
		Example: exampleText("lint"),
		RunE:    func(cmd *cobra.Command, _ []string) error { return o.run(cmd, g) },
	}
	addInputFlags(cmd, &o.in, true)
	addFleetFlags(cmd, &o.in)
	takePathArgs(cmd, &o.in)
	addEngineFlag(cmd, &o.engineName, engine.CEL)
	addReleaseFlag(cmd, g)
	addFormatFlag(cmd, &o.format, output.LintFormats)
	cmd.Flags().BoolVar(&o.crossCheck, "cross-check", false, "also pair every model with every runtime OME pairs it with (unmatched-model, unreachable-entry, selection-tie)")
	cmd.Flags().BoolVar(&o.failOnWarn, "fail-on-warn", false, "exit 1 on warnings too")
	cmd.Flags().BoolVar(&o.noColor, "no-color", false, "plain text even on a terminal (so does the NO_COLOR environment variable)")
	cmd.Flags().BoolVar(&o.listRules, "list-rules", false, "list the rules: id, severity and what each finds")
	cmd.Flags().StringSliceVar(&o.disable, "disable", nil, "turn these rules off (comma-separated or repeated)")
	cmd.Flags().StringSliceVar(&o.enableOnly, "enable-only", nil, "report only these rules (comma-separated or repeated)")
	addRulesFlag(cmd, &o.rules, "their findings are reported, filtered and ignored as OME's are")
	o.rules.addAllowFlag(cmd)
	cmd.MarkFlagsMutuallyExclusive("disable", "enable-only")
	_ = cmd.RegisterFlagCompletionFunc("disable", completeRuleIDs(g))
	_ = cmd.RegisterFlagCompletionFunc("enable-only", completeRuleIDs(g))
	// What the rules about the objects together read is held until every
	// object is read.
	useMemory(cmd, holdsData)
	return cmd
}

// run reads the rules (and with --list-rules lists them), lints every
// object as it is read, then the objects together, and writes the
// findings with the input errors among them.
func (o *lintOptions) run(cmd *cobra.Command, g *globalOptions) error {
	set, err := g.For(o.engineName)
	if err != nil {
		return badInput(err)
	}
	rules, team, err := teamRules(cmd, o.engineName, set, &o.rules)
	if err != nil {
		return err
	}
	rules = runner.WithRules(rules, team)
	if o.listRules {
		return output.WriteRules(cmd.OutOrStdout(), rules)
	}
	if !o.in.given() {
		return badInput(fmt.Errorf("give the models, runtimes and InferenceServices to lint: files, folders, -f, - or --cluster"))
	}
	run, err := runner.NewLint(o.engineName, set, rules, team, o.disable, o.enableOnly, o.crossCheck)
	if err != nil {
		return badInput(err)
	}
	if o.in.fleet() {
		return o.runFleet(cmd, g, run, rules)
	}
	w, err := output.NewLintWriter(o.format, cmd.OutOrStdout(), output.StyleFor(cmd.OutOrStdout(), o.noColor))
	if err != nil {
		return badInput(err)
	}
	p := newProgress(cmd, "linting", -1)
	defer p.Finish()
	got, err := o.in.read(cmd, live.ModelsAndRuntimes, true, func(obj *objects.Object) {
		run.Object(obj)
		p.Set("linting", len(run.Objects), -1)
	})
	if err != nil {
		return err
	}
	if run.Err() != nil {
		return run.Err()
	}
	noteSkipped(cmd, "lint", "models, runtimes and InferenceServices", run.Others)
	problems := append(got.Problems, run.Problems...)
	if len(run.Objects) == 0 && len(problems) == 0 {
		what := "models, runtimes or InferenceServices"
		if len(run.Others) == 0 {
			what = "OME objects"
		}
		if machineReadable(o.format) {
			if err := w.Write(results.LintReport{OMEVersion: set.Release, Rules: rules, FailOnWarn: o.failOnWarn}); err != nil {
				return err
			}
		}
		return o.in.empty(cmd, what)
	}
	if o.crossCheck {
		p.Set("cross-checking", 0, -1)
	}
	if err := run.Finish(); err != nil {
		return err
	}
	p.Finish()
	report := runner.LintReport(run, rules, problems, o.failOnWarn)
	if err := w.Write(report); err != nil {
		return err
	}
	return exitAfter(problems, report.AnyFails())
}

// runFleet lints the objects of each cluster of the fleet (with the
// files' beside, as a run of each cluster alone would), each cluster a
// lint run of its own (runner.LintRun.Again), and writes the reports as
// one output (output.FleetLintWriter).
func (o *lintOptions) runFleet(cmd *cobra.Command, g *globalOptions, first *runner.LintRun, rules []engine.Rule) error {
	fw, err := output.NewFleetLintWriter(o.format, cmd.OutOrStdout(), output.StyleFor(cmd.OutOrStdout(), o.noColor), first.Release())
	if err != nil {
		return badInput(err)
	}
	problems, fails := false, false
	clusters, err := eachCluster(&o.in, cmd, func(in *inputOptions) (*input.Result, error) {
		return in.read(cmd, live.ModelsAndRuntimes, true, nil)
	}, func(cl results.Cluster, got *input.Result) error {
		run := first.Again()
		for _, obj := range got.Objects {
			run.Object(obj)
		}
		noteSkipped(cmd, "lint", "models, runtimes and InferenceServices", run.Others)
		if err := run.Finish(); err != nil {
			return err
		}
		all := append(got.Problems, run.Problems...)
		report := runner.LintReport(run, rules, all, o.failOnWarn)
		if err := fw.Cluster(cl, report); err != nil {
			return err
		}
		problems, fails = problems || len(all) > 0, fails || report.AnyFails()
		return nil
	})
	return closeFleet(cmd, clusters, err, fw.Close, problems, fails)
}
