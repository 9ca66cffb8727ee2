package output

import (
	"encoding/json"
	"io"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/results"
)

// A fleet's results: a run of several clusters (--context a,b,
// --all-contexts) writes each cluster's results as one run of it would,
// each result carrying its cluster. The formats for people (text, summary,
// github) group the results by cluster, each group headed by its cluster;
// the documents (json, yaml, sarif, junit) are one document, a cluster on
// each result and the clusters listed with why one could not be read;
// -o policyreport writes one List of reports a cluster. A run of one
// cluster writes none of this: its output is a single run's.

// grouped writes a cluster's header before its group, a blank line
// between groups.
type grouped struct {
	w      io.Writer
	groups int
}

func (g *grouped) head(c results.Cluster) error {
	sep := ""
	if g.groups > 0 {
		sep = "\n"
	}
	g.groups++
	_, err := io.WriteString(g.w, sep+"=== "+c.Header()+"\n")
	return err
}

// inCluster is a Problem of c.
func inCluster(ps []results.Problem, c results.Cluster) []results.Problem {
	out := make([]results.Problem, len(ps))
	for i, p := range ps {
		p.Cluster = &c
		out[i] = p
	}
	return out
}

// unread are the problems of the clusters that could not be read.
func unread(clusters []results.ClusterRead) []results.Problem {
	var out []results.Problem
	for _, c := range clusters {
		if c.Error != "" {
			cl := c.Cluster
			out = append(out, results.Problem{File: "cluster " + c.Name, Message: c.Error, Cluster: &cl})
		}
	}
	return out
}

// --- match ---

// FleetMatchWriter writes match's results of a fleet: Cluster gives the
// writer of one cluster's run (Begin, Model, End), Close ends the output
// and names every cluster.
type FleetMatchWriter interface {
	Cluster(c results.Cluster) (results.MatchWriter, error)
	Close(clusters []results.ClusterRead) error
}

// NewFleetMatchWriter returns the fleet writer of format; release is the
// OME release whose rules give the results.
func NewFleetMatchWriter(format string, w io.Writer, release string) (FleetMatchWriter, error) {
	switch format {
	case "json", "yaml":
		inner, _ := NewMatchWriter(format, w)
		return &matchDocument{inner: inner, sum: results.MatchSummary{OMEVersion: release}}, nil
	}
	if _, err := NewMatchWriter(format, w); err != nil {
		return nil, err
	}
	return &matchGroups{grouped: grouped{w: w}, format: format}, nil
}

type matchGroups struct {
	grouped
	format string
}

func (g *matchGroups) Cluster(c results.Cluster) (results.MatchWriter, error) {
	if err := g.head(c); err != nil {
		return nil, err
	}
	mw, err := NewMatchWriter(g.format, g.w)
	if gh, ok := mw.(*matchGitHub); ok {
		gh.cluster = &c
	}
	return mw, err
}

func (g *matchGroups) Close([]results.ClusterRead) error { return nil }

// matchDocument is one document of every cluster's results.
type matchDocument struct {
	inner results.MatchWriter
	begun bool
	sum   results.MatchSummary
}

// clusterSetter is a writer that puts a cluster on each result.
type clusterSetter interface{ setCluster(c *results.Cluster) }

func (d *matchDocument) Cluster(c results.Cluster) (results.MatchWriter, error) {
	return &matchOfCluster{d: d, c: c}, nil
}

func (d *matchDocument) begin() error {
	if d.begun {
		return nil
	}
	d.begun = true
	return d.inner.Begin(nil, nil)
}

func (d *matchDocument) Close(clusters []results.ClusterRead) error {
	if err := d.begin(); err != nil {
		return err
	}
	d.sum.Problems = append(d.sum.Problems, unread(clusters)...)
	d.sum.Clusters = clusters
	return d.inner.End(d.sum)
}

type matchOfCluster struct {
	d *matchDocument
	c results.Cluster
}

func (m *matchOfCluster) Begin(_, _ []*objects.Object) error { return m.d.begin() }

func (m *matchOfCluster) Model(model engine.Ref, results []engine.Result) error {
	m.d.inner.(clusterSetter).setCluster(&m.c)
	return m.d.inner.Model(model, results)
}

func (m *matchOfCluster) End(s results.MatchSummary) error {
	m.d.sum.LeftOut += s.LeftOut
	m.d.sum.Problems = append(m.d.sum.Problems, inCluster(s.Problems, m.c)...)
	return nil
}

func (m *matchJSON) setCluster(c *results.Cluster) {
	b, _ := json.MarshalIndent(c, "    ", "  ")
	m.cluster = b
}

func (m *matchYAML) setCluster(c *results.Cluster) { m.cluster = c }

// --- select ---

// FleetSelectWriter writes select's decisions of a fleet, a cluster at a
// time; Close ends the output and names every cluster.
type FleetSelectWriter interface {
	Cluster(c results.Cluster, results []results.SelectResult, problems []results.Problem) error
	Close(clusters []results.ClusterRead) error
}

// NewFleetSelectWriter returns the fleet writer of format.
func NewFleetSelectWriter(format string, w io.Writer, release string) (FleetSelectWriter, error) {
	if _, err := NewSelectWriter(format, w, release); err != nil {
		return nil, err
	}
	switch format {
	case "json", "yaml":
		return &selectDocumentWriter{format: format, w: w, release: release}, nil
	}
	return &selectGroups{grouped: grouped{w: w}, format: format, release: release}, nil
}

