package main

import (
	"fmt"
	"os"
	"slices"
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
			releases, err := testReleases(g, set)
			if err != nil {
				return err
			}
			p := newProgress(cmd, "testing", len(caseFiles)+len(regoFiles))
			report, leftOut, err := runTests(set, releases, engineName, caseFiles, regoFiles, p)
			p.finish()
			if err != nil {
				return badInput(err)
			}
			if len(report.Cases) == 0 && len(leftOut) == 0 {
				return badInput(fmt.Errorf("%s: no cases (the cases: lists are empty)", strings.Join(args, " ")))
			}
			if len(report.Cases) == 0 {
				return badInput(fmt.Errorf("%s: no case holds for OME %s (each names the releases it holds for in omeVersions)", strings.Join(args, " "), strings.Join(releases, ", ")))
			}
			for _, l := range leftOut {
				fmt.Fprintln(cmd.ErrOrStderr(), "notice: "+l.notice(releases))
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
	cmd.Flags().StringVar(&g.release, "ome-version", "", releaseFlagHelp("the OME release to run the cases on")+
		"; "+allReleases+" runs each case on every release it holds for")
	addFormatFlag(cmd, &format, output.TestFormats)
	return cmd
}

// allReleases, as test's --ome-version, runs each case on every release
// it holds for.
const allReleases = "all"

// testReleases are the OME releases test runs the cases on: the one the
// command answers for (--ome-version, else $EVALUATE_OME_VERSION, else
// the newest), or every one with --ome-version all.
func testReleases(g *globalOptions, set *policyset.Set) ([]string, error) {
	if g.release == allReleases {
		return set.Releases(), nil
	}
	r, err := g.chosenRelease(set)
	if err != nil {
		return nil, err
	}
	return []string{r}, nil
}

// leftOut is a case file's cases that hold for none of the releases run.
type leftOut struct {
	file     string
	n, of    int
	releases []string // the releases they hold for, newest first
}

func (l leftOut) notice(run []string) string {
	holds := strings.Join(l.releases, ", ")
	if n := len(l.releases); n > 1 {
		holds = strings.Join(l.releases[:n-1], ", ") + " and " + l.releases[n-1]
	}
	if l.n == l.of {
		return fmt.Sprintf("%s: no case holds for OME %s (its cases hold for %s)", l.file, strings.Join(run, ", "), holds)
	}
	they := "they hold"
	if l.n == 1 {
		they = "it holds"
	}
	return fmt.Sprintf("%s: %d of %d cases left out: %s only for OME %s", l.file, l.n, l.of, they, holds)
}

// runTests runs the case files, each case on each of releases it holds
// for (the OME releases it names, else every one), and the Rego unit
// tests, which test the policy files as written: the newest release's.
// leftOut says, of each case file, the cases that hold for none of
// releases.
func runTests(set *policyset.Set, releases []string, engineName string, caseFiles, regoFiles []string, p *progress) (report output.TestReport, left []leftOut, err error) {
	runs := engine.NewReleaseRuns(engineName, set)
	for i, f := range caseFiles {
		p.set("testing", i, len(caseFiles)+len(regoFiles))
		list, err := cases.ReadCases(f)
		if err != nil {
			return report, left, err
		}
		if err := cases.CheckReleases(list, set.Releases()); err != nil {
			return report, left, err
		}
		l := leftOut{file: f, of: len(list)}
		for i := range list {
			c := &list[i]
			outcomes, err := runs.Run(c, releases)
			if err != nil {
				return report, left, err
			}
			if len(outcomes) == 0 {
				l.n++
				for _, r := range set.Releases() {
					if c.HoldsFor(r) && !slices.Contains(l.releases, r) {
						l.releases = append(l.releases, r)
					}
				}
				continue
			}
			cr := output.CaseReport{File: f, Line: c.Line, Name: c.Name}
			for _, o := range outcomes {
				cr.Results = append(cr.Results, output.CaseResult{Engine: o.Engine, OMEVersion: o.Release, Passed: o.Passed,
					Expected: o.Expected, Got: o.Got, Detail: o.Detail, Runs: o.Runs})
			}
			report.Add(cr)
		}
		if l.n > 0 {
			slices.SortFunc(l.releases, func(a, b string) int {
				return slices.Index(set.Releases(), a) - slices.Index(set.Releases(), b)
			})
			left = append(left, l)
		}
	}
	if len(regoFiles) > 0 {
		texts := map[string]string{}
		for _, f := range regoFiles {
			b, err := os.ReadFile(f)
			if err != nil {
				return report, left, err
			}
			texts[f] = string(b)
		}
		p.set("testing", len(caseFiles), len(caseFiles)+len(regoFiles))
		results, err := rego.RunTests(set, texts)
		if err != nil {
			return report, left, err
		}
		for _, r := range results {
			got := "pass"
			if !r.Passed {
				got = "fail"
			}
			report.Add(output.CaseReport{File: r.File, Line: r.Line, Name: r.Name, Results: []output.CaseResult{{
				Engine: engine.Rego, OMEVersion: set.Newest(), Passed: r.Passed, Expected: "pass", Got: got, Detail: r.Detail}}})
		}
	}
	return report, left, nil
}
