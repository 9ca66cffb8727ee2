package output

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/ome-policy/evaluator/results"
)

// JUnit XML, as CI systems read test reports: one testsuite, one testcase
// per object (lint) or per case (test); a testcase fails with a <failure>.

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	ClassName string        `xml:"classname,attr"`
	Name      string        `xml:"name,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

func writeJUnit(w io.Writer, name string, cases []junitCase) error {
	return writeJUnitSuites(w, name, []junitSuite{newJUnitSuite(name, cases)})
}

func newJUnitSuite(name string, cases []junitCase) junitSuite {
	failures := 0
	for _, c := range cases {
		if c.Failure != nil {
			failures++
		}
	}
	return junitSuite{Name: name, Tests: len(cases), Failures: failures, Cases: cases}
}

func writeJUnitSuites(w io.Writer, name string, suites []junitSuite) error {
	doc := junitSuites{Name: name, Suites: suites}
	for _, s := range suites {
		doc.Tests += s.Tests
		doc.Failures += s.Failures
	}
	b, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, xml.Header+string(b)+"\n")
	return err
}

// lintJUnit writes a testcase per model or runtime; it fails when one of
// its findings fails the run (an error, or a warning with --fail-on-warn),
// and its other findings go to system-out. An input that could not be read
// is a failed testcase of its own.
type lintJUnit struct{ w io.Writer }

func (l *lintJUnit) Write(r results.LintReport) error {
	return writeJUnit(l.w, "evaluate lint", lintJUnitCases(r, ""))
}

// writeFleetJUnit writes a testsuite a cluster, each testcase's name
// naming its cluster; a cluster that could not be read is a suite of one
// failed testcase.
func writeFleetJUnit(w io.Writer, reports []results.LintReport, clusters []results.Cluster, read []results.ClusterRead) error {
	var suites []junitSuite
	for i, r := range reports {
		suites = append(suites, newJUnitSuite("evaluate lint: cluster "+clusters[i].Name, lintJUnitCases(r, " in cluster "+clusters[i].Name)))
	}
	for _, c := range read {
		if c.Error != "" {
			suites = append(suites, newJUnitSuite("evaluate lint: cluster "+c.Name, []junitCase{{ClassName: "cluster " + c.Name, Name: "read cluster " + c.Name,
				Failure: &junitFailure{Message: "the cluster cannot be read", Type: "lint", Text: c.Error}}}))
		}
	}
	return writeJUnitSuites(w, "evaluate lint", suites)
}

// lintJUnitCases are the testcases of a lint report, each name followed
// by suffix.
func lintJUnitCases(r results.LintReport, suffix string) []junitCase {
	cases := make([]junitCase, 0, len(r.Objects))
	for _, f := range r.Findings {
		if f.Object.Kind == "" {
			cases = append(cases, junitCase{ClassName: f.File, Name: f.Rule + suffix, Failure: &junitFailure{
				Message: "the input cannot be read", Type: "lint", Text: findingLine(f, Style{}),
			}})
		}
	}
	for _, o := range r.Objects {
		c := junitCase{ClassName: o.File, Name: RefText(o.Ref) + suffix}
		var failing, other []string
		for _, f := range r.FindingsOf(o) {
			if r.Fails(f) {
				failing = append(failing, findingLine(f, Style{}))
			} else {
				other = append(other, findingLine(f, Style{}))
			}
		}
		if len(failing) > 0 {
			c.Failure = &junitFailure{
				Message: fmt.Sprintf("%d finding(s) fail the run", len(failing)),
				Type:    "lint",
				Text:    strings.Join(failing, "\n"),
			}
		}
		if len(other) > 0 {
			c.SystemOut = strings.Join(other, "\n")
		}
		cases = append(cases, c)
	}
	return cases
}

// testJUnit writes a testcase per case or Rego unit test; one that fails
// has a <failure> with each of its failures (as the text says them).
type testJUnit struct{ w io.Writer }

func (t *testJUnit) Write(r results.TestReport) error {
	cases := make([]junitCase, 0, len(r.Cases))
	for _, c := range r.Cases {
		jc := junitCase{ClassName: c.File, Name: c.Name}
		fs, err := caseFailures(c)
		if err != nil {
			return err
		}
		var text strings.Builder
		for _, f := range fs {
			text.WriteString(f.Label + "\n" + f.Text)
		}
		if len(fs) > 0 {
			jc.Failure = &junitFailure{Message: "expected and got differ", Type: "case", Text: text.String()}
		}
		cases = append(cases, jc)
	}
	return writeJUnit(t.w, "evaluate test", cases)
}
