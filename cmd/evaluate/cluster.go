package main

import (
	"context"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ome-policy/evaluator/live"
	"github.com/ome-policy/evaluator/objects"
)

// clusterOptions are the flags of the commands that read a live cluster:
// kubectl's own (bound through client-go's clientcmd, which resolves them),
// -A, and --cluster[=NAME], which asks for the cluster. Nothing is read
// from a kubeconfig until load reads the cluster.
type clusterOptions struct {
	flags         live.Flags
	cluster       live.ClusterFlag
	allNamespaces bool
	set           *pflag.FlagSet
	cmd           *cobra.Command
	client        *live.Client // made by the first load that reads the cluster
	progress      *progress    // of the read under way
}

// addClusterFlags gives cmd kubectl's flags for reading objects from a
// cluster (--kubeconfig, --context, --user, --server, --token, --as,
// --as-group, --as-uid, --certificate-authority, --insecure-skip-tls-verify,
// --request-timeout, ...), -n and -A, and --cluster[=NAME].
func addClusterFlags(cmd *cobra.Command, c *clusterOptions) {
	fs := cmd.Flags()
	c.set, c.cmd = fs, cmd
	c.flags.AddFlags(fs)
	for name, usage := range live.FlagUsage {
		f := fs.Lookup(name)
		f.Usage = usage
	}
	fs.Lookup("namespace").Usage = "the namespace of the namespaced objects: of those read from the cluster (default: the context's), and of those of the files that give none (default: default)"
	fs.Var(&c.cluster, "cluster", "also read the objects from a cluster: the current context's, or with =NAME the kubeconfig's cluster NAME")
	fs.Lookup("cluster").NoOptDefVal = live.ClusterFlagCurrent
	fs.BoolVarP(&c.allNamespaces, "all-namespaces", "A", false, "read the namespaced objects of every namespace from the cluster")
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Name == "cluster" || f.Name == "all-namespaces" || live.FlagUsage[f.Name] != "" || f.Name == "namespace" {
			f.Annotations = map[string][]string{clusterFlagAnnotation: {"true"}}
		}
	})
	// The help lists these flags apart, after the command's own.
	const own = "{{.LocalFlags.FlagUsages | trimTrailingWhitespaces}}"
	if t := cmd.UsageTemplate(); strings.Contains(t, own) {
		cmd.SetUsageTemplate(strings.Replace(t, own, `{{flagUsages .LocalFlags false | trimTrailingWhitespaces}}

Cluster Flags (kubectl's; each but -n, -A and --request-timeout implies --cluster):
{{flagUsages .LocalFlags true | trimTrailingWhitespaces}}`, 1))
	}
}

const clusterFlagAnnotation = "evaluate/cluster"

func init() {
	// flagUsages is the help of the cluster flags of fs, or of the others.
	cobra.AddTemplateFunc("flagUsages", func(fs *pflag.FlagSet, cluster bool) string {
		part := pflag.NewFlagSet("", pflag.ContinueOnError)
		fs.VisitAll(func(f *pflag.Flag) {
			if (f.Annotations[clusterFlagAnnotation] != nil) == cluster {
				part.AddFlag(f)
			}
		})
		return part.FlagUsages()
	})
}

// enabled is whether the cluster is read: --cluster, or any flag of
// live.ImpliesCluster.
func (c *clusterOptions) enabled() bool {
	if c.cluster.Given {
		return true
	}
	if c.set == nil {
		return false
	}
	for _, name := range live.ImpliesCluster {
		if c.set.Changed(name) {
			return true
		}
	}
	return false
}

// namespaceFlag is the value of -n, "" when it is not given. It reads no
// kubeconfig: the context's namespace is known only once the cluster is read.
func (c *clusterOptions) namespaceFlag() string {
	return c.flags.Overrides.Context.Namespace
}

// ReadInto reads the resources from the cluster into input, after what
// the files gave, so that on the same kind, namespace and name the
// cluster's copy is the later one (input.Cluster).
func (c *clusterOptions) ReadInto(resources []live.Resource, got *objects.Input, opts objects.ReadOptions) error {
	client, err := c.connect(c.cmd)
	if err != nil {
		return badInput(err)
	}
	ctx := c.cmd.Context()
	if ctx == nil { // a command not run through Execute (tests)
		ctx = context.Background()
	}
	c.progress = newProgress(c.cmd, "reading the cluster", -1)
	lists, err := client.Fetch(ctx, resources)
	c.progress.finish()
	if err != nil {
		return badInput(err)
	}
	for _, l := range lists {
		got.ReadData(l.Name, l.Data, opts)
	}
	return nil
}

// Namespace is the namespace the cluster is read in (runner.LiveCluster),
// once ReadInto has read it.
func (c *clusterOptions) Namespace() string { return c.client.Namespace() }

// AllNamespaces says whether -A reads every namespace.
func (c *clusterOptions) AllNamespaces() bool { return c.allNamespaces }

// connect makes the client once per command run (match reads its models
// and its runtimes with two loads).
func (c *clusterOptions) connect(cmd *cobra.Command) (*live.Client, error) {
	if c.client != nil {
		return c.client, nil
	}
	c.flags.Overrides.Context.Cluster = c.cluster.Name
	o := live.Options{AllNamespaces: c.allNamespaces, Warnings: cmd.ErrOrStderr()}
	o.Progress = func(_ string, read int) { c.progress.set("reading the cluster", read, -1) }
	client, err := live.Connect(c.flags, o)
	if err != nil {
		return nil, err
	}
	c.client = client
	return client, nil
}
