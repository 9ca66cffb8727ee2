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
	cluster       clusterFlag
	allNamespaces bool
	set           *pflag.FlagSet
	client        *live.Client // made by the first load that reads the cluster
	progress      *progress    // of the read under way
}

// impliesCluster are kubectl's flags that say which cluster to read or how
// to log in to it: giving one reads the cluster, as --cluster does. -n, -A
// and --request-timeout do not.
var impliesCluster = []string{
	"kubeconfig", "context", "user", "server", "token", "as", "as-group", "as-uid", "as-user-extra",
	"certificate-authority", "client-certificate", "client-key", "insecure-skip-tls-verify", "tls-server-name",
}

// clusterFlagUsage are the help lines of kubectl's flags, in this tool's
// words.
var clusterFlagUsage = map[string]string{
	"kubeconfig":               "kubeconfig file of the cluster (default $KUBECONFIG, then ~/.kube/config)",
	"context":                  "kubeconfig context to use",
	"user":                     "kubeconfig user to log in as",
	"server":                   "address of the Kubernetes API server",
	"token":                    "bearer token to log in with",
	"as":                       "user to impersonate (RBAC must allow you to)",
	"as-group":                 "group to impersonate (repeatable)",
	"as-uid":                   "UID to impersonate",
	"as-user-extra":            "user extra to impersonate, KEY=VALUE (repeatable)",
	"certificate-authority":    "file of the certificate authority that signed the API server's certificate",
	"client-certificate":       "file of a client certificate to log in with",
	"client-key":               "file of the client certificate's key",
	"insecure-skip-tls-verify": "do not check the API server's certificate (insecure)",
	"tls-server-name":          "server name to check the API server's certificate against",
	"request-timeout":          "how long to wait for each request to the cluster, such as 30s (0: no limit)",
}

// addClusterFlags gives cmd kubectl's flags for reading objects from a
// cluster (--kubeconfig, --context, --user, --server, --token, --as,
// --as-group, --as-uid, --certificate-authority, --insecure-skip-tls-verify,
// --request-timeout, ...), -n and -A, and --cluster[=NAME].
func addClusterFlags(cmd *cobra.Command, c *clusterOptions) {
	fs := cmd.Flags()
	c.set = fs
	c.flags.AddFlags(fs)
	for name, usage := range clusterFlagUsage {
		f := fs.Lookup(name)
		f.Usage = usage
	}
	fs.Lookup("namespace").Usage = "the namespace of the namespaced objects: of those read from the cluster (default: the context's), and of those of the files that give none (default: default)"
	fs.Var(&c.cluster, "cluster", "also read the objects from a cluster: the current context's, or with =NAME the kubeconfig's cluster NAME")
	fs.Lookup("cluster").NoOptDefVal = clusterFlagCurrent
	fs.BoolVarP(&c.allNamespaces, "all-namespaces", "A", false, "read the namespaced objects of every namespace from the cluster")
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Name == "cluster" || f.Name == "all-namespaces" || clusterFlagUsage[f.Name] != "" || f.Name == "namespace" {
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
// impliesCluster.
func (c *clusterOptions) enabled() bool {
	if c.cluster.given {
		return true
	}
	if c.set == nil {
		return false
	}
	for _, name := range impliesCluster {
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

// readInto reads the resources from the cluster into input, after what
// the files gave, so that on the same kind, namespace and name the
// cluster's copy is the later one.
func (c *clusterOptions) readInto(cmd *cobra.Command, resources []live.Resource, input *objects.Input, opts objects.ReadOptions) error {
	client, err := c.connect(cmd)
	if err != nil {
		return badInput(err)
	}
	ctx := cmd.Context()
	if ctx == nil { // a command not run through Execute (tests)
		ctx = context.Background()
	}
	c.progress = newProgress(cmd, "reading the cluster", -1)
	lists, err := client.Fetch(ctx, resources)
	c.progress.finish()
	if err != nil {
		return badInput(err)
	}
	for _, l := range lists {
		input.ReadData(l.Name, l.Data, opts)
	}
	return nil
}

// connect makes the client once per command run (match reads its models
// and its runtimes with two loads).
func (c *clusterOptions) connect(cmd *cobra.Command) (*live.Client, error) {
	if c.client != nil {
		return c.client, nil
	}
	c.flags.Overrides.Context.Cluster = c.cluster.name
	o := live.Options{AllNamespaces: c.allNamespaces, Warnings: cmd.ErrOrStderr()}
	o.Progress = func(_ string, read int) { c.progress.set("reading the cluster", read, -1) }
	client, err := live.Connect(c.flags, o)
	if err != nil {
		return nil, err
	}
	c.client = client
	return client, nil
}

// clusterFlagCurrent is what --cluster alone stands for. It is also what
// the help shows ("--cluster[=NAME]"), so a kubeconfig cluster named NAME
// is chosen with --context, not --cluster=NAME.
const clusterFlagCurrent = "NAME"

// clusterFlag is --cluster[=NAME]: kubectl's --cluster NAME (the kubeconfig
// cluster to use) and this tool's --cluster (read the cluster) in one flag.
// Its value must follow an = sign: `--cluster prod` reads the current
// context's cluster, prod being an argument.
type clusterFlag struct {
	given bool
	name  string
}

func (f *clusterFlag) Set(s string) error {
	f.given = true
	if s != clusterFlagCurrent {
		f.name = s
	}
	return nil
}

func (f *clusterFlag) String() string { return f.name }

// Type is empty, so that the help shows --cluster[=NAME].
func (f *clusterFlag) Type() string { return "" }
