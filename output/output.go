// Package output writes the results of evaluate's commands in each format
// the user can ask for with -o. Each format lives in its own file behind the
// same small interfaces, so adding one touches nothing else.
package output

import (
	"fmt"
	"io"
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
}

// Problem is an input that could not be read, as the machine-readable
// formats give it.
type Problem struct {
	File    string `json:"file" yaml:"file"`
	Line    int    `json:"line" yaml:"line"`
	Field   string `json:"field" yaml:"field"`
	Message string `json:"message" yaml:"message"`
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

// TestReport is the outcome of `evaluate test`.
type TestReport struct {
	Passed int          `json:"passed" yaml:"passed"`
	Failed int          `json:"failed" yaml:"failed"`
	Cases  []CaseReport `json:"cases" yaml:"cases"`
}

// CaseReport is one case (or one Rego unit test) of `evaluate test`.
type CaseReport struct {
	File   string `json:"file" yaml:"file"`
	Name   string `json:"name" yaml:"name"`
	Engine string `json:"engine" yaml:"engine"`
	// OMEVersion is the OME release whose rules the case ran on.
	OMEVersion string `json:"omeVersion" yaml:"omeVersion"`
	Passed     bool   `json:"passed" yaml:"passed"`
	Expected   any    `json:"expected" yaml:"expected"`
	Got        any    `json:"got" yaml:"got"`
	// Detail says more about a failure (an error, or how the engines
	// disagreed); empty when it passed.
	Detail string `json:"detail,omitempty" yaml:"detail,omitempty"`
	// Line is where the case (or the Rego test rule) starts, for the
	// formats that point at it (sarif, junit, github); 0 when unknown.
	Line int `json:"-" yaml:"-"`
}

// TestWriter writes a whole test report.
type TestWriter interface {
	Write(r TestReport) error
}

// Formats lists the -o values of each command.
var (
	MatchFormats = []string{"text", "json", "yaml", "github"}
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
	}
	return nil, unknownFormat(format, MatchFormats)
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
	return nil, unknownFormat(format, TestFormats)
}

func unknownFormat(format string, valid []string) error {
	v := append([]string(nil), valid...)
	sort.Strings(v)
	return fmt.Errorf("unknown output format %q (want one of: %s)", format, strings.Join(v, ", "))
}
