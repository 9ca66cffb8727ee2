package output

import (
	"fmt"
	"io"
	"sort"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/objects"
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
	Items      []policyReport `yaml:"items"`
}

type policyReport struct {
	APIVersion string               `yaml:"apiVersion"`
	Kind       string               `yaml:"kind"`
	Metadata   policyReportMetadata `yaml:"metadata"`
	Summary    policyReportSummary  `yaml:"summary"`
	Results    []policyReportResult `yaml:"results"`
}

type policyReportMetadata struct {
	Name      string            `yaml:"name"`
	Namespace string            `yaml:"namespace,omitempty"`
	Labels    map[string]string `yaml:"labels"`
}

type policyReportSummary struct {
	Pass  int `yaml:"pass"`
	Fail  int `yaml:"fail"`
	Warn  int `yaml:"warn"`
	Error int `yaml:"error"`
	Skip  int `yaml:"skip"`
}

type policyReportResult struct {
	Source     string            `yaml:"source"`
	Policy     string            `yaml:"policy"`
	Rule       string            `yaml:"rule,omitempty"`
	Result     string            `yaml:"result"`
	Severity   string            `yaml:"severity"`
	Message    string            `yaml:"message"`
	Resources  []policyReportRef `yaml:"resources,omitempty"`
	Properties map[string]string `yaml:"properties,omitempty"`
}

type policyReportRef struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Namespace  string `yaml:"namespace,omitempty"`
	Name       string `yaml:"name"`
}

// policyReports gathers results into the report of their namespace ("" for
// the ClusterPolicyReport), each named name, so that applying a later run
// replaces the reports of the one before.
type policyReports struct {
	name    string
	reports map[string]*policyReport
}

func newPolicyReports(name string) *policyReports {
	return &policyReports{name: name, reports: map[string]*policyReport{}}
}

// add puts r in the report of namespace ns ("" for cluster scope).
func (p *policyReports) add(ns string, r policyReportResult) {
	rep := p.reports[ns]
	if rep == nil {
		rep = &policyReport{APIVersion: policyReportAPIVersion, Kind: "ClusterPolicyReport",
			Metadata: policyReportMetadata{Name: p.name, Namespace: ns,
				Labels: map[string]string{"app.kubernetes.io/managed-by": policyReportSource}}}
		if ns != "" {
			rep.Kind = "PolicyReport"
		}
		p.reports[ns] = rep
	}
	r.Source = policyReportSource
	switch r.Result {
	case "pass":
		rep.Summary.Pass++
	case "fail":
		rep.Summary.Fail++
	case "warn":
		rep.Summary.Warn++
	case "error":
		rep.Summary.Error++
	}
	rep.Results = append(rep.Results, r)
}

// write writes the reports as a List, the ClusterPolicyReport first, then
// the namespaces' in order.
func (p *policyReports) write(w io.Writer) error {
	list := policyReportList{APIVersion: "v1", Kind: "List", Items: []policyReport{}}
	namespaces := make([]string, 0, len(p.reports))
	for ns := range p.reports {
		namespaces = append(namespaces, ns)
	}
	sort.Strings(namespaces)
	for _, ns := range namespaces {
		list.Items = append(list.Items, *p.reports[ns])
	}
	return encodeYAML(w, list)
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

func (l *lintPolicyReport) Write(r LintReport) error {
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
		res := policyReportResult{Policy: f.Rule, Rule: f.Rule, Result: result, Severity: severity, Message: f.Message, Properties: props}
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
			p.add(reportNamespace(o.Ref), policyReportResult{Policy: "ome-lint", Result: "pass", Severity: "info",
				Message: "no finding", Resources: resourceOf(o.Ref)})
		}
	}
	return p.write(l.w)
}

// selectPolicyReport writes a result per InferenceService, under the
// policy ome-runtime-selection: pass when OME admits it (the message names
// the runtime it selects), fail with OME's message when OME refuses it
// (the rule is the check that refused it); and a warning for each warning
// about its named runtime. An input that could not be read is an error of
// the ClusterPolicyReport.
type selectPolicyReport struct{ w io.Writer }

const selectPolicy = "ome-runtime-selection"

func (s *selectPolicyReport) Write(results []SelectResult, problems []Problem) error {
	p := newPolicyReports("ome-runtime-selection")
	for _, r := range results {
		d := r.Decision
		res := policyReportResult{Policy: selectPolicy, Rule: d.Check, Result: "pass", Severity: "info", Resources: resourceOf(r.InferenceService)}
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
			p.add(r.InferenceService.Namespace, policyReportResult{Policy: selectPolicy, Rule: "named-runtime", Result: "warn", Severity: "medium",
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
			p.add(r.InferenceService.Namespace, policyReportResult{Policy: f.Rule, Rule: f.Rule, Result: result, Severity: severity,
				Message: f.Message, Resources: resourceOf(r.InferenceService)})
		}
	}
	for _, pr := range problems {
		props := map[string]string{"file": pr.File, "line": fmt.Sprint(pr.Line)}
		if pr.Field != "" {
			props["field"] = pr.Field
		}
		p.add("", policyReportResult{Policy: "input-error", Rule: "input-error", Result: "error", Severity: "high", Message: pr.Message, Properties: props})
	}
	return p.write(s.w)
}
