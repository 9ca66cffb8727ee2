package runner

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ome-policy/evaluator/cases"
	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/input"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/policies/policyset"
	"github.com/ome-policy/evaluator/results"
	"github.com/ome-policy/evaluator/rules"
)

// AllReleases, as the release of a test run, runs each case on every
// release it holds for.
const AllReleases = "all"

// TestReleases are the OME releases a test run runs the cases on: the one
// p chooses, or every one when p.Release is AllReleases.
func TestReleases(p *Policies, set *policyset.Set) ([]string, error) {
	if p.Release == AllReleases {
		return set.Releases(), nil
	}
	r, err := p.Chosen(set)
	if err != nil {
		return nil, err
	}
	return []string{r}, nil
}

// LeftOut is a case file's cases that hold for none of the releases run.
type LeftOut struct {
	File     string
	N, Of    int
	Releases []string // the releases they hold for, newest first
}

// Notice says so, of run, the releases run.
func (l LeftOut) Notice(run []string) string {
	holds := strings.Join(l.Releases, ", ")
	if n := len(l.Releases); n > 1 {
		holds = strings.Join(l.Releases[:n-1], ", ") + " and " + l.Releases[n-1]
	}
	if l.N == l.Of {
		return fmt.Sprintf("%s: no case holds for OME %s (its cases hold for %s)", l.File, strings.Join(run, ", "), holds)
	}
	they := "they hold"
	if l.N == 1 {
		they = "it holds"
	}
	return fmt.Sprintf("%s: %d of %d cases left out: %s only for OME %s", l.File, l.N, l.Of, they, holds)
}

// FindTests finds the case files and Rego tests of paths (files and
// folders); none is an error.
func FindTests(paths []string) (Tests, error) {
	caseFiles, regoFiles, err := cases.FindTests(paths)
	if err != nil {
		return Tests{}, err
	}
	if len(caseFiles) == 0 && len(regoFiles) == 0 {
		return Tests{}, &NoTests{fmt.Sprintf("%s: no case files (a cases: list) or Rego tests (*_test.rego) found", strings.Join(paths, " "))}
	}
	return Tests{paths: paths, CaseFiles: caseFiles, RegoFiles: regoFiles}, nil
}

// NewTests are the tests of paths (FindTests), on the engine named, with
// every release's policies of p and the releases that p runs them on
// (TestReleases). A team's own rules (rulePaths, as --rules gives them)
// are loaded beside OME's policies, so that their unit tests can test
// them; with no paths, the tests are those of rulePaths. The rules, and
// every Rego test run, are held to the sandbox sb (rules.Sandbox).
func NewTests(p *Policies, paths []string, engineName string, rulePaths []string, sb rules.Sandbox) (Tests, error) {
	if len(paths)+len(rulePaths) == 0 {
		return Tests{}, fmt.Errorf("give the case files and Rego tests to run (files or folders), or --rules")
	}
	if len(paths) == 0 {
		paths = rulePaths
	}
	set, err := p.All()
	if err != nil {
		return Tests{}, err
	}
	// The rules first: a rule that does not load is said as itself, not
	// as a folder without tests.
	var team *rules.Set
	if len(rulePaths) > 0 {
		ome, err := engine.LintRules(set)
		if err != nil {
			return Tests{}, err
		}
		if team, err = LoadRules(rulePaths, ome, sb); err != nil {
			return Tests{}, err
		}
	}
	t, err := FindTests(paths)
	if err != nil {
		return t, err
	}
	if err := sandboxTests(t.RegoFiles); err != nil {
		return t, err
	}
	t.Set, t.Team, t.sandbox = set, team, sb
	t.Releases, err = TestReleases(p, t.Set)
	t.Engine = engineName
	return t, err
}

// sandboxTests reads the Rego tests files and names, as one
// rules.Problems error, each call they make to a builtin that the rules'
// sandbox refuses (rules.SandboxProblems): a test runs in the sandbox of
// the rules it tests.
func sandboxTests(files []string) error {
	texts := map[string]string{}
	var probs rules.Problems
	for _, f := range files {
		b, err := input.ReadFile(f)
		if err != nil {
			var ie *objects.InputError
			if errors.As(err, &ie) {
				probs = append(probs, ie)
				continue
			}
			return err
		}
		texts[f] = string(b)
	}
	probs = append(probs, rules.SandboxProblems(texts)...)
	if len(probs) > 0 {
		return probs
	}
	return nil
}

