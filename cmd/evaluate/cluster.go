package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ome-policy/evaluator/live"
	"github.com/ome-policy/evaluator/objects"
)

// clusterOptions are the flags of the commands that read a live cluster.
type clusterOptions struct {
	cluster bool
	live    live.Options
}

// addClusterFlags gives cmd kubectl's flags for reading objects from a
// cluster: --cluster, --kubeconfig, --context, -n, -A.
func addClusterFlags(cmd *cobra.Command, c *clusterOptions) {
	cmd.Flags().BoolVar(&c.cluster, "cluster", false, "also read the objects from the cluster of the current context (kubectl's kubeconfig)")
	cmd.Flags().StringVar(&c.live.Kubeconfig, "kubeconfig", "", "kubeconfig file to read the cluster from (implies --cluster; default $KUBECONFIG, then ~/.kube/config)")
	cmd.Flags().StringVar(&c.live.Context, "context", "", "kubeconfig context to use (implies --cluster)")
	cmd.Flags().StringVarP(&c.live.Namespace, "namespace", "n", "", "namespace of the namespaced objects read from the cluster (default: the context's)")
	cmd.Flags().BoolVarP(&c.live.AllNamespaces, "all-namespaces", "A", false, "read the namespaced objects of every namespace")
}

func (c *clusterOptions) enabled() bool {
	return c.cluster || c.live.Kubeconfig != "" || c.live.Context != ""
}

// namespaceFlag is the namespace given with -n ("" when none), without
// reading any kubeconfig.
func (c *clusterOptions) namespaceFlag() string { return c.live.Namespace }

// readInto reads the resources from the cluster into input, after what
// the files gave, so that on the same kind, namespace and name the
// cluster's copy is the later one.
func (c *clusterOptions) readInto(cmd *cobra.Command, resources []live.Resource, input *objects.Input, opts objects.ReadOptions) error {
	lists, err := live.Fetch(cmd.Context(), c.live, resources)
	if err != nil {
		return badInput(err)
	}
	for _, l := range lists {
		input.ReadData(l.Name, l.Data, opts)
	}
	return nil
}

// load reads the objects of paths, then, with --cluster, those of the
// resources in the cluster: files first, cluster after, so that on the
// same kind, namespace and name the cluster's copy is the later one.
func (c *clusterOptions) load(g *globalOptions, cmd *cobra.Command, paths []string, resources []live.Resource, opts objects.LoadOptions) ([]*objects.Object, error) {
	var objs []*objects.Object
	if len(paths) > 0 {
		var err error
		if objs, err = objects.Load(paths, opts); err != nil {
			return nil, badInput(err)
		}
	}
	if !c.enabled() {
		return objs, nil
	}
	lists, err := live.Fetch(cmd.Context(), c.live, resources)
	if err != nil {
		return nil, badInput(err)
	}
	for _, l := range lists {
		more, err := objects.LoadData(l.Name, l.Data, opts)
		if err != nil {
			return nil, badInput(fmt.Errorf("%s: %w", l.Name, err))
		}
		objs = append(objs, more...)
	}
	return objs, nil
}
