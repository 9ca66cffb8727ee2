// Package audit writes the reports of evaluate audit into a cluster: the
// PolicyReports (wgpolicyk8s.io/v1alpha2) that -o policyreport writes, or
// the same results as OpenReports (openreports.io/v1alpha1), each applied
// server-side under the field manager "evaluate" and labelled
// app.kubernetes.io/managed-by: evaluate; the reports of that label that
// an earlier run wrote and this one does not are deleted, and no other
// report is touched. A report too large for the API server is split in
// parts (NAME, NAME-2, ...). It reads nothing of OME's: the reports come
// from output (LintPolicyReports, SelectPolicyReports).
package audit

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"

	"github.com/ome-policy/evaluator/live"
	"github.com/ome-policy/evaluator/output"
	"github.com/ome-policy/evaluator/results"
)

// The formats of --format: the PolicyReports that Kyverno and Policy
// Reporter read, or OpenReports, which Kyverno is moving to.
const (
	FormatPolicyReport = "wgpolicyk8s"
	FormatOpenReports  = "openreports"
)

// Formats are --format's values.
var Formats = []string{FormatPolicyReport, FormatOpenReports}

// The values of --dry-run.
const (
	DryRunNone   = "none"
	DryRunClient = "client"
	DryRunServer = "server"
)

// DryRuns are --dry-run's values.
var DryRuns = []string{DryRunNone, DryRunClient, DryRunServer}

// FieldManager is the manager of the fields audit applies, and
// ManagedBy's label value says which reports are audit's own.
const (
	FieldManager = "evaluate"
	managedBy    = "app.kubernetes.io/managed-by=evaluate"
)

// MaxReportBytes is how large a report's JSON may be before it is split:
// well under the API server's limit of a request (3 MiB) and etcd's of a
// value (1.5 MiB by default).
const MaxReportBytes = 1 << 20

// categories are the category of each report's results, by the report's
// name, as Policy Reporter shows them.
var categories = map[string]string{"ome-lint": "OME lint", "ome-runtime-selection": "OME runtime selection"}

// kinds are the namespaced and cluster-scoped report kinds of a format.
func kinds(format string) (namespaced, cluster live.Kind) {
	if format == FormatOpenReports {
		return live.Kind{Group: "openreports.io", Version: "v1alpha1", Plural: "reports", Kind: "Report", Namespaced: true},
			live.Kind{Group: "openreports.io", Version: "v1alpha1", Plural: "clusterreports", Kind: "ClusterReport"}
	}
	return live.Kind{Group: "wgpolicyk8s.io", Version: "v1alpha2", Plural: "policyreports", Kind: "PolicyReport", Namespaced: true},
		live.Kind{Group: "wgpolicyk8s.io", Version: "v1alpha2", Plural: "clusterpolicyreports", Kind: "ClusterPolicyReport"}
}

// installHint says how to install a format's CRDs.
func installHint(format string) string {
	if format == FormatOpenReports {
		return "the CRDs reports.openreports.io and clusterreports.openreports.io are not installed: install OpenReports (kubectl apply -f the install.yaml of an openreports/reports-api release), or Kyverno from a release that writes OpenReports; evaluate does not install them"
	}
	return "the CRDs policyreports.wgpolicyk8s.io and clusterpolicyreports.wgpolicyk8s.io are not installed: install Kyverno or Policy Reporter, which ship them, or the CRDs of kubernetes-sigs/wg-policy-prototypes (policy-report/crd/v1alpha2); evaluate does not install them"
}

// Writer writes a cluster's reports.
type Writer struct {
	Client *live.Client
	Format string // FormatPolicyReport or FormatOpenReports
	DryRun string // DryRunNone, DryRunClient or DryRunServer
	// Namespace is where the namespaced reports are pruned: "" for every
	// namespace (the cluster was read in every namespace).
	Namespace string
	// Out gets a line for each report applied or deleted, as kubectl
	// apply says them; with DryRunClient, the reports as a List.
	Out io.Writer
	// Prefix starts each line of Out ("cluster prod: " in a fleet).
	Prefix string
	// Cluster, when set, is annotated on each report (a fleet's).
	Cluster *results.Cluster
	// MaxBytes is MaxReportBytes unless set.
	MaxBytes int
}

