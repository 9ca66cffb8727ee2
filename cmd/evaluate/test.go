package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ome-policy/evaluator/cases"
	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/engine/policyset"
	"github.com/ome-policy/evaluator/engine/rego"
	"github.com/ome-policy/evaluator/output"
)

func newTestCommand(g *globalOptions) *cobra.Command {
	var (
		engineName string
		format     string
	)
	cmd := &cobra.Command{
		Use:   "test PATH...",
		Short: "Run case files and Rego unit tests",
		Long: `test runs case files (YAML or JSON with a top-level cases: list) and Rego unit
tests (*_test.rego, run by OPA's test runner against the
policies, with the ome.* builtins registered). PATH is a file or a folder,
read recursively; in a folder, *.yaml, *.yml and *.json files with a cases:
list and *_test.rego files are run, and other files are skipped.

A match case gives a model, a runtime and the expected verdict (compatible,
and optionally OME's reason, compared byte for byte). With --engine both a
case passes only when CEL and Rego both give the expected result.

Each failure is printed with what was expected and what came; the last line
is "N passed, M failed". -o json and -o yaml give every case; -o sarif,
-o junit and -o github give the failures to code scanning, CI test reports
and GitHub annotations. Exit codes: 0 all passed, 1 any failed, 2 a file
cannot be read or a case is malformed.`,
		Example: `  # The bundled cases on both engines
  evaluate test --engine both testdata/cases

  # The policies' own unit tests
  evaluate test policies/rego policies/cel

  # A report for CI
  evaluate test -o json testdata/cases > report.json

  # JUnit XML for a CI test tab, or annotations on a GitHub pull request
  evaluate test -o junit testdata/cases > report.xml
  evaluate test -o github testdata/cases`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			w, err := output.NewTestWriter(format, cmd.OutOrStdout())
			if err != nil {
				return badInput(err)
			}
			caseFiles, regoFiles, err := cases.FindTests(args)
			if err != nil {
				return badInput(err)
			}
			if len(caseFiles) == 0 && len(regoFiles) == 0 {
				return badInput(fmt.Errorf("%s: no case files (a cases: list) or Rego tests (*_test.rego) found", strings.Join(args, " ")))
			}
			set, err := g.policies()
			if err != nil {
				return badInput(err)
			}
			report, err := runTests(set, engineName, caseFiles, regoFiles)
			if err != nil {
				return badInput(err)
			}
			if err := w.Write(report); err != nil {
				return err
			}
			if report.Failed > 0 {
				return &silentExit{code: exitFindings}
			}
			return nil
		},
	}
	addEngineFlag(cmd, &engineName, engine.Both)
	addFormatFlag(cmd, &format, output.TestFormats)
	return cmd
}

func runTests(set *policyset.Set, engineName string, caseFiles, regoFiles []string) (output.TestReport, error) {
	var report output.TestReport
	add := func(c output.CaseReport) {
		if c.Passed {
			report.Passed++
		} else {
			report.Failed++
		}
		report.Cases = append(report.Cases, c)
	}
	if len(caseFiles) > 0 {
		runner, err := engine.NewCaseRunner(engineName, set)
		if err != nil {
			return report, err
		}
		for _, f := range caseFiles {
			list, err := cases.ReadCases(f)
			if err != nil {
				return report, err
			}
			for i := range list {
				c := &list[i]
				o := runner.Run(c)
				add(output.CaseReport{File: f, Name: c.Name, Engine: o.Engine, Passed: o.Passed,
					Expected: o.Expected, Got: o.Got, Detail: o.Detail, Line: c.Line})
			}
		}
	}
	if len(regoFiles) > 0 {
		texts := map[string]string{}
		for _, f := range regoFiles {
			b, err := os.ReadFile(f)
			if err != nil {
				return report, err
			}
			texts[f] = string(b)
		}
		results, err := rego.RunTests(set, texts)
		if err != nil {
			return report, err
		}
		for _, r := range results {
			got := "pass"
			if !r.Passed {
				got = "fail"
			}
			add(output.CaseReport{File: r.File, Name: r.Name, Engine: engine.Rego, Passed: r.Passed,
				Expected: "pass", Got: got, Detail: r.Detail, Line: r.Line})
		}
	}
	return report, nil
}
