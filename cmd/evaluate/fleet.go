package main

import (
	"bytes"
	"fmt"
	"io"
	"slices"

	"github.com/spf13/cobra"

	"github.com/ome-policy/evaluator/input"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/results"
)

// A fleet: several contexts (--context a,b or --all-contexts), each
// cluster read with its own client, concurrently (--concurrency), and
// evaluated in the order of the contexts as if it were read alone, with
// the files given (-f) read beside each. A cluster that cannot be read is
// named with its reason after the results, the others still evaluated,
// and the run exits 2.

// addFleetFlags gives a command that reads a fleet --all-contexts and
// --concurrency (--context takes several names on every command).
func addFleetFlags(cmd *cobra.Command, in *inputOptions) {
	in.cluster.AddFleetFlags(cmd.Flags())
	cmd.MarkFlagsMutuallyExclusive("context", "all-contexts")
}

// fleet says whether the flags name several clusters.
func (in *inputOptions) fleet() bool { return in.cluster.IsFleet() }

// eachCluster reads each cluster of the fleet with read (its input as a
// run of that cluster alone would read it: the files, then the cluster),
// and hands each cluster that could be read, in order, to use. It gives
// back every cluster, those that could not be read with their reason,
// which it says on standard error after the results.
func eachCluster[T any](in *inputOptions, cmd *cobra.Command, read func(in *inputOptions) (T, error), use func(c results.Cluster, v T) error) ([]results.ClusterRead, error) {
	in.cluster.Context, in.cluster.Warnings = cmd.Context(), cmd.ErrOrStderr()
	members, err := in.cluster.Fleet()
	if err != nil {
		return nil, badInput(err)
	}
	// Standard input is read once, and given to each cluster's read.
	var stdin []byte
	if slices.Contains(slices.Concat(in.paths, in.files, in.Models, in.Runtimes), "-") {
		if stdin, err = io.ReadAll(cmd.InOrStdin()); err != nil {
			return nil, badInput(fmt.Errorf("standard input: %w", err))
		}
	}
	var clusters []results.ClusterRead
	err = input.ReadFleet(members, in.cluster.Concurrency, func(m *input.Member) (T, error) {
		mine := *in
		mine.cluster = *m.Source
		if stdin != nil {
			mine.stdin = bytes.NewReader(stdin)
		}
		return read(&mine)
	}, func(m *input.Member, v T, err error) error {
		c := results.Cluster{Name: m.Name(), Contexts: m.Contexts, Server: m.Identity.Server, UID: m.Identity.UID}
		if err != nil {
			clusters = append(clusters, results.ClusterRead{Cluster: c, Error: err.Error()})
			return nil
		}
		clusters = append(clusters, results.ClusterRead{Cluster: c})
		return use(c, v)
	})
	return clusters, err
}

// reportUnread names on standard error each cluster that could not be
// read, with why; it says whether there was one.
func reportUnread(cmd *cobra.Command, clusters []results.ClusterRead) bool {
	any := false
	for _, c := range clusters {
		if c.Error != "" {
			any = true
			fmt.Fprintf(cmd.ErrOrStderr(), "evaluate: cluster %s was not read: %s\n", c.Name, c.Error)
		}
	}
	return any
}

// fleetExit is the exit of a fleet's run: 2 when a cluster could not be
// read or some input was bad, else 1 on findings, else 0.
func fleetExit(cmd *cobra.Command, clusters []results.ClusterRead, problems, findings bool) error {
	if reportUnread(cmd, clusters) || problems {
		return &silentExit{code: exitBadInput}
	}
	return exitAfter(nil, findings)
}

// closeFleet ends a fleet's run whose reads and writes ended with err:
// close ends the output (naming every cluster), then the exit (fleetExit).
func closeFleet(cmd *cobra.Command, clusters []results.ClusterRead, err error, close func([]results.ClusterRead) error, problems, findings bool) error {
	if err != nil {
		return err
	}
	if err := close(clusters); err != nil {
		return err
	}
	return fleetExit(cmd, clusters, problems, findings)
}

// clusterProblems names a cluster's input problems on standard error.
func clusterProblems(cmd *cobra.Command, c results.Cluster, problems []*objects.InputError) {
	for _, p := range problems {
		fmt.Fprintf(cmd.ErrOrStderr(), "evaluate: cluster %s: %s\n", c.Name, p.Error())
	}
}
