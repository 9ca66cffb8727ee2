package output

import (
	"encoding/json"
	"io"

	"github.com/ome-policy/evaluator/results"
)

// testJSON writes the test document (testDoc).
type testJSON struct {
	w io.Writer
}

func (t *testJSON) Write(r results.TestReport) error {
	enc := json.NewEncoder(t.w)
	enc.SetIndent("", "  ")
	return enc.Encode(testDocOf(r))
}

// testDoc is what -o json and -o yaml write: "passed" and "failed" count
// cases, as the text's last line does; "runs" counts the runs; "cases"
// has one entry per run, a case on one engine and one OME release.
type testDoc struct {
	Passed      int       `json:"passed" yaml:"passed"`
	Failed      int       `json:"failed" yaml:"failed"`
	Runs        runCounts `json:"runs" yaml:"runs"`
	Engines     []string  `json:"engines" yaml:"engines"`
	OMEVersions []string  `json:"omeVersions" yaml:"omeVersions"`
	Cases       []testRun `json:"cases" yaml:"cases"`
}

// runCounts counts the runs that passed and failed.
type runCounts struct {
	Passed int `json:"passed" yaml:"passed"`
	Failed int `json:"failed" yaml:"failed"`
}

// testRun is one run: a case (or a Rego unit test) on one engine and one
// OME release.
type testRun struct {
	File string `json:"file" yaml:"file"`
	// Line is where the case starts; left out when unknown.
	Line       int    `json:"line,omitempty" yaml:"line,omitempty"`
	Name       string `json:"name" yaml:"name"`
	Engine     string `json:"engine" yaml:"engine"`
	OMEVersion string `json:"omeVersion" yaml:"omeVersion"`
	Passed     bool   `json:"passed" yaml:"passed"`
	Expected   any    `json:"expected" yaml:"expected"`
	Got        any    `json:"got" yaml:"got"`
	// Detail says more about a failure (the engine's error, how the
	// engines disagreed, where the expectation holds); left out when the
	// run passed.
	Detail string `json:"detail,omitempty" yaml:"detail,omitempty"`
}

// testDocOf is the report as the test document, its lists [] rather than null
// when empty.
func testDocOf(r results.TestReport) testDoc {
	d := testDoc{Passed: r.Passed, Failed: r.Failed,
		Runs:    runCounts{Passed: r.Runs - r.RunsFailed, Failed: r.RunsFailed},
		Engines: r.Engines, OMEVersions: r.OMEVersions, Cases: []testRun{}}
	if d.Engines == nil {
		d.Engines = []string{}
	}
	if d.OMEVersions == nil {
		d.OMEVersions = []string{}
	}
	for _, c := range r.Cases {
		for _, res := range c.Results {
			for _, run := range res.EngineRuns() {
				t := testRun{File: c.File, Line: c.Line, Name: c.Name, Engine: run.Engine, OMEVersion: res.OMEVersion,
					Passed: run.Passed, Expected: res.Expected, Got: run.Got}
				switch {
				case run.Err != "":
					t.Detail = run.Err
				case !run.Passed:
					t.Detail = res.Detail
				}
				d.Cases = append(d.Cases, t)
			}
		}
	}
	return d
}
