// Package output writes the results of evaluate's commands in each format the
// user can ask for with -o. Each format lives in its own file behind the
// same small interfaces, so adding one touches nothing else. It writes
// match, select, explain, lint, test, rules and violations; output/diffout
// writes diff's report, with the helpers exported here (RefText, FileLine,
// GitHubAnnotation, UnknownFormat).
//
// It imports engine (the answers' types) and objects, never report or
// output/diffout, which read its documents and helpers.
package output

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/objects"
)

// MatchWriter writes the results of `evaluate match` as they come: Begin
// once, Model for each model with its results (the runtimes OME pairs it
// with, in input order), End once.
type MatchWriter interface {
	Begin(models, runtimes []*objects.Object) error
	Model(model engine.Ref, results []engine.Result) error
	End(s MatchSummary) error
}

// MatchSummary is what a match run says after its results.
type MatchSummary struct {
	// OMEVersion is the OME release whose rules gave the results.
	OMEVersion string `json:"omeVersion" yaml:"omeVersion"`
	// LeftOut counts the pairs OME never considers (objects.InScope).
	LeftOut int `json:"leftOut" yaml:"leftOut"`
	// Problems are the inputs that could not be read; the machine-readable
	// formats carry them as entries.
	Problems []Problem `json:"errors" yaml:"errors"`
	// Clusters are a fleet's clusters (fleet.go); none for one run.
	Clusters []ClusterRead `json:"clusters,omitempty" yaml:"clusters,omitempty"`
}

// Problem is an input that could not be read, as the machine-readable
// formats give it.
type Problem struct {
	File    string `json:"file" yaml:"file"`
	Line    int    `json:"line" yaml:"line"`
	Field   string `json:"field" yaml:"field"`
	Message string `json:"message" yaml:"message"`
	// Cluster is the cluster of a fleet whose input it is (fleet.go).
	Cluster *Cluster `json:"cluster,omitempty" yaml:"cluster,omitempty"`
}

// Problems turns input errors into Problems ([] for none).
func Problems(errs []*objects.InputError) []Problem {
	out := make([]Problem, len(errs))
	for i, e := range errs {
		msg := e.Msg
		if e.Case != "" {
			msg = fmt.Sprintf("case %q: %s", e.Case, msg)
		}
		out[i] = Problem{File: e.File, Line: e.Line, Field: e.Field, Message: msg}
	}
	return out
}

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

// runs are the result's runs, one per engine.
func (res CaseResult) runs() []engine.EngineRun {
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
		for _, run := range res.runs() {
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

// TestWriter writes a whole test report.
type TestWriter interface {
	Write(r TestReport) error
}

// Formats lists the -o values of each command.
var (
	MatchFormats = []string{"text", "json", "yaml", "github", "summary"}
	TestFormats  = []string{"text", "json", "yaml", "sarif", "junit", "github"}
)

// NewMatchWriter returns the writer for format.
func NewMatchWriter(format string, w io.Writer) (MatchWriter, error) {
	switch format {
	case "text":
		return &matchText{w: w, lineWidth: terminalWidth(w)}, nil
	case "json":
		return &matchJSON{w: w}, nil
	case "yaml":
		return &matchYAML{w: w}, nil
	case "github":
		return &matchGitHub{w: w}, nil
	case "summary":
		return &matchSummary{w: w}, nil
	}
	return nil, UnknownFormat(format, MatchFormats)
}

// NewTestWriter returns the writer for format.
func NewTestWriter(format string, w io.Writer) (TestWriter, error) {
	switch format {
	case "text":
		return &testText{w: w}, nil
	case "json":
		return &testJSON{w: w}, nil
	case "yaml":
		return &testYAML{w: w}, nil
	case "sarif":
		return &testSARIF{w: w}, nil
	case "junit":
		return &testJUnit{w: w}, nil
	case "github":
		return &testGitHub{w: w}, nil
	}
	return nil, UnknownFormat(format, TestFormats)
}

// UnknownFormat is the error for an -o value that is not one of valid.
func UnknownFormat(format string, valid []string) error {
	v := append([]string(nil), valid...)
	sort.Strings(v)
	return fmt.Errorf("unknown output format %q (want one of: %s)", format, strings.Join(v, ", "))
}
