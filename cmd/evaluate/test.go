package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/output"
	"github.com/ome-policy/evaluator/runner"
)

func newTestCommand(g *globalOptions) *cobra.Command {
	var (
		engineName string
		format     string
	)
	cmd := &cobra.Command{
		Use:     "test PATH...",
		Short:   "Run case files and Rego unit tests",
		Long:    helpText("test"),
		Example: exampleText("test"),
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			w, err := output.NewTestWriter(format, cmd.OutOrStdout())
			if err != nil {
				return badInput(err)
			}
			// A run with no test is an error, after an empty document.
			noTests := func(err error) error {
				var none *runner.NoTests
				if errors.As(err, &none) && machineReadable(format) {
					if err := w.Write(output.TestReport{}); err != nil {
						return err
					}
				}
				return badInput(err)
			}
			tests, err := runner.NewTests(&g.Policies, args, engineName)
			if err != nil {
				return noTests(err)
			}
			p := newProgress(cmd, "testing", len(tests.CaseFiles)+len(tests.RegoFiles))
			tests.Step = func(done, total int) { p.Set("testing", done, total) }
			report, leftOut, err := tests.Run()
			p.Finish()
			if err != nil {
				return noTests(err)
			}
			for _, l := range leftOut {
				fmt.Fprintln(cmd.ErrOrStderr(), "notice: "+l.Notice(tests.Releases))
			}
			if err := w.Write(report); err != nil {
				return err
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
	addFormatFlag(cmd, &format, output.TestFormats)
	return cmd
}
