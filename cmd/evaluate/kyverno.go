package main

import (
	"cmp"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ome-policy/evaluator/admission/kyverno"
	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/input"
	"github.com/ome-policy/evaluator/rules/admit"
	"github.com/ome-policy/evaluator/runner"
)

func newKyvernoCommand(g *globalOptions) *cobra.Command {
	var (
		out             string
		caseFiles, lint []string
		check           bool
		team            bundleRules
		in              inputOptions
	)
	cmd := &cobra.Command{
		Use:     "kyverno",
		Short:   "Generate the Kyverno ValidatingPolicies, their kyverno tests and RBAC",
		Long:    helpText("kyverno"),
		Example: exampleText("kyverno"),
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			set, err := g.For("")
			if err != nil {
				return badInput(err)
			}
			if set.Release != set.Newest() && !cmd.Flags().Changed("out") {
				return badInput(fmt.Errorf("policies/kyverno holds the bundle of %s, the newest release: give --out for %s's", set.Newest(), set.Release))
			}
			if out == "" {
				return badInput(fmt.Errorf("--out is empty: give the folder to write the bundle to"))
			}
			opts, err := team.inputs(cmd, set, []string{admit.TargetKyverno}, caseFiles, lint)
			if err != nil {
				return err
			}
			got := &input.Result{}
			if in.given() {
				if got, err = in.readWithServices(cmd); err != nil {
					return err
				}
				if opts.SelectionCases, err = runner.SelectionCases(engine.CEL, set, got.Objects); err != nil || len(opts.SelectionCases) == 0 {
					reportProblems(cmd, got.Problems)
					return badInput(cmp.Or(err, fmt.Errorf("no InferenceServices in %s for the selection policy's tests", in.sources())))
				}
			}
			b, err := kyverno.Generate(opts)
			if err != nil {
				return err
			}
			for _, n := range team.compiled.KyvernoNotices() {
				fmt.Fprintln(cmd.ErrOrStderr(), "notice: "+n)
			}
			if err := writeBundle(cmd, out, b, kyverno.Owned(admit.Folder), check); err != nil {
				return err
			}
			reportProblems(cmd, got.Problems)
			return exitAfter(got.Problems, false)
		},
	}
	cmd.Flags().StringVar(&out, "out", "policies/kyverno", "folder to write the bundle to")
	cmd.Flags().StringSliceVar(&caseFiles, "cases", nil, "selection case files whose InferenceServices the tests hold the bundle to admit (default: the project's own, which evaluate carries; --cases= for none)")
	cmd.Flags().StringSliceVar(&lint, "lint", nil, "files and folders of models and runtimes for the lint policies' tests (default: the project's own, which evaluate carries; --lint= for none)")
	cmd.Flags().BoolVar(&check, "check", false, "write nothing; exit 1 when a generated file differs")
	team.add(cmd, "a ValidatingAdmissionPolicy becomes a ValidatingPolicy (team/), in Kyverno's CEL; a Rego rule cannot go there")
	addReleaseFlag(cmd, g)
	addInputFlags(cmd, &in, true)
	cmd.MarkFlagsMutuallyExclusive("cases", "filename")
	return cmd
}