type selectGroups struct {
	grouped
	format, release string
}

func (g *selectGroups) Cluster(c results.Cluster, results []results.SelectResult, problems []results.Problem) error {
	if g.format == "policyreport" {
		return writeClusterReports(g.w, &g.grouped, c, SelectPolicyReports(results, problems))
	}
	if err := g.head(c); err != nil {
		return err
	}
	sw, _ := NewSelectWriter(g.format, g.w, g.release)
	return sw.Write(results, problems)
}

func (g *selectGroups) Close([]results.ClusterRead) error { return nil }

type selectDocumentWriter struct {
	format   string
	w        io.Writer
	release  string
	results  []results.SelectResult
	problems []results.Problem
}

func (s *selectDocumentWriter) Cluster(c results.Cluster, results []results.SelectResult, problems []results.Problem) error {
	for _, r := range results {
		cl := c
		r.Cluster = &cl
		s.results = append(s.results, r)
	}
	s.problems = append(s.problems, inCluster(problems, c)...)
	return nil
}

func (s *selectDocumentWriter) Close(clusters []results.ClusterRead) error {
	doc := newSelectDocument(s.release, s.results, append(s.problems, unread(clusters)...))
	doc.Clusters = clusters
	if s.format == "yaml" {
		return encodeYAML(s.w, doc)
	}
	enc := json.NewEncoder(s.w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// --- lint ---

// FleetLintWriter writes lint's reports of a fleet, a cluster at a time;
// Close ends the output and names every cluster.
type FleetLintWriter interface {
	Cluster(c results.Cluster, r results.LintReport) error
	Close(clusters []results.ClusterRead) error
}

// NewFleetLintWriter returns the fleet writer of format (style: text's).
func NewFleetLintWriter(format string, w io.Writer, style Style, release string) (FleetLintWriter, error) {
	if _, err := NewLintWriter(format, w, style); err != nil {
		return nil, err
	}
	switch format {
	case "json", "yaml", "sarif", "junit":
		return &lintDocument{format: format, w: w, release: release}, nil
	}
	return &lintGroups{grouped: grouped{w: w}, format: format, style: style}, nil
}

type lintGroups struct {
	grouped
	format string
	style  Style
}

func (g *lintGroups) Cluster(c results.Cluster, r results.LintReport) error {
	if g.format == "policyreport" {
		return writeClusterReports(g.w, &g.grouped, c, LintPolicyReports(r))
	}
	if err := g.head(c); err != nil {
		return err
	}
	lw, _ := NewLintWriter(g.format, g.w, g.style)
	if gh, ok := lw.(*lintGitHub); ok {
		gh.cluster = &c
	}
	return lw.Write(r)
}

func (g *lintGroups) Close([]results.ClusterRead) error { return nil }

// ClusterFinding is a finding of a fleet's lint, with its cluster.
type ClusterFinding struct {
	engine.Finding `yaml:",inline"`
	Cluster        results.Cluster `json:"cluster" yaml:"cluster"`
}

type lintDocument struct {
	format, release string
	w               io.Writer
	reports         []results.LintReport
	clusters        []results.Cluster
}

func (l *lintDocument) Cluster(c results.Cluster, r results.LintReport) error {
	l.reports = append(l.reports, r)
	l.clusters = append(l.clusters, c)
	return nil
}

func (l *lintDocument) Close(clusters []results.ClusterRead) error {
	var findings []ClusterFinding
	for i, r := range l.reports {
		for _, f := range r.Findings {
			findings = append(findings, ClusterFinding{Finding: f, Cluster: l.clusters[i]})
		}
	}
	for _, p := range unread(clusters) {
		findings = append(findings, ClusterFinding{Finding: engine.Finding{Rule: "input-error", Severity: engine.SeverityError, File: p.File, Message: p.Message}, Cluster: *p.Cluster})
	}
	if findings == nil {
		findings = []ClusterFinding{}
	}
	switch l.format {
	case "sarif":
		return writeFleetSARIF(l.w, l.reports, findings)
	case "junit":
		return writeFleetJUnit(l.w, l.reports, l.clusters, clusters)
	}
	doc := struct {
		OMEVersion string                `json:"omeVersion" yaml:"omeVersion"`
		Findings   []ClusterFinding      `json:"findings" yaml:"findings"`
		Clusters   []results.ClusterRead `json:"clusters" yaml:"clusters"`
	}{l.release, findings, clusters}
	if l.format == "yaml" {
		return encodeYAML(l.w, doc)
	}
	enc := json.NewEncoder(l.w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// writeClusterReports writes a cluster's reports as a List of its own,
// after a comment that names the cluster, each report annotated with it.
func writeClusterReports(w io.Writer, g *grouped, c results.Cluster, reports []PolicyReport) error {
	sep := ""
	if g.groups > 0 {
		sep = "---\n"
	}
	g.groups++
	if _, err := io.WriteString(w, sep+"# "+c.Header()+"\n"); err != nil {
		return err
	}
	for i := range reports {
		reports[i].Metadata.Annotations = ClusterAnnotations(c)
	}
	return writePolicyReports(w, reports)
}

// ClusterAnnotations say on a report which cluster its results are of.
func ClusterAnnotations(c results.Cluster) map[string]string {
	a := map[string]string{"evaluate.ome.io/cluster": c.Name, "evaluate.ome.io/server": c.Server}
	if c.UID != "" {
		a["evaluate.ome.io/cluster-uid"] = c.UID
	}
	return a
}
