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
		Use:     "test PATH...",
		Short:   "Run case files and Rego unit tests",
		Long:    helpText("test"),
		Example: exampleText("test"),
		Args:    cobra.MinimumNArgs(1),
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
			set, err := g.allPolicies()
			if err != nil {
				return badInput(err)
			}
			releases := set.Releases()
			if r, from := g.requestedRelease(); r != "" {
				name, err := knownRelease(set, r, from)
				if err != nil {
					return err
				}
				releases = []string{name}
			}
			p := newProgress(cmd, "testing", len(caseFiles)+len(regoFiles))
			report, leftOut, err := runTests(set, releases, engineName, caseFiles, regoFiles, p)
			p.finish()
			if err != nil {
				return badInput(err)
			}
			if leftOut > 0 {
				if len(report.Cases) == 0 {
					return badInput(fmt.Errorf("%s: no case holds for OME %s (each names the releases it holds for in omeVersions)", strings.Join(args, " "), strings.Join(releases, ", ")))
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "notice: %d case(s) left out, which hold for other OME releases than %s\n", leftOut, strings.Join(releases, ", "))
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
	cmd.Flags().StringVar(&g.release, "ome-version", "", fmt.Sprintf(
		"run the cases on this OME release only: %s (default $%s, else every release a case holds for)",
		strings.Join(policyset.EmbeddedReleases(), ", "), releaseEnv))
	addFormatFlag(cmd, &format, output.TestFormats)
	return cmd
}

// runTests runs the case files, each case on each of releases it holds
// for (the OME releases it names, else every one), and the Rego unit
// tests, which test the policy files as written: the newest release's.
// leftOut counts the cases that hold for none of releases.
func runTests(set *policyset.Set, releases []string, engineName string, caseFiles, regoFiles []string, p *progress) (report output.TestReport, leftOut int, err error) {
	add := func(c output.CaseReport) {
		if c.Passed {
			report.Passed++
		} else {
			report.Failed++
		}
		report.Cases = append(report.Cases, c)
	}
	runners := map[string]*engine.CaseRunner{}
	runner := func(r string) (*engine.CaseRunner, error) {
		if runners[r] != nil {
			return runners[r], nil
		}
		rs, err := set.ForRelease(r)
		if err != nil {
			return nil, err
		}
		runners[r], err = engine.NewCaseRunner(engineName, rs)
		return runners[r], err
	}
	for i, f := range caseFiles {
		p.set("testing", i, len(caseFiles)+len(regoFiles))
		list, err := cases.ReadCases(f)
		if err != nil {
			return report, leftOut, err
		}
		if err := cases.CheckReleases(list, set.Releases()); err != nil {
			return report, leftOut, err
		}
		for i := range list {
			c := &list[i]
			ran := false
			for _, r := range releases {
				if !c.HoldsFor(r) {
					continue
				}
				ran = true
				run, err := runner(r)
				if err != nil {
					return report, leftOut, err
				}
				o := run.Run(c)
				add(output.CaseReport{File: f, Name: c.Name, Engine: o.Engine, OMEVersion: r, Passed: o.Passed,
					Expected: o.Expected, Got: o.Got, Detail: o.Detail, Line: c.Line})
			}
			if !ran {
				leftOut++
			}
		}
	}
	if len(regoFiles) > 0 {
		texts := map[string]string{}
		for _, f := range regoFiles {
			b, err := os.ReadFile(f)
			if err != nil {
				return report, leftOut, err
			}
			texts[f] = string(b)
		}
		p.set("testing", len(caseFiles), len(caseFiles)+len(regoFiles))
		results, err := rego.RunTests(set, texts)
		if err != nil {
			return report, leftOut, err
		}
		for _, r := range results {
			got := "pass"
			if !r.Passed {
				got = "fail"
			}
			add(output.CaseReport{File: r.File, Name: r.Name, Engine: engine.Rego, OMEVersion: set.Newest(), Passed: r.Passed,
				Expected: "pass", Got: got, Detail: r.Detail, Line: r.Line})
		}
	}
	return report, leftOut, nil
}