// Write applies reports (as output's writers make them, PolicyReports and
// ClusterPolicyReports) and deletes the stale ones. The CRDs of the format
// must be installed: when they are not, the error names them and says how
// to install them.
func (w *Writer) Write(ctx context.Context, reports []output.PolicyReport) error {
	nk, ck := kinds(w.Format)
	served, err := w.Client.Served(ctx, nk)
	if err != nil {
		return err
	}
	if !served {
		return fmt.Errorf("%s: %s", w.Client.Describe(), installHint(w.Format))
	}
	objs, err := w.objects(reports, nk, ck)
	if err != nil {
		return err
	}
	if w.DryRun == DryRunClient {
		if err := w.printList(objs); err != nil {
			return err
		}
	}
	kept := map[string]bool{}
	for _, o := range objs {
		kept[o.kind.Kind+"/"+o.namespace+"/"+o.name] = true
		if w.DryRun == DryRunClient {
			continue
		}
		if err := w.Client.Apply(ctx, o.kind, o.namespace, o.name, o.data, FieldManager, w.DryRun == DryRunServer); err != nil {
			return err
		}
		w.say(o.kind, o.namespace, o.name, "serverside-applied")
	}
	// The stale reports: audit's own, of the namespaces read, that this
	// run did not write.
	for _, k := range []live.Kind{nk, ck} {
		ns := ""
		if k.Namespaced {
			ns = w.Namespace
		}
		names, err := w.Client.Names(ctx, k, ns, managedBy)
		if err != nil {
			return err
		}
		for _, n := range names {
			if kept[k.Kind+"/"+n.Namespace+"/"+n.Name] {
				continue
			}
			if w.DryRun != DryRunClient {
				if err := w.Client.Delete(ctx, k, n.Namespace, n.Name, w.DryRun == DryRunServer); err != nil {
					return err
				}
			}
			w.say(k, n.Namespace, n.Name, "deleted")
		}
	}
	return nil
}

// object is one report to apply, as JSON.
type object struct {
	kind            live.Kind
	namespace, name string
	report          output.PolicyReport
	data            []byte
}

// objects are the reports in the format, each part of a split report an
// object of its own, sorted by kind, namespace and name.
func (w *Writer) objects(reports []output.PolicyReport, nk, ck live.Kind) ([]object, error) {
	max := w.MaxBytes
	if max <= 0 {
		max = MaxReportBytes
	}
	var out []object
	for _, r := range reports {
		k := ck
		if r.Metadata.Namespace != "" {
			k = nk
		}
		r.APIVersion, r.Kind = k.Group+"/"+k.Version, k.Kind
		if w.Cluster != nil {
			r.Metadata.Annotations = output.ClusterAnnotations(*w.Cluster)
		}
		// Policy Reporter groups the results by category.
		r.Results = append([]output.PolicyReportResult(nil), r.Results...)
		for i := range r.Results {
			if r.Results[i].Category == "" {
				r.Results[i].Category = categories[r.Metadata.Name]
			}
		}
		parts, err := split(r, max)
		if err != nil {
			return nil, err
		}
		for _, p := range parts {
			data, err := json.Marshal(p)
			if err != nil {
				return nil, err
			}
			out = append(out, object{kind: k, namespace: p.Metadata.Namespace, name: p.Metadata.Name, report: p, data: data})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.kind.Namespaced != b.kind.Namespaced {
			return !a.kind.Namespaced
		}
		if a.namespace != b.namespace {
			return a.namespace < b.namespace
		}
		return a.name < b.name
	})
	return out, nil
}

// split cuts a report whose JSON is larger than max into parts of as many
// results as fit, named NAME, NAME-2, NAME-3, ..., each with its summary.
// A single result larger than max is an error.
func split(r output.PolicyReport, max int) ([]output.PolicyReport, error) {
	whole, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	if len(whole) <= max {
		return []output.PolicyReport{r}, nil
	}
	empty := r
	empty.Results = nil
	head, _ := json.Marshal(empty)
	var parts []output.PolicyReport
	var cur []output.PolicyReportResult
	size := len(head) + 16 // the part's name and the results' brackets
	flush := func() {
		p := r
		p.Results = cur
		if len(parts) > 0 {
			p.Metadata.Name = fmt.Sprintf("%s-%d", r.Metadata.Name, len(parts)+1)
		}
		p.Summary = output.Summarise(cur)
		parts = append(parts, p)
		cur, size = nil, len(head)+16
	}
	for _, res := range r.Results {
		b, err := json.Marshal(res)
		if err != nil {
			return nil, err
		}
		if len(head)+16+len(b) > max {
			return nil, fmt.Errorf("%s %s/%s: one result is %d bytes, more than a report may hold (%d): %s", r.Kind, r.Metadata.Namespace, r.Metadata.Name, len(b), max, res.Message)
		}
		if size+len(b)+1 > max {
			flush()
		}
		cur = append(cur, res)
		size += len(b) + 1
	}
	flush()
	return parts, nil
}

// say writes what was done to a report, as kubectl apply says it.
func (w *Writer) say(k live.Kind, ns, name, done string) {
	if w.Out == nil {
		return
	}
	switch w.DryRun {
	case DryRunClient:
		done += " (dry run)"
	case DryRunServer:
		done += " (server dry run)"
	}
	where := ""
	if ns != "" {
		where = " -n " + ns
	}
	fmt.Fprintf(w.Out, "%s%s.%s/%s%s %s\n", w.Prefix, lower(k.Kind), k.Group, name, where, done)
}

// printList writes the reports as a List that kubectl apply takes.
func (w *Writer) printList(objs []object) error {
	reports := make([]output.PolicyReport, len(objs))
	for i, o := range objs {
		reports[i] = o.report
	}
	if w.Cluster != nil {
		if _, err := fmt.Fprintf(w.Out, "# %s\n", w.Cluster.Header()); err != nil {
			return err
		}
	}
	return output.WritePolicyReports(w.Out, reports)
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
