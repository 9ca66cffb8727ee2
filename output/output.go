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
	"sort"
	"strings"

	"github.com/ome-policy/evaluator/results"
)

// TestWriter writes a whole test report.
type TestWriter interface {
	Write(r results.TestReport) error
}

// Formats lists the -o values of each command.
var (
	MatchFormats = []string{"text", "json", "yaml", "github", "summary"}
	TestFormats  = []string{"text", "json", "yaml", "sarif", "junit", "github"}
)

// NewMatchWriter returns the writer for format.
func NewMatchWriter(format string, w io.Writer) (results.MatchWriter, error) {
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
