package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ome-policy/evaluator/admission"
	"github.com/ome-policy/evaluator/admission/bundle"
	"github.com/ome-policy/evaluator/admission/gatekeeper"
	"github.com/ome-policy/evaluator/cases"
	"github.com/ome-policy/evaluator/policies/policyset"
	"github.com/ome-policy/evaluator/rules/admit"
	"github.com/ome-policy/evaluator/runner"
)

func newGatekeeperCommand(g *globalOptions) *cobra.Command {
	var (
		out, native     string
		caseFiles, lint []string
		check           bool
		team            bundleRules
	)
	cmd := &cobra.Command{
		Use:     "gatekeeper",
		Short:   "Generate the Gatekeeper templates, samples, gator suites and sync config",
		Long:    helpText("gatekeeper"),
		Example: exampleText("gatekeeper"),
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			set, err := g.For("")
			if err != nil {
				return badInput(err)
			}
			if set.Release != set.Newest() && (!cmd.Flags().Changed("out") && !cmd.Flags().Changed("output") || native != "" && !cmd.Flags().Changed("native-out")) {
				return badInput(fmt.Errorf("policies/gatekeeper and policies/kubernetes hold the bundles of %s, the newest release: give --out (and --native-out, or --native-out '') for %s's", set.Newest(), set.Release))
			}
			targets := []string{admit.TargetGatekeeper}
			if native != "" {
				targets = append(targets, admit.TargetNative)
			}
			opts, err := team.inputs(cmd, set, targets, caseFiles, lint)
			if err != nil {
				return err
			}
			b, err := bundle.Generate(opts)
			if err != nil {
				return err
			}
			for _, id := range team.compiled.Untriggered() {
				fmt.Fprintf(cmd.ErrOrStderr(), "notice: rule %s fires on none of its rule cases and none of the objects of --lint: its suites prove only that it compiles\n", id)
			}
			if err := writeBundle(cmd, out, b.Gatekeeper, gatekeeper.Owned(admit.Folder), check); err != nil {
				return err
			}
			if native == "" {
				return nil
			}
			return writeBundle(cmd, native, b.Native, []string{"."}, check)
		},
	}
	addOutFlag(cmd, &out, "policies/gatekeeper", "folder to write the bundle to")
	cmd.Flags().StringSliceVar(&caseFiles, "cases", nil, "selection case files for OMERuntimeSelection's suite (default: the project's own, which evaluate carries; --cases= for none: the suite then holds only the test of the template's validateNamedRuntime parameter)")
	cmd.Flags().StringSliceVar(&lint, "lint", nil, "files and folders of models and runtimes for OMEVersionLint's suite (default: the project's own, which evaluate carries; --lint= for none)")
	cmd.Flags().StringVar(&native, "native-out", "policies/kubernetes", "folder to write the ValidatingAdmissionPolicies for clusters without Gatekeeper to (empty: none)")
	cmd.Flags().BoolVar(&check, "check", false, "write nothing; exit 1 when a generated file differs")
	team.add(cmd, "a Rego rule becomes a template of its own (team/), a ValidatingAdmissionPolicy one too (its CEL) and a policy in --native-out")
	addReleaseFlag(cmd, g)
	cmd.AddCommand(newGatekeeperSuiteCommand(), newGatekeeperViolationsCommand(g))
	return cmd
}

// bundleRules are --rules and --leave-out of a command that writes
// bundles, and the exemptions its checks make (--exempt-namespaces,
// --label-selector).
type bundleRules struct {
	compiled         admit.Rules // after inputs
	rules            ruleOptions
	leaveOut         []string
	exemptNamespaces []string
	selector         string
}

