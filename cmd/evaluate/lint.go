package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/live"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/output"
)

// lintLong is the help of lint.
const lintLong = `lint reads models (BaseModel, ClusterBaseModel) and runtimes (ServingRuntime,
ClusterServingRuntime) and reports what OME accepts without a word but
never matches: versions that do not parse, version: "", unquoted versions,
unknown operators, ordering operators on suffixed versions, fields that
selection ignores, missing formats and frameworks, names that differ only in
case, duplicate names and incomplete size ranges; and, as crd-schema
errors, what OME's CRDs refuse (required fields, types, enums), checked
with the validator the API server uses. Each finding names the file, line
and field, says what is wrong and how to fix it. --list-rules lists the
rules.

The rules are policies (CEL and Rego, see evaluate policies): lint loads the
objects leniently, so a field of the wrong type is a finding rather than an
error, and hands them to the policies, one object at a time, then the
objects together (duplicate-name, name-case), so a cluster's whole dump is
linted in time and memory that grow with its size, no faster.

Turning rules off: --disable RULE,... for the run, --enable-only RULE,...
for only those, or on one object the annotation
evaluate.ome.io/ignore: "RULE,RULE". An unknown rule id is an error. What
OME's CRDs write by default (an operator Equal) is no finding, so objects
read back from a cluster lint as their files do.

With --cross-check, every model is also paired with every runtime OME
would pair it with (a BaseModel with the ServingRuntimes of its namespace
and every ClusterServingRuntime): unmatched-model for a model no runtime
accepts, unreachable-entry for an entry that accepts no model, each with
its closest miss.

With --cluster (implied by every cluster flag but -n, -A and --request-timeout) the objects also come
from a running cluster, read as kubectl reads it: BaseModels, ServingRuntimes
of the namespace (-n, default the context's; -A for all) and every
ClusterBaseModel and ClusterServingRuntime.

PATH (an argument, read with its folders) and -f (its folders too with -R)
take files, folders and - for standard input, holding any mix of objects:
other kinds are counted in a notice. A folder that holds a config.json or
model_index.json is read as one model. What cannot be read at all (YAML that
does not parse, a Helm template, an object without a name) is an
input-error finding with its file and line, and the exit code is 2; every
other object is still linted. Input with no OME object exits 0 with a
notice, unless --fail-on-empty.

Exit codes: 0 no error (warnings alone pass, unless --fail-on-warn), 1 an
error finding, 2 unreadable input or usage.`

// lintExample are the examples of lint.
const lintExample = `  # Before kubectl apply
  evaluate lint runtimes/ models/

  # A repository's whole deploy tree, as CI lints it
  evaluate lint -R -f deploy/

  # Also pair every model with every runtime
  evaluate lint --cross-check runtimes/ models/

  # Without the warnings a team has accepted
  evaluate lint --disable name-case,ignored-field runtimes/

  # Only what OME's CRDs refuse
  evaluate lint --enable-only crd-schema runtimes/

  # The rules, with their severities
  evaluate lint --list-rules

  # Annotations on a pull request, from a GitHub Actions step
  evaluate lint -o github runtimes/

  # For code scanning
  evaluate lint -o sarif runtimes/ > lint.sarif

  # What a cluster already holds, every namespace
  evaluate lint --cluster -A`

// lintOptions are lint's flags.
type lintOptions struct {
	in         inputOptions
	engineName string
	format     string
	crossCheck bool
	failOnWarn bool
	noColor    bool
	listRules  bool
	disable    []string
	enableOnly []string
}

