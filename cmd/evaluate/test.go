package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/output"
	"github.com/ome-policy/evaluator/results"
	"github.com/ome-policy/evaluator/rules"
	"github.com/ome-policy/evaluator/runner"
)

func newTestCommand(g *globalOptions) *cobra.Command {
	var (
		engineName string
		format     string
		rulePaths  ruleOptions
	)
	cmd := &cobra.Command{
		Use:     "test [PATH...]",
		Short:   "Run case files and Rego unit tests",
		Long:    helpText("test"),
		Example: exampleText("test"),
		RunE: func(cmd *cobra.Command, args []string) error {
			w, err := output.NewTestWriter(format, cmd.OutOrStdout())
			if err != nil {
				return badInput(err)
			}
			// A run with no test is an error, after an empty document.
			noTests := func(err error) error {
				var none *runner.NoTests
				if errors.As(err, &none) && machineReadable(format) {
					if err := w.Write(results.TestReport{}); err != nil {
						return err
					}
				}
				return badInput(err)
			}
			sb, err := rulePaths.sandbox()
			if err != nil {
				return err
			}
			tests, err := runner.NewTests(&g.Policies, args, engineName, rulePaths.paths, sb)
			if errors.As(err, new(rules.Problems)) {
				return rulesError(cmd, err)
			}
			if err != nil {
				return noTests(err)
			}
			noteRules(cmd, tests.Team)
			p := newProgress(cmd, "testing", len(tests.CaseFiles)+len(tests.RegoFiles))
			tests.Step = func(done, total int) { p.Set("testing", done, total) }
			report, notices, err := tests.Run()
			p.Finish()
			if err != nil {
				return noTests(err)
			}
			if err := w.Write(report); err != nil {
				return err
			}
			for _, n := range notices {
				fmt.Fprintln(cmd.ErrOrStderr(), n)
			}
			if report.Failed > 0 {
				return &silentExit{code: exitFindings}
			}
			return nil
		},
	}
	addEngineFlag(cmd, &engineName, engine.Both)
	cmd.Flags().StringVar(&g.Release, "ome-version", "", releaseFlagHelp("the OME release to run the cases on")+
		"; "+runner.AllReleases+" runs each case on every release it holds for")
	completeReleases(cmd, "ome-version", runner.AllReleases)
	addFormatFlag(cmd, &format, output.TestFormats)
	addRulesFlag(cmd, &rulePaths, "their Rego is loaded beside OME's, so that their unit tests (*_test.rego) test them; without PATH, their own tests run")
	return cmd
}
