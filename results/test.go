package results

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ome-policy/evaluator/engine"
)

// TestReport is the outcome of `evaluate test`: Passed and Failed count
// cases (a case passes when each of its runs does); Runs and RunsFailed
// count the runs, one per engine and OME release a case ran on.
type TestReport struct {
	Passed, Failed   int
	Runs, RunsFailed int
	// Engines and OMEVersions are the engines and the OME releases that
	// the runs were made on (cel and rego for "both").
	Engines     []string
	OMEVersions []string
	Cases       []CaseReport
}

// CaseReport is one case (or one Rego unit test) of `evaluate test`, with
// its result on each OME release it ran on.
type CaseReport struct {
	File string
	// Line is where the case (or the Rego test rule) starts; 0 when unknown.
	Line    int
	Name    string
	Passed  bool
	Results []CaseResult
}

// CaseResult is a case's result on one engine name and OME release.
type CaseResult struct {
	Engine string
	// OMEVersion is the OME release whose rules the case ran on.
	OMEVersion string
	Passed     bool
	Expected   any
	Got        any
	// Detail says more about a failure (an error, how the engines
	// disagreed, where the expectation holds); empty when it passed.
	Detail string
	// Runs are the result on each engine apart; when there are none, the
	// result is one run on each engine of its name.
	Runs []engine.EngineRun
}

// EngineRuns are the result's runs, one per engine.
func (res CaseResult) EngineRuns() []engine.EngineRun {
	if res.Runs != nil {
		return res.Runs
	}
	names := []string{res.Engine}
	if res.Engine == engine.Both {
		names = []string{engine.CEL, engine.Rego}
	}
	var out []engine.EngineRun
	for _, n := range names {
		out = append(out, engine.EngineRun{Engine: n, Passed: res.Passed, Got: res.Got})
	}
	return out
}

// Add adds a case with its results, counting it and its runs.
func (r *TestReport) Add(c CaseReport) {
	c.Passed = true
	for _, res := range c.Results {
		c.Passed = c.Passed && res.Passed
		for _, run := range res.EngineRuns() {
			r.Runs++
			if !run.Passed {
				r.RunsFailed++
			}
			if !slices.Contains(r.Engines, run.Engine) {
				r.Engines = append(r.Engines, run.Engine)
			}
		}
		if !slices.Contains(r.OMEVersions, res.OMEVersion) {
			r.OMEVersions = append(r.OMEVersions, res.OMEVersion)
		}
	}
	if c.Passed {
		r.Passed++
	} else {
		r.Failed++
	}
	r.Cases = append(r.Cases, c)
}

// Summary is the report's last line: "6 passed, 0 failed", and the runs
// apart when there are more runs than cases: "6 passed, 0 failed (36 runs:
// 2 engines, 3 releases)".
func (r TestReport) Summary() string {
	s := fmt.Sprintf("%d passed, %d failed", r.Passed, r.Failed)
	if r.Runs <= len(r.Cases) {
		return s
	}
	var on []string
	if n := len(r.Engines); n > 1 {
		on = append(on, fmt.Sprintf("%d engines", n))
	}
	if n := len(r.OMEVersions); n > 1 {
		on = append(on, fmt.Sprintf("%d releases", n))
	}
	return fmt.Sprintf("%s (%d runs: %s)", s, r.Runs, strings.Join(on, ", "))
}
