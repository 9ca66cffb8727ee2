package main

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ome-policy/evaluator/input"
)

// clusterOptions are the flags of the commands that read a live cluster
// (input.ClusterSource): kubectl's own (bound through client-go's
// clientcmd, which resolves them), -A, and --cluster[=NAME], which asks for
// the cluster. Nothing is read from a kubeconfig until the cluster is read.
type clusterOptions = input.ClusterSource

// addClusterFlags gives cmd kubectl's flags for reading objects from a
// cluster (--kubeconfig, --context, --user, --server, --token, --as,
// --as-group, --as-uid, --certificate-authority, --insecure-skip-tls-verify,
// --request-timeout, ...), -n and -A, and --cluster[=NAME].
func addClusterFlags(cmd *cobra.Command, c *clusterOptions) {
	// A read of the cluster shows its progress on standard error, and the
	// API server's warnings there (clearing the bar first).
	c.Reading = func() (func(int), func()) {
		p := newProgress(cmd, "reading the cluster", -1)
		c.Context, c.Warnings = cmd.Context(), cmd.ErrOrStderr()
		return func(read int) { p.Set("reading the cluster", read, -1) }, p.Finish
	}
	c.AddFlags(cmd.Flags())
	// The help lists these flags apart, after the command's own.
	const own = "{{.LocalFlags.FlagUsages | trimTrailingWhitespaces}}"
	if t := cmd.UsageTemplate(); strings.Contains(t, own) {
		cmd.SetUsageTemplate(strings.Replace(t, own, `{{flagUsages .LocalFlags false | trimTrailingWhitespaces}}

Cluster Flags (kubectl's; each but -n, -A and --request-timeout implies --cluster):
{{flagUsages .LocalFlags true | trimTrailingWhitespaces}}`, 1))
	}
}

func init() {
	// flagUsages is the help of the cluster flags of fs, or of the others.
	cobra.AddTemplateFunc("flagUsages", func(fs *pflag.FlagSet, cluster bool) string {
		part := pflag.NewFlagSet("", pflag.ContinueOnError)
		fs.VisitAll(func(f *pflag.Flag) {
			if (f.Annotations[input.FlagAnnotation] != nil) == cluster {
				part.AddFlag(f)
			}
		})
		return part.FlagUsages()
	})
}