func newLintCommand(g *globalOptions) *cobra.Command {
	o := &lintOptions{}
	cmd := &cobra.Command{
		Use:     "lint [PATH...] [-f PATH...]",
		Short:   "Find versions, operators and names that will never match, before you apply them",
		Long:    lintLong,
		Example: lintExample,
		RunE:    func(cmd *cobra.Command, args []string) error { return o.run(cmd, g, args) },
	}
	addInputFlags(cmd, &o.in, false)
	addEngineFlag(cmd, &o.engineName, engine.CEL)
	addFormatFlag(cmd, &o.format, output.LintFormats)
	cmd.Flags().BoolVar(&o.crossCheck, "cross-check", false, "also pair every model with every runtime OME pairs it with (unmatched-model, unreachable-entry)")
	cmd.Flags().BoolVar(&o.failOnWarn, "fail-on-warn", false, "exit 1 on warnings too")
	cmd.Flags().BoolVar(&o.noColor, "no-color", false, "plain text even on a terminal (so does the NO_COLOR environment variable)")
	cmd.Flags().BoolVar(&o.listRules, "list-rules", false, "list the rules: id, severity and what each finds")
	cmd.Flags().StringSliceVar(&o.disable, "disable", nil, "turn these rules off (comma-separated or repeated)")
	cmd.Flags().StringSliceVar(&o.enableOnly, "enable-only", nil, "report only these rules (comma-separated or repeated)")
	cmd.MarkFlagsMutuallyExclusive("disable", "enable-only")
	return cmd
}

// run reads the rules (and with --list-rules lists them), lints every
// object as it is read, then the objects together, and writes the
// findings with the input errors among them.
func (o *lintOptions) run(cmd *cobra.Command, g *globalOptions, args []string) error {
	set, err := g.policies()
	if err != nil {
		return badInput(err)
	}
	rules, err := engine.LintRules(set)
	if err != nil {
		return badInput(err)
	}
	if o.listRules {
		return output.WriteRules(cmd.OutOrStdout(), rules)
	}
	filter, err := engine.NewRuleFilter(rules, o.disable, o.enableOnly)
	if err != nil {
		return badInput(err)
	}
	o.in.paths = args
	if !o.in.given() {
		return badInput(fmt.Errorf("give the models and runtimes to lint: files, folders, -f, - or --cluster"))
	}
	linter, err := engine.NewLinter(o.engineName, set)
	if err != nil {
		return badInput(err)
	}
	w, err := output.NewLintWriter(o.format, cmd.OutOrStdout(), output.StyleFor(cmd.OutOrStdout(), o.noColor))
	if err != nil {
		return badInput(err)
	}
	// What the rules about the objects together read is held until every
	// object is read.
	defer holdingData()()
	run := engine.NewLintRun(linter, rules, filter, o.crossCheck)
	input, err := o.in.read(g, cmd, live.ModelsAndRuntimes, true, run.Object)
	if err != nil {
		return err
	}
	if run.Err() != nil {
		return run.Err()
	}
	noteSkipped(cmd, "lint", "models and runtimes", run.Others)
	problems := append(input.Problems, run.Problems...)
	if len(run.Objects) == 0 && len(problems) == 0 {
		what := "models or runtimes"
		if len(run.Others) == 0 {
			what = "OME objects"
		}
		return o.in.empty(cmd, what)
	}
	if err := run.Finish(); err != nil {
		return err
	}
	report := lintReport(run, rules, problems, o.failOnWarn)
	if err := w.Write(report); err != nil {
		return err
	}
	fails := false
	for _, f := range report.Findings {
		fails = fails || report.Fails(f)
	}
	return exitAfter(problems, fails)
}

// lintReport is what a lint run found, with each input that could not be
// read as an input-error finding, sorted by file, line and rule.
func lintReport(run *engine.LintRun, rules []engine.Rule, problems []*objects.InputError, failOnWarn bool) output.LintReport {
	report := output.LintReport{Findings: run.Findings, Objects: run.Objects, FailOnWarn: failOnWarn, Rules: rules}
	for _, p := range problems {
		report.Findings = append(report.Findings, engine.Finding{Rule: engine.RuleInputError, Severity: engine.SeverityError,
			Field: p.Field, File: p.File, Line: p.Line, Message: p.Msg})
	}
	engine.SortFindings(report.Findings)
	return report
}
