package main

import (
	"github.com/spf13/cobra"

	"github.com/ome-policy/evaluator/output/about"
	"github.com/ome-policy/evaluator/results"
	"github.com/ome-policy/evaluator/runner"
)

// Set with -ldflags "-X main.version=... -X main.revision=..." by `make
// build` and `make install`; empty otherwise, and then the module's build
// information says what it can.
var (
	version  string
	revision string
)

// buildVersion is what `evaluate version` prints of this binary.
func buildVersion() results.Version { return runner.BuildVersion(version, revision) }

func newVersionCommand() *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:     "version",
		Short:   "Print the version, and the OME, Gatekeeper, Kubernetes and Kyverno versions it follows",
		Long:    helpText("version"),
		Example: exampleText("version"),
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return about.WriteVersion(cmd.OutOrStdout(), buildVersion(), format)
		},
	}
	addFormatFlag(cmd, &format, []string{"text", "json", "yaml"})
	return cmd
}
