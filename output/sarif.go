package output

import (
	"encoding/json"
	"io"
	"net/url"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/results"
)

// SARIF 2.1.0 (https://docs.oasis-open.org/sarif/sarif/v2.1.0/), the format
// code-scanning tools read: one run, the rules that occur, one result per
// finding (lint) or per failing case (test).

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool    sarifTool     `json:"tool"`
	Results []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string       `json:"id"`
	ShortDescription     sarifMessage `json:"shortDescription"`
	DefaultConfiguration struct {
		Level string `json:"level"`
	} `json:"defaultConfiguration"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID    string          `json:"ruleId"`
	RuleIndex int             `json:"ruleIndex"`
	Level     string          `json:"level"`
	Message   sarifMessage    `json:"message"`
	Locations []sarifLocation `json:"locations"`
	// Properties name a fleet's cluster (fleet.go).
	Properties map[string]any `json:"properties,omitempty"`
	// Suppressions say that the result is turned off, and why.
	Suppressions []sarifSuppression `json:"suppressions,omitempty"`
}

type sarifSuppression struct {
	Kind          string `json:"kind"`
	Justification string `json:"justification"`
}

type sarifLocation struct {
	PhysicalLocation struct {
		ArtifactLocation struct {
			URI string `json:"uri"`
		} `json:"artifactLocation"`
		Region *sarifRegion `json:"region,omitempty"`
	} `json:"physicalLocation"`
	LogicalLocations []sarifLogical `json:"logicalLocations,omitempty"`
	// Message says where a document of standard input is, when a
	// "# Source:" comment names its file.
	Message *sarifMessage `json:"message,omitempty"`
}

type sarifRegion struct {
	StartLine int `json:"startLine"`
}

type sarifLogical struct {
	Name               string `json:"name"`
	FullyQualifiedName string `json:"fullyQualifiedName"`
	Kind               string `json:"kind"`
}

const (
	sarifSchema = "https://json.schemastore.org/sarif-2.1.0.json"
	toolURI     = "https://github.com/ome-policy/evaluator"
)

// sarifLevel maps a severity to a SARIF level.
func sarifLevel(severity string) string {
	switch severity {
	case engine.SeverityError:
		return "error"
	case engine.SeverityWarning:
		return "warning"
	}
	return "note"
}

// fileURI turns a path as given into a SARIF artifact URI: relative paths
// stay relative (to the folder the tool ran in), absolute ones get file://.
func fileURI(path string) string {
	if path == "<stdin>" {
		return "stdin"
	}
	p := filepath.ToSlash(path)
	if strings.HasPrefix(p, "/") {
		return (&url.URL{Scheme: "file", Path: p}).String()
	}
	return (&url.URL{Path: p}).String()
}

func sarifLocationAt(file string, line int) sarifLocation {
	var l sarifLocation
	if path, ok := objects.SourcePath(file); ok {
		// The file that a "# Source:" comment names, whose lines are not
		// standard input's: the place on standard input is said instead.
		l.PhysicalLocation.ArtifactLocation.URI = fileURI(path)
		l.Message = &sarifMessage{Text: FileLine(file, line)}
		return l
	}
	l.PhysicalLocation.ArtifactLocation.URI = fileURI(file)
	if line > 0 {
		l.PhysicalLocation.Region = &sarifRegion{StartLine: line}
	}
	return l
}

func writeSARIF(w io.Writer, rules []sarifRule, results []sarifResult) error {
	if rules == nil {
		rules = []sarifRule{}
	}
	if results == nil {
		results = []sarifResult{}
	}
	log := sarifLog{Schema: sarifSchema, Version: "2.1.0", Runs: []sarifRun{{
		Tool:    sarifTool{Driver: sarifDriver{Name: "evaluate", InformationURI: toolURI, Rules: rules}},
		Results: results,
	}}}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(log)
}

// lintSARIF writes one result per finding; the rules are those that occur,
// sorted by id.
type lintSARIF struct{ w io.Writer }

func (l *lintSARIF) Write(r results.LintReport) error {
	rules, results := lintSARIFResults(r.Rules, r.Findings, r.Ignored, nil)
	return writeSARIF(l.w, rules, results)
}

// writeFleetSARIF writes a fleet's findings in one run, each result's
// message and properties naming its cluster.
func writeFleetSARIF(w io.Writer, reports []results.LintReport, findings []ClusterFinding) error {
	var described []engine.Rule
	if len(reports) > 0 {
		described = reports[0].Rules
	}
	fs := make([]engine.Finding, len(findings))
	clusters := make([]*results.Cluster, len(findings))
	for i := range findings {
		fs[i], clusters[i] = findings[i].Finding, &findings[i].Cluster
	}
	rules, results := lintSARIFResults(described, fs, nil, clusters)
	return writeSARIF(w, rules, results)
}

// lintSARIFResults are the rules that occur in findings and ignored,
// sorted by id (described by described), and a result per finding, then
// per ignored finding, suppressed (an object's annotation turned it off);
// clusters, when not nil, are each finding's cluster of a fleet.
func lintSARIFResults(described []engine.Rule, findings, ignored []engine.Finding, clusters []*results.Cluster) ([]sarifRule, []sarifResult) {
	levels := map[string]string{}
	all := append(slices.Clone(findings), ignored...)
	for _, f := range all {
		levels[f.Rule] = sarifLevel(f.Severity)
	}
	ids := make([]string, 0, len(levels))
	for id := range levels {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	index := map[string]int{}
	rules := make([]sarifRule, len(ids))
	for i, id := range ids {
		index[id] = i
		rules[i].ID = id
		rules[i].ShortDescription.Text = "evaluate lint rule " + id
		for _, r := range described {
			if r.ID == id {
				rules[i].ShortDescription.Text = r.Description
			}
		}
		rules[i].DefaultConfiguration.Level = levels[id]
	}
	results := make([]sarifResult, 0, len(all))
	for i, f := range all {
		loc := sarifLocationAt(f.File, f.Line)
		if f.Object.Kind != "" {
			loc.LogicalLocations = []sarifLogical{{
				Name:               f.Field,
				FullyQualifiedName: refPath(f.Object) + "." + f.Field,
				Kind:               "member",
			}}
		}
		res := sarifResult{
			RuleID: f.Rule, RuleIndex: index[f.Rule], Level: sarifLevel(f.Severity),
			Message: sarifMessage{Text: f.Message}, Locations: []sarifLocation{loc},
		}
		if clusters != nil && i < len(clusters) {
			c := clusters[i]
			res.Message.Text = "cluster " + c.Name + ": " + f.Message
			res.Properties = map[string]any{"cluster": c}
		}
		if i >= len(findings) {
			// The object's own annotation turns it off, in the source.
			res.Suppressions = []sarifSuppression{{Kind: "inSource", Justification: IgnoredNote(f)}}
		}
		results = append(results, res)
	}
	return rules, results
}

// refPath names an object as Kind/name or Kind/namespace/name.
func refPath(r engine.Ref) string {
	if r.Namespace != "" {
		return r.Kind + "/" + r.Namespace + "/" + r.Name
	}
	return r.Kind + "/" + r.Name
}

// testSARIF writes one result per failure (a case's failing results,
// those alike said once, as the text says them), under the rule
// "failing-case".
type testSARIF struct{ w io.Writer }

func (t *testSARIF) Write(r results.TestReport) error {
	rule := sarifRule{ID: "failing-case", ShortDescription: sarifMessage{Text: "a case or policy unit test does not give what it expects"}}
	rule.DefaultConfiguration.Level = "error"
	fs, err := failures(r)
	if err != nil {
		return err
	}
	var results []sarifResult
	for _, f := range fs {
		results = append(results, sarifResult{
			RuleID: rule.ID, Level: "error",
			Message:   sarifMessage{Text: f.Case.Name + " " + f.Label + "\n" + f.Text},
			Locations: []sarifLocation{sarifLocationAt(f.Case.File, f.Case.Line)},
		})
	}
	return writeSARIF(t.w, []sarifRule{rule}, results)
}
