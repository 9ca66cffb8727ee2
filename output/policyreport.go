package output

import (
	"fmt"
	"io"
	"sort"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/results"
)

// PolicyReports (wgpolicyk8s.io/v1alpha2), as Kyverno and Policy Reporter
// show them: a PolicyReport per namespace for the namespaced objects
// (BaseModel, ServingRuntime, InferenceService) and a ClusterPolicyReport
// for the cluster-scoped ones (ClusterBaseModel, ClusterServingRuntime)
// and for the inputs that could not be read, all in one kind: List that
// `kubectl apply -f` takes (an empty list when there is no result). Each
// result names its policy (lint's rule id; select's
// ome-runtime-selection), the result (pass, warn, fail; error for an input
// that could not be read), OME's message, a severity and the object.

// What every report and result says of where it comes from.
const (
	policyReportAPIVersion = "wgpolicyk8s.io/v1alpha2"
	policyReportSource     = "evaluate"
	omeAPIVersion          = "ome.io/v1beta1"
)

type policyReportList struct {
	APIVersion string         `yaml:"apiVersion"`
	Kind       string         `yaml:"kind"`
	Items      []PolicyReport `yaml:"items"`
}

// PolicyReport is one PolicyReport (a namespace's) or ClusterPolicyReport,
// as -o policyreport writes it and evaluate audit applies it.
type PolicyReport struct {
	APIVersion string               `json:"apiVersion" yaml:"apiVersion"`
	Kind       string               `json:"kind" yaml:"kind"`
	Metadata   PolicyReportMetadata `json:"metadata" yaml:"metadata"`
	Summary    PolicyReportSummary  `json:"summary" yaml:"summary"`
	Results    []PolicyReportResult `json:"results" yaml:"results"`
}

// PolicyReportMetadata is a report's name, namespace ("" for a
// ClusterPolicyReport), labels and annotations.
type PolicyReportMetadata struct {
	Name        string            `json:"name" yaml:"name"`
	Namespace   string            `json:"namespace,omitempty" yaml:"namespace,omitempty"`
	Labels      map[string]string `json:"labels" yaml:"labels"`
	Annotations map[string]string `json:"annotations,omitempty" yaml:"annotations,omitempty"`
}

// PolicyReportSummary counts a report's results by result.
type PolicyReportSummary struct {
	Pass  int `json:"pass" yaml:"pass"`
	Fail  int `json:"fail" yaml:"fail"`
	Warn  int `json:"warn" yaml:"warn"`
	Error int `json:"error" yaml:"error"`
	Skip  int `json:"skip" yaml:"skip"`
}

// PolicyReportResult is one result of a report.
type PolicyReportResult struct {
	Source     string            `json:"source" yaml:"source"`
	Policy     string            `json:"policy" yaml:"policy"`
	Rule       string            `json:"rule,omitempty" yaml:"rule,omitempty"`
	Category   string            `json:"category,omitempty" yaml:"category,omitempty"`
	Result     string            `json:"result" yaml:"result"`
	Severity   string            `json:"severity" yaml:"severity"`
	Message    string            `json:"message" yaml:"message"`
	Resources  []policyReportRef `json:"resources,omitempty" yaml:"resources,omitempty"`
	Properties map[string]string `json:"properties,omitempty" yaml:"properties,omitempty"`
}

type policyReportRef struct {
	APIVersion string `json:"apiVersion" yaml:"apiVersion"`
	Kind       string `json:"kind" yaml:"kind"`
	Namespace  string `json:"namespace,omitempty" yaml:"namespace,omitempty"`
	Name       string `json:"name" yaml:"name"`
}

// policyReports gathers results into the report of their namespace ("" for
// the ClusterPolicyReport), each named name, so that applying a later run
// replaces the reports of the one before.
type policyReports struct {
	name    string
	reports map[string]*PolicyReport
}

func newPolicyReports(name string) *policyReports {
	return &policyReports{name: name, reports: map[string]*PolicyReport{}}
}

// add puts r in the report of namespace ns ("" for cluster scope).
func (p *policyReports) add(ns string, r PolicyReportResult) {
	rep := p.reports[ns]
	if rep == nil {
		rep = &PolicyReport{APIVersion: policyReportAPIVersion, Kind: "ClusterPolicyReport",
			Metadata: PolicyReportMetadata{Name: p.name, Namespace: ns,
				Labels: map[string]string{"app.kubernetes.io/managed-by": policyReportSource}}}
		if ns != "" {
			rep.Kind = "PolicyReport"
		}
		p.reports[ns] = rep
	}
	r.Source = policyReportSource
	rep.Summary.count(r.Result)
	rep.Results = append(rep.Results, r)
}

func (s *PolicyReportSummary) count(result string) {
	switch result {
	case "pass":
		s.Pass++
	case "fail":
		s.Fail++
	case "warn":
		s.Warn++
	case "error":
		s.Error++
	case "skip":
		s.Skip++
	}
}

// Summarise is the summary of results (a part of a split report).
func Summarise(results []PolicyReportResult) PolicyReportSummary {
	var s PolicyReportSummary
	for _, r := range results {
		s.count(r.Result)
	}
	return s
}

// list is the reports, the ClusterPolicyReport first, then the
// namespaces' in order.
func (p *policyReports) list() []PolicyReport {
	namespaces := make([]string, 0, len(p.reports))
	for ns := range p.reports {
		namespaces = append(namespaces, ns)
	}
	sort.Strings(namespaces)
	out := make([]PolicyReport, 0, len(namespaces))
	for _, ns := range namespaces {
		out = append(out, *p.reports[ns])
	}
	return out
}

