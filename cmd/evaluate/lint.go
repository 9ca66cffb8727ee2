package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/live"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/output"
)

func newLintCommand(g *globalOptions) *cobra.Command {
	var (
		engineName string
		format     string
		crossCheck bool
		failOnWarn bool
		noColor    bool
		cl         clusterOptions
	)
	cmd := &cobra.Command{
		Use:   "lint PATH...",
		Short: "Find versions, operators and names that will never match, before you apply them",
		Long: `lint reads models (BaseModel, ClusterBaseModel) and runtimes (ServingRuntime,
ClusterServingRuntime) and reports what OME accepts without a word but
never matches: versions that do not parse, version: "", unquoted versions,
unknown operators, ordering operators on suffixed versions, fields that
selection ignores, missing formats and frameworks, names that differ only in
case, duplicate names and incomplete size ranges; and, as crd-schema
errors, what OME's CRDs refuse (required fields, types, enums), checked
with the validator the API server uses. Each finding names the file, line
and field, says what is wrong and how to fix it.

The rules are policies (CEL and Rego, see evaluate policies): lint loads the
objects leniently, so a field of the wrong type is a finding rather than an
error, and hands them to the policies.

With --cross-check, every model is also paired with every runtime given:
unmatched-model for a model no runtime accepts, unreachable-entry for an
entry that accepts no model, each with its closest miss.

With --cluster (implied by --kubeconfig and --context) the objects also come
from a running cluster, read as kubectl reads it: BaseModels, ServingRuntimes
of the namespace (-n, default the context's; -A for all) and every
ClusterBaseModel and ClusterServingRuntime.

PATH is a file, a folder (recursively: *.yaml, *.yml, *.json; a folder that
holds a config.json or model_index.json is read as one model) or -.

Exit codes: 0 no error (warnings alone pass, unless --fail-on-warn), 1 an
error finding, 2 unreadable input or usage.`,
		Example: `  # Before kubectl apply
  evaluate lint runtimes/ models/

  # Also pair every model with every runtime
  evaluate lint --cross-check runtimes/ models/

  # Annotations on a pull request, from a GitHub Actions step
  evaluate lint -o github runtimes/

  # For code scanning
  evaluate lint -o sarif runtimes/ > lint.sarif

  # What a cluster already holds, every namespace
  evaluate lint --cluster -A`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkChoice("engine", engineName, engine.Names); err != nil {
				return err
			}
			if err := checkChoice("output", format, output.LintFormats); err != nil {
				return err
			}
			objs, linter, err := lintInputs(g, cmd, &cl, engineName, args)
			if err != nil {
				return err
			}
			w, err := output.NewLintWriter(format, cmd.OutOrStdout(), output.StyleFor(cmd.OutOrStdout(), noColor))
			if err != nil {
				return badInput(err)
			}
			findings, err := linter.Lint(objs, engine.LintOptions{CrossCheck: crossCheck})
			if err != nil {
				return err
			}
			report := output.LintReport{Findings: findings, FailOnWarn: failOnWarn}
			for _, o := range objs {
				report.Objects = append(report.Objects, output.LintedObject{Ref: objects.RefOf(o), File: o.File, Line: o.Line})
			}
			if err := w.Write(report); err != nil {
				return err
			}
			for _, f := range findings {
				if report.Fails(f) {
					return &silentExit{code: exitFindings}
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&engineName, "engine", engine.CEL, "policy engine: "+strings.Join(engine.Names, ", "))
	cmd.Flags().StringVarP(&format, "output", "o", "text", "output format: "+strings.Join(output.LintFormats, ", "))
	cmd.Flags().BoolVar(&crossCheck, "cross-check", false, "also pair every model with every runtime given (unmatched-model, unreachable-entry)")
	cmd.Flags().BoolVar(&failOnWarn, "fail-on-warn", false, "exit 1 on warnings too")
	cmd.Flags().BoolVar(&noColor, "no-color", false, "plain text even on a terminal (so does the NO_COLOR environment variable)")
	addClusterFlags(cmd, &cl)
	return cmd
}

// lintInputs loads the objects to lint (loadForLint) and the linter of
// the engine chosen.
func lintInputs(g *globalOptions, cmd *cobra.Command, cl *clusterOptions, engineName string, paths []string) ([]*objects.Object, engine.Linter, error) {
	objs, err := loadForLint(g, cmd, cl, paths)
	if err != nil {
		return nil, nil, err
	}
	set, err := g.policies()
	if err != nil {
		return nil, nil, badInput(err)
	}
	linter, err := engine.NewLinter(engineName, set)
	if err != nil {
		return nil, nil, badInput(err)
	}
	return objs, linter, nil
}

// loadForLint reads each path leniently (a field of the wrong type is a
// finding, not an error) and keeps the models and runtimes; a path that
// holds none is an error that names it.
func loadForLint(g *globalOptions, cmd *cobra.Command, cl *clusterOptions, paths []string) ([]*objects.Object, error) {
	if len(paths) == 0 && !cl.enabled() {
		return nil, badInput(fmt.Errorf("give the models and runtimes to lint: files, folders, - or --cluster"))
	}
	opts := objects.LoadOptions{Stdin: g.stdin, Notices: cmd.ErrOrStderr(), Lenient: true, ModelFolders: true}
	var out []*objects.Object
	for _, p := range paths {
		objs, err := objects.Load([]string{p}, opts)
		if err != nil {
			return nil, badInput(err)
		}
		n := 0
		for _, o := range objs {
			if !o.IsModel() && !o.IsRuntime() {
				fmt.Fprintf(cmd.ErrOrStderr(), "%s:%d: notice: skipping %s (lint reads models and runtimes)\n", o.File, o.Line, o.Ref())
				continue
			}
			out = append(out, o)
			n++
		}
		if n == 0 {
			return nil, badInput(fmt.Errorf("%s: no model or runtime found", p))
		}
	}
	if cl.enabled() {
		objs, err := cl.load(g, cmd, nil, live.ModelsAndRuntimes, opts)
		if err != nil {
			return nil, err
		}
		out = append(out, objs...)
	}
	return out, nil
}
