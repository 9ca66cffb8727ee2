package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/live"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/output"
	"github.com/ome-policy/evaluator/runner"
)

func newGatekeeperViolationsCommand(g *globalOptions) *cobra.Command {
	var (
		engineName string
		format     string
		severities []string
		in         inputOptions
	)
	cmd := &cobra.Command{
		Use:     "violations [PATH...] [-f PATH...]",
		Short:   "Print what OMEVersionLint refuses on each model and runtime, in Gatekeeper's words",
		Long:    helpText("gatekeeper-violations"),
		Example: exampleText("gatekeeper-violations"),
		RunE: func(cmd *cobra.Command, args []string) error {
			for _, s := range severities {
				if err := checkChoice("severities", s, engine.Severities); err != nil {
					return err
				}
			}
			set, err := g.For(engineName)
			if err != nil {
				return badInput(err)
			}
			linter, err := engine.NewLinter(engineName, set)
			if err != nil {
				return badInput(err)
			}
			if !in.given() {
				return badInput(fmt.Errorf("give the models and runtimes: files, folders, -f, - or --cluster"))
			}
			// Each document is reviewed alone, as Gatekeeper reviews each
			// object at admission: one that a later object of the same
			// name replaces too (the notice names it), as lint lints it.
			var read []*objects.Object
			got, err := in.read(cmd, live.ModelsAndRuntimes, true, func(o *objects.Object) { read = append(read, o) })
			if err != nil {
				return err
			}
			objs := pick(cmd, read, "violations", "models and runtimes", func(o *objects.Object) bool { return o.IsModel() || o.IsRuntime() })
			report, refused, err := runner.Violations(linter, objs, severities)
			if err != nil {
				return err
			}
			if err := output.WriteViolations(cmd.OutOrStdout(), format, report, severities); err != nil {
				return err
			}
			reportProblems(cmd, got.Problems)
			return exitAfter(got.Problems, refused)
		},
	}
	addEngineFlag(cmd, &engineName, engine.CEL)
	addReleaseFlag(cmd, g)
	addFormatFlag(cmd, &format, output.ViolationsFormats)
	addInputFlags(cmd, &in, true)
	takePathArgs(cmd, &in)
	cmd.Flags().StringSliceVar(&severities, "severities", []string{engine.SeverityError}, "the severities the constraint enforces (its parameters.severities)")
	_ = cmd.RegisterFlagCompletionFunc("severities", cobra.FixedCompletions(engine.Severities, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}