// NoTests is the error of a run that finds no test to run: no case file
// or Rego test, or only empty case lists.
type NoTests struct{ msg string }

func (e *NoTests) Error() string { return e.msg }

// Tests are the tests of a run: case files, run on the engines of Engine
// and on Releases, each case on each release it holds for (the OME
// releases it names, else every one), and Rego unit tests, which test the
// policy files as written: the newest release's. Step, when not nil, is
// told how many files are done, of all.
type Tests struct {
	Set       *policyset.Set
	Releases  []string
	Engine    string
	CaseFiles []string
	RegoFiles []string
	Step      func(done, total int)
	// Team are a team's rules, whose Rego the Rego tests may import.
	Team *rules.Set
	// Unloaded are, after Run, the Rego files beside the tests whose
	// packages the tests refer to, when there are no rules of a team's own:
	// the rules the tests test, which only --rules loads (rules.Untested).
	Unloaded []string
	paths    []string // as given to FindTests
	sandbox  rules.Sandbox
}

// Run runs the tests. The notices say, of each case file, the cases that
// hold for none of the releases (LeftOut), and after a failure, the Rego
// beside the tests that they cannot see (Unloaded). A run with no case at
// all is an error: the case lists are empty, or no case holds for the
// releases.
func (t *Tests) Run() (report results.TestReport, notices []string, err error) {
	report, left, err := t.run()
	switch {
	case err != nil:
	case len(report.Cases) == 0 && len(left) == 0:
		err = &NoTests{fmt.Sprintf("%s: no cases (the cases: lists are empty)", strings.Join(t.paths, " "))}
	case len(report.Cases) == 0:
		err = &NoTests{fmt.Sprintf("%s: no case holds for OME %s (each names the releases it holds for in omeVersions)", strings.Join(t.paths, " "), strings.Join(t.Releases, ", "))}
	}
	for _, l := range left {
		notices = append(notices, "notice: "+l.Notice(t.Releases))
	}
	if report.Failed > 0 && len(t.Unloaded) > 0 {
		notices = append(notices, fmt.Sprintf("notice: %s: Rego that is no test, which the tests cannot see: load a team's rules with --rules", strings.Join(t.Unloaded, ", ")))
	}
	return report, notices, err
}

func (t *Tests) run() (report results.TestReport, left []LeftOut, err error) {
	total := len(t.CaseFiles) + len(t.RegoFiles)
	step := func(done int) {
		if t.Step != nil {
			t.Step(done, total)
		}
	}
	runs := NewReleaseRuns(t.Engine, t.Set)
	for i, f := range t.CaseFiles {
		step(i)
		l, err := t.runFile(runs, f, &report)
		if err != nil {
			return report, left, err
		}
		if l.N > 0 {
			left = append(left, l)
		}
	}
	if len(t.RegoFiles) == 0 {
		return report, left, nil
	}
	texts := map[string]string{}
	if t.Team != nil {
		for f, text := range t.Team.Modules {
			texts[f] = text
		}
	}
	for _, f := range t.RegoFiles {
		b, err := input.ReadFile(f)
		if err != nil {
			return report, left, err
		}
		texts[f] = string(b)
	}
	step(len(t.CaseFiles))
	if t.Team == nil {
		tests := map[string]string{}
		for _, f := range t.RegoFiles {
			tests[f] = texts[f]
		}
		t.Unloaded = rules.Untested(t.paths, tests)
	}
	// The tests run in the rules' sandbox: a test past the time limit
	// fails, saying so; a run whose memory grew past the limit stops,
	// naming the test it stopped (exit 2).
	ctx, timeout, timedOut, done := t.sandbox.TestRun()
	tests, err := engine.RunRegoTests(ctx, timeout, t.Set, texts)
	stop := done()
	if err != nil {
		return report, left, err
	}
	for _, r := range tests {
		if stop != nil && r.Stopped {
			return report, left, &objects.InputError{File: r.File, Line: r.Line, Msg: fmt.Sprintf("test %s: %s; no test after it is run", r.Name, stop)}
		}
		got := "pass"
		if !r.Passed {
			got = "fail"
		}
		if r.Stopped {
			r.Detail = timedOut
		}
		report.Add(results.CaseReport{File: r.File, Line: r.Line, Name: r.Name, Results: []results.CaseResult{{
			Engine: engine.Rego, OMEVersion: t.Set.Newest(), Passed: r.Passed, Expected: "pass", Got: got, Detail: r.Detail}}})
	}
	if stop != nil {
		return report, left, fmt.Errorf("the Rego unit tests: %w", stop)
	}
	return report, left, nil
}

