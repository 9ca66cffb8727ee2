package main

import (
	"github.com/spf13/cobra"

	"github.com/ome-policy/evaluator/builtins/regolib"
	"github.com/ome-policy/evaluator/output/about"
)

func newPoliciesCommand(g *globalOptions) *cobra.Command {
	var (
		all       bool
		functions bool
	)
	cmd := &cobra.Command{
		Use:     "policies [FILE...]",
		Short:   "List or print the policies that run",
		Long:    helpText("policies"),
		Example: exampleText("policies"),
		RunE: func(cmd *cobra.Command, args []string) error {
			out := cmd.OutOrStdout()
			if functions {
				return about.WriteFunctions(out)
			}
			set, err := g.For("")
			if err != nil {
				return badInput(err)
			}
			if len(args) == 0 && !all {
				return about.WritePolicyList(out, set)
			}
			files, err := set.FindAll(args)
			if err != nil {
				return badInput(err)
			}
			return about.WritePolicySources(out, set, files)
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "print every policy source and test")
	addReleaseFlag(cmd, g)
	cmd.Flags().BoolVar(&functions, "functions", false, "list the Go builtins the policies can call")
	return cmd
}

func newCapabilitiesCommand(_ *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:     "capabilities",
		Short:   "Print OPA capabilities that declare the ome.* builtins",
		Long:    helpText("capabilities"),
		Example: exampleText("capabilities"),
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			b, err := regolib.CapabilitiesJSON()
			if err != nil {
				return err
			}
			_, err = cmd.OutOrStdout().Write(b)
			return err
		},
	}
}
