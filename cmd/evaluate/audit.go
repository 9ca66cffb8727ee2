package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ome-policy/evaluator/diff"
	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/input"
	"github.com/ome-policy/evaluator/output"
	"github.com/ome-policy/evaluator/output/audit"
	"github.com/ome-policy/evaluator/policies/policyset"
	"github.com/ome-policy/evaluator/results"
	"github.com/ome-policy/evaluator/rules"
	"github.com/ome-policy/evaluator/runner"
)

// auditOptions are audit's flags.
type auditOptions struct {
	in         inputOptions
	engineName string
	format     string
	dryRun     string
	rules      ruleOptions
}

func newAuditCommand(g *globalOptions) *cobra.Command {
	o := &auditOptions{}
	cmd := &cobra.Command{
		Use:     "audit [--context NAME...|--all-contexts] [-n NAMESPACE]",
		Short:   "Write lint's findings and select's decisions into each cluster, as PolicyReports",
		Long:    helpText("audit"),
		Example: exampleText("audit"),
		Args:    cobra.NoArgs,
		RunE:    func(cmd *cobra.Command, _ []string) error { return o.run(cmd, g) },
	}
	addClusterFlags(cmd, &o.in.cluster)
	addFleetFlags(cmd, &o.in)
	// audit always reads the cluster: --cluster would add nothing.
	_ = cmd.Flags().MarkHidden("cluster")
	addEngineFlag(cmd, &o.engineName, engine.CEL)
	addReleaseFlag(cmd, g)
	addChoiceFlag(cmd, &o.format, "format", "", audit.FormatPolicyReport, "the reports to write: wgpolicyk8s.io/v1alpha2 PolicyReports, or openreports.io/v1alpha1 Reports", audit.Formats)
	addChoiceFlag(cmd, &o.dryRun, "dry-run", "", audit.DryRunNone, "write nothing: client prints the reports, server has the API server check them", audit.DryRuns)
	cmd.Flags().Lookup("dry-run").NoOptDefVal = audit.DryRunClient
	addRulesFlag(cmd, &o.rules, "their findings are written with lint's, and their verdicts on each InferenceService with OME's")
	useMemory(cmd, holdsData)
	return cmd
}

// audited is what a cluster's audit read: its objects, and the connection
// to write the reports through.
type audited struct {
	got *input.Result
	in  *inputOptions
}

// run reads each cluster's OME objects (every namespace, unless -n), lints
// them and decides on its InferenceServices, and writes the results into
// that cluster as reports (output/audit); a cluster that cannot be read or
// written is named, the others still audited, and the run exits 2.
func (o *auditOptions) run(cmd *cobra.Command, g *globalOptions) error {
	c := &o.in.cluster
	c.Cluster.Given = true
	if c.NamespaceFlag() == "" {
		c.All = true
	}
	set, err := g.For(o.engineName)
	if err != nil {
		return badInput(err)
	}
	all, team, err := teamRules(cmd, o.engineName, set, &o.rules)
	if err != nil {
		return err
	}
	all = runner.WithRules(all, team)
	first, err := runner.NewLint(o.engineName, set, all, team, nil, nil, false)
	if err != nil {
		return badInput(err)
	}
	read := func(in *inputOptions) (audited, error) {
		got, err := in.read(cmd, diff.LiveResources, false, nil)
		return audited{got, in}, err
	}
	problems := false
	write := func(cl *results.Cluster, a audited) error {
		reports, err := o.reports(cmd, first.Again(), all, team, set, a.got)
		if err != nil {
			return err
		}
		client, err := a.in.cluster.Client()
		if err != nil {
			return err
		}
		w := &audit.Writer{Client: client, Format: o.format, DryRun: o.dryRun, Namespace: a.in.cluster.NamespaceFlag(), Out: cmd.OutOrStdout(), Cluster: cl}
		if cl != nil {
			w.Prefix = "cluster " + cl.Name + ": "
			clusterProblems(cmd, *cl, a.got.Problems)
		} else {
			reportProblems(cmd, a.got.Problems)
		}
		problems = problems || len(a.got.Problems) > 0
		return w.Write(c.Context, reports)
	}
	if !o.in.fleet() {
		c.Context = cmd.Context()
		a, err := read(&o.in)
		if err != nil {
			return err
		}
		if err := write(nil, a); err != nil {
			return err
		}
		return exitAfter(a.got.Problems, false)
	}
	var unwritten []results.ClusterRead
	clusters, err := eachCluster(&o.in, cmd, read, func(cl results.Cluster, a audited) error {
		// A cluster whose reports cannot be written is named with why,
		// and the others are still written.
		if err := write(&cl, a); err != nil {
			unwritten = append(unwritten, results.ClusterRead{Cluster: cl, Error: err.Error()})
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, u := range unwritten {
		fmt.Fprintf(cmd.ErrOrStderr(), "evaluate: cluster %s was not written: %s\n", u.Name, u.Error)
	}
	return fleetExit(cmd, clusters, problems || len(unwritten) > 0, false)
}

// reports are the reports of a cluster's objects: lint's findings (every
// object, its input errors among them) and select's decisions on its
// InferenceServices.
func (o *auditOptions) reports(cmd *cobra.Command, run *runner.LintRun, all []engine.Rule, team *rules.Set, set *policyset.Set, got *input.Result) ([]output.PolicyReport, error) {
	for _, obj := range got.Objects {
		run.Object(obj)
	}
	if err := run.Finish(); err != nil {
		return nil, err
	}
	report := runner.LintReport(run, all, append(got.Problems, run.Problems...), false)
	services, objs := runner.SplitServices(got.Objects)
	sel := runner.Selection{Engine: o.engineName, Set: set, Notice: func(n string) { fmt.Fprintln(cmd.ErrOrStderr(), n) }, Team: team}
	decisions, _, ruleProblems, err := sel.Run(services, objs)
	if err != nil {
		return nil, err
	}
	return append(output.LintPolicyReports(report), output.SelectPolicyReports(decisions, results.Problems(ruleProblems))...), nil
}