func (t *bundleRules) add(cmd *cobra.Command, what string) {
	addRulesFlag(cmd, &t.rules, what+"; a rule a bundle cannot hold stops the run (exit 2), naming it")
	cmd.Flags().StringSliceVar(&t.leaveOut, "leave-out", nil, "rules of --rules to leave out of the bundles that cannot hold them, each said on standard error (comma-separated or repeated)")
	cmd.Flags().StringSliceVar(&t.exemptNamespaces, "exempt-namespaces", nil, "namespaces whose objects no check of the bundles reviews, written into each constraint's, binding's and policy's match (comma-separated or repeated)")
	cmd.Flags().StringVarP(&t.selector, "label-selector", "l", "", "review only the objects whose labels match this selector (kubectl's syntax, such as 'evaluate.ome.io/exempt!=true'); the others are exempt, written into each constraint's, binding's and policy's match")
}

// inputs are a bundle's inputs (admission.Options): the team's rules
// compiled for targets (runner.BundleRules), and the inputs of its tests,
// --cases and --lint when given (--cases= gives an empty list: none), else
// (nil, their default) the project's own (admission.BundleInputs). Each
// rule a target cannot hold is said with its file and line, and ends the
// run (exit 2); each left out on purpose (--leave-out) is a notice.
func (t *bundleRules) inputs(cmd *cobra.Command, set *policyset.Set, targets, caseFiles, lint []string) (admission.Options, error) {
	sb, err := t.rules.sandbox()
	if err != nil {
		return admission.Options{}, err
	}
	compiled, err := runner.BundleRules(set, t.rules.paths, t.leaveOut, targets, cmd.CommandPath(), sb)
	if err != nil {
		return admission.Options{}, rulesError(cmd, err)
	}
	noteRules(cmd, compiled.Set)
	for _, l := range compiled.Left {
		fmt.Fprintln(cmd.ErrOrStderr(), "notice: "+l)
	}
	opts, err := admission.BundleInputs(set, caseFiles, lint, cmd.ErrOrStderr())
	if err != nil {
		return opts, badInput(err)
	}
	if opts.Exempt, err = admission.NewExemptions(t.exemptNamespaces, t.selector); err != nil {
		return opts, badInput(err)
	}
	if err := compiled.Judge(opts.Objects, opts.Policies.Release); err != nil {
		return opts, rulesError(cmd, err)
	}
	t.compiled = compiled
	opts.Extra = compiled.Extras(opts)
	return opts, nil
}

func newGatekeeperSuiteCommand() *cobra.Command {
	var (
		out, templates, name string
		check                bool
	)
	cmd := &cobra.Command{
		Use:     "suite --out DIR CASES...",
		Short:   "Turn selection case files into a gator suite for OMERuntimeSelection",
		Long:    helpText("gatekeeper-suite"),
		Example: exampleText("gatekeeper-suite"),
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return badInput(fmt.Errorf("--out is required"))
			}
			all, err := cases.ReadAll(args)
			if err != nil {
				return badInput(err)
			}
			b, err := gatekeeper.SelectionSuite(name, all, out, templates)
			if err != nil {
				return badInput(err)
			}
			return writeBundle(cmd, out, b, []string{"cases"}, check)
		},
	}
	addOutFlag(cmd, &out, "", "folder to write the suite to")
	cmd.Flags().StringVar(&templates, "templates", "policies/gatekeeper", "folder of the generated templates")
	cmd.Flags().StringVar(&name, "name", "", "the suite's name (default: the folder's name)")
	cmd.Flags().BoolVar(&check, "check", false, "write nothing; exit 1 when a generated file differs")
	return cmd
}

// writeBundle writes b under dir, removing the files of the generated
// folders (owned) that b no longer has. With check it writes nothing and
// fails when anything would change.
func writeBundle(cmd *cobra.Command, dir string, b admission.Bundle, owned []string, check bool) error {
	current, err := b.Sync(dir, owned, check, cmd.OutOrStdout())
	if err != nil || current {
		return err
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "%s is not current: run %s without --check\n", dir, strings.TrimSuffix(cmd.CommandPath(), " --check"))
	return &silentExit{code: exitFindings}
}
