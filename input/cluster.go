package input

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/spf13/pflag"

	"github.com/ome-policy/evaluator/live"
	"github.com/ome-policy/evaluator/objects"
)

// ClusterSource is the cluster a command reads, as kubectl's flags name
// it: the connection (live.Flags), -A, and --cluster[=NAME] (AddFlags
// binds them). It is read only when asked for (Enabled), and nothing
// is read from a kubeconfig before the first ReadInto; one client serves
// every read of a run (match reads its models and its runtimes apart).
type ClusterSource struct {
	Flags   live.Flags
	Cluster live.ClusterFlag
	All     bool // -A: the namespaced objects of every namespace
	// Changed says whether a flag was given on the command line (the
	// flag set's Changed); nil when none was.
	Changed func(name string) bool
	// Context is the context of the requests (nil: context.Background).
	Context context.Context
	// Warnings gets the API server's warnings (nil: dropped).
	Warnings io.Writer
	// Reading, when set, is called as a read starts; it returns what is
	// told how many objects the read has brought, after each page, and
	// what is called once the read is over.
	Reading func() (progress func(read int), done func())

	// AllContexts (--all-contexts) reads the cluster of every context of
	// the kubeconfig; Concurrency (--concurrency) is how many clusters a
	// fleet reads at once (fleet.go).
	AllContexts bool
	Concurrency int

	client *live.Client
	told   func(read int) // the progress of the read under way
}

// FlagAnnotation marks the flags that AddFlags binds, so that a command's
// help can list them apart from its own.
const FlagAnnotation = "evaluate/cluster"

// AddFlags binds the flags that name the cluster, as kubectl's: the
// connection's (live.Flags.AddFlags, each with live.FlagUsage's help, and
// -n: the namespace of the objects read from the cluster and of the
// files' that give none), --cluster[=NAME] and -A. Each is marked
// FlagAnnotation; Changed reads fs.
func (c *ClusterSource) AddFlags(fs *pflag.FlagSet) {
	c.Changed = fs.Changed
	c.Flags.AddFlags(fs)
	for name, usage := range live.FlagUsage {
		fs.Lookup(name).Usage = usage
	}
	fs.Lookup("namespace").Usage = "the namespace of the namespaced objects: of those read from the cluster (default: the context's), and of those of the files that give none (default: default)"
	fs.Var(&c.Cluster, "cluster", "also read the objects from a cluster: the current context's, or with =NAME the kubeconfig's cluster NAME")
	fs.Lookup("cluster").NoOptDefVal = live.ClusterFlagCurrent
	fs.BoolVarP(&c.All, "all-namespaces", "A", false, "read the namespaced objects of every namespace from the cluster")
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Name == "cluster" || f.Name == "all-namespaces" || f.Name == "namespace" || live.FlagUsage[f.Name] != "" {
			f.Annotations = map[string][]string{FlagAnnotation: {"true"}}
		}
	})
}

// Enabled says whether the cluster is read: --cluster, or any flag of
// live.ImpliesCluster.
func (c *ClusterSource) Enabled() bool {
	if c.Cluster.Given || c.AllContexts {
		return true
	}
	if c.Changed == nil {
		return false
	}
	for _, name := range live.ImpliesCluster {
		if c.Changed(name) {
			return true
		}
	}
	return false
}

// NamespaceFlag is the value of -n, "" when it is not given. It reads no
// kubeconfig: the context's namespace is known only once the cluster is
// read.
func (c *ClusterSource) NamespaceFlag() string {
	return c.Flags.Overrides.Context.Namespace
}

// FilesNamespace is the namespace of the objects of the files that give
// none: -n's, else "default", where kubectl apply would put them.
func (c *ClusterSource) FilesNamespace() string {
	if ns := c.NamespaceFlag(); ns != "" {
		return ns
	}
	return "default"
}

// ReadInto reads the resources from the cluster into in, after what the
// files gave, so that on the same kind, namespace and name the cluster's
// copy is the later one (Cluster).
func (c *ClusterSource) ReadInto(resources []live.Resource, in *Result, opts ReadOptions) error {
	done := func() {}
	c.told = func(int) {}
	if c.Reading != nil {
		c.told, done = c.Reading()
	}
	if err := c.connect(); err != nil {
		done()
		return err
	}
	lists, err := c.client.Fetch(c.context(), resources)
	done()
	if err != nil {
		return err
	}
	for _, l := range lists {
		in.ReadData(l.Name, l.Data, opts)
	}
	return nil
}

// AddServices reads the cluster's InferenceServices into in when the
// cluster is read and in holds none, so that -f isvc.yaml --cluster
// judges the file's InferenceServices against the cluster's models and
// runtimes.
func (c *ClusterSource) AddServices(in *Result) error {
	if !c.Enabled() || slices.ContainsFunc(in.Objects, (*objects.Object).IsService) {
		return nil
	}
	return c.ReadInto([]live.Resource{live.InferenceServices}, in, ReadOptions{})
}

// Namespace is the namespace the cluster is read in (-n, else the
// context's), once ReadInto has read it.
func (c *ClusterSource) Namespace() string { return c.client.Namespace() }

// AllNamespaces says whether -A reads every namespace.
func (c *ClusterSource) AllNamespaces() bool { return c.All }

// connect makes the client on the first read.
func (c *ClusterSource) connect() error {
	if c.client != nil {
		return nil
	}
	if n := len(c.Flags.Contexts); n > 1 {
		return fmt.Errorf("--context names %d contexts, and this command reads one cluster: give one", n)
	}
	c.Flags.Overrides.Context.Cluster = c.Cluster.Name
	o := live.Options{AllNamespaces: c.All, Warnings: c.Warnings}
	o.Progress = func(_ string, read int) {
		// A fleet's member is read as a copy of c, which is told nothing.
		if c.told != nil {
			c.told(read)
		}
	}
	client, err := live.Connect(c.Flags, o)
	if err != nil {
		return err
	}
	c.client = client
	return nil
}

// Client is the connection to the cluster, made on the first call (or
// read): evaluate audit writes its reports through it.
func (c *ClusterSource) Client() (*live.Client, error) {
	if err := c.connect(); err != nil {
		return nil, err
	}
	return c.client, nil
}