// WritePolicyReports writes reports as a List that kubectl apply takes.
func WritePolicyReports(w io.Writer, reports []PolicyReport) error {
	return writePolicyReports(w, reports)
}

// writePolicyReports writes reports as a List that kubectl apply takes.
func writePolicyReports(w io.Writer, reports []PolicyReport) error {
	if reports == nil {
		reports = []PolicyReport{}
	}
	return encodeYAML(w, policyReportList{APIVersion: "v1", Kind: "List", Items: reports})
}

// reportNamespace is the report an object's results go to: its
// namespace's, or the cluster's ("") for a cluster-scoped kind.
func reportNamespace(r engine.Ref) string {
	switch r.Kind {
	case objects.KindClusterBaseModel, objects.KindClusterServingRuntime:
		return ""
	}
	return r.Namespace
}

func resourceOf(r engine.Ref) []policyReportRef {
	return []policyReportRef{{APIVersion: omeAPIVersion, Kind: r.Kind, Namespace: reportNamespace(r), Name: r.Name}}
}

// PolicyReport results and severities of lint's severities.
func lintResult(severity string) (result, reportSeverity string) {
	switch severity {
	case engine.SeverityError:
		return "fail", "high"
	case engine.SeverityWarning:
		return "warn", "medium"
	}
	return "pass", "info"
}

// lintPolicyReport writes a result per finding: an error fails, a warning
// warns (fails with --fail-on-warn), a note passes with its message; an
// input that could not be read is an error of the ClusterPolicyReport,
// with its file and line. An object without findings passes lint.
type lintPolicyReport struct{ w io.Writer }

func (l *lintPolicyReport) Write(r results.LintReport) error {
	return writePolicyReports(l.w, LintPolicyReports(r))
}

// LintPolicyReports are the reports of a lint run (lintPolicyReport), each
// named ome-lint.
func LintPolicyReports(r results.LintReport) []PolicyReport {
	p := newPolicyReports("ome-lint")
	for _, f := range r.Findings {
		result, severity := lintResult(f.Severity)
		if r.Fails(f) {
			result = "fail"
		}
		props := map[string]string{"file": f.File, "line": fmt.Sprint(f.Line)}
		if f.Field != "" {
			props["field"] = f.Field
		}
		res := PolicyReportResult{Policy: f.Rule, Rule: f.Rule, Result: result, Severity: severity, Message: f.Message, Properties: props}
		if f.Object.Kind == "" {
			res.Result = "error"
			p.add("", res)
			continue
		}
		res.Resources = resourceOf(f.Object)
		p.add(reportNamespace(f.Object), res)
	}
	for _, o := range r.Objects {
		if len(r.FindingsOf(o)) == 0 {
			p.add(reportNamespace(o.Ref), PolicyReportResult{Policy: "ome-lint", Result: "pass", Severity: "info",
				Message: "no finding", Resources: resourceOf(o.Ref)})
		}
	}
	return p.list()
}

// selectPolicyReport writes a result per InferenceService, under the
// policy ome-runtime-selection: pass when OME admits it (the message names
// the runtime it selects), fail with OME's message when OME refuses it
// (the rule is the check that refused it); and a warning for each warning
// about its named runtime. An input that could not be read is an error of
// the ClusterPolicyReport.
type selectPolicyReport struct{ w io.Writer }

const selectPolicy = "ome-runtime-selection"

func (s *selectPolicyReport) Write(results []results.SelectResult, problems []results.Problem) error {
	return writePolicyReports(s.w, SelectPolicyReports(results, problems))
}

// SelectPolicyReports are the reports of select's decisions
// (selectPolicyReport), each named ome-runtime-selection.
func SelectPolicyReports(results []results.SelectResult, problems []results.Problem) []PolicyReport {
	p := newPolicyReports("ome-runtime-selection")
	for _, r := range results {
		d := r.Decision
		res := PolicyReportResult{Policy: selectPolicy, Rule: d.Check, Result: "pass", Severity: "info", Resources: resourceOf(r.InferenceService)}
		switch {
		case !d.Admitted:
			res.Result, res.Severity, res.Message = "fail", "high", d.Message
		case d.Selected != nil:
			res.Message = "OME selects " + RefText(*d.Selected)
			res.Properties = map[string]string{"runtime": RefText(*d.Selected)}
		default:
			res.Message = "admitted without runtime selection (no engine, a named runtime, or a runner image of its own)"
		}
		p.add(r.InferenceService.Namespace, res)
		for _, w := range d.Warnings {
			p.add(r.InferenceService.Namespace, PolicyReportResult{Policy: selectPolicy, Rule: "named-runtime", Result: "warn", Severity: "medium",
				Message: w, Resources: resourceOf(r.InferenceService)})
		}
		// A team's rule is a policy of its own; an info is no failure.
		for _, f := range r.Rules {
			result, severity := "pass", "info"
			switch f.Severity {
			case engine.SeverityError:
				result, severity = "fail", "high"
			case engine.SeverityWarning:
				result, severity = "warn", "medium"
			}
			p.add(r.InferenceService.Namespace, PolicyReportResult{Policy: f.Rule, Rule: f.Rule, Result: result, Severity: severity,
				Message: f.Message, Resources: resourceOf(r.InferenceService)})
		}
	}
	for _, pr := range problems {
		props := map[string]string{"file": pr.File, "line": fmt.Sprint(pr.Line)}
		if pr.Field != "" {
			props["field"] = pr.Field
		}
		p.add("", PolicyReportResult{Policy: "input-error", Rule: "input-error", Result: "error", Severity: "high", Message: pr.Message, Properties: props})
	}
	return p.list()
}