// runFile runs the cases of one file into report.
func (t Tests) runFile(runs *ReleaseRuns, f string, report *results.TestReport) (LeftOut, error) {
	list, err := cases.ReadCases(f)
	if err != nil {
		return LeftOut{}, err
	}
	if err := cases.CheckReleases(list, t.Set.Releases()); err != nil {
		return LeftOut{}, err
	}
	l := LeftOut{File: f, Of: len(list)}
	for i := range list {
		c := &list[i]
		if c.Rule != "" {
			res, err := t.runRuleCase(c)
			if err != nil {
				return l, err
			}
			report.Add(results.CaseReport{File: f, Line: c.Line, Name: c.Name, Results: []results.CaseResult{res}})
			continue
		}
		outcomes, err := runs.Run(c, t.Releases)
		if err != nil {
			return l, err
		}
		if len(outcomes) == 0 {
			l.N++
			for _, r := range t.Set.Releases() {
				if c.HoldsFor(r) && !slices.Contains(l.Releases, r) {
					l.Releases = append(l.Releases, r)
				}
			}
			continue
		}
		cr := results.CaseReport{File: f, Line: c.Line, Name: c.Name}
		for _, o := range outcomes {
			cr.Results = append(cr.Results, results.CaseResult{Engine: o.Engine, OMEVersion: o.Release, Passed: o.Passed,
				Expected: o.Expected, Got: o.Got, Detail: o.Detail, Runs: o.Runs})
		}
		report.Add(cr)
	}
	slices.SortFunc(l.Releases, func(a, b string) int {
		return slices.Index(t.Set.Releases(), a) - slices.Index(t.Set.Releases(), b)
	})
	return l, nil
}

// runRuleCase runs a rule case: the team's rule (of Team) on the case's
// object, whose messages, in order, must be those the case expects. It
// runs once, in the rule's language, whatever the engine and the release.
func (t Tests) runRuleCase(c *cases.Case) (results.CaseResult, error) {
	where := &objects.InputError{File: c.File, Line: c.Line, Case: c.Name, Field: "rule"}
	if t.Team.Len() == 0 {
		where.Msg = fmt.Sprintf("tests rule %s: give the team's rules with --rules", c.Rule)
		return results.CaseResult{}, where
	}
	var rule *rules.Rule
	for i, r := range t.Team.Rules {
		if r.ID == c.Rule {
			rule = &t.Team.Rules[i]
		}
	}
	if rule == nil {
		where.Msg = fmt.Sprintf("no rule %s among --rules (evaluate lint --rules ... --list-rules lists them)", c.Rule)
		return results.CaseResult{}, where
	}
	// The rule judges the object beside the case's objects, with OME's
	// decisions about them, as evaluate lint --rules would.
	fs, problems, err := t.Team.CheckAll(append(slices.Clone(c.Objects), c.Object), Decider(t.Engine, t.Set))
	if err != nil {
		return results.CaseResult{}, err
	}
	if len(problems) > 0 {
		return results.CaseResult{}, problems[0]
	}
	got := []string{}
	for _, f := range fs {
		if f.Rule == c.Rule && f.Object == objects.RefOf(c.Object) && f.ObjectLine == c.Object.Line {
			got = append(got, f.Message)
		}
	}
	want := *c.Expect.Findings
	res := results.CaseResult{Engine: rule.Language, OMEVersion: t.Set.Newest(), Passed: slices.Equal(got, want),
		Expected: map[string][]string{"findings": want}, Got: map[string][]string{"findings": got}}
	switch {
	case res.Passed:
	case len(got) != len(want):
		res.Detail = fmt.Sprintf("rule %s gives %d finding(s) on the object; the case expects %d", c.Rule, len(got), len(want))
	default:
		res.Detail = fmt.Sprintf("rule %s gives other messages than the case expects", c.Rule)
	}
	return res, nil
}
