package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
	"k8s.io/kube-openapi/pkg/validation/validate"
	"sigs.k8s.io/yaml"
)

// policyReportValidators are the PolicyReport and ClusterPolicyReport
// CRDs' schemas (testdata/policyreport), by kind.
func policyReportValidators(t *testing.T) map[string]*validate.SchemaValidator {
	t.Helper()
	return crdValidators(t, "testdata/policyreport", "wgpolicyk8s.io", "v1alpha2", "wgpolicyk8s.io_policyreports.yaml", "wgpolicyk8s.io_clusterpolicyreports.yaml")
}

// crdValidators are the schemas of the CRDs of group in dir (files), at
// version, by kind.
func crdValidators(t *testing.T, dir, group, version string, files ...string) map[string]*validate.SchemaValidator {
	t.Helper()
	out := map[string]*validate.SchemaValidator{}
	for _, f := range files {
		b, err := os.ReadFile(at(dir + "/" + f))
		require.NoError(t, err)
		var crd struct {
			Spec struct {
				Group string
				Names struct{ Kind string }
				Scope string
				// Versions' schemas are kept as JSON, for spec.Schema.
				Versions []struct {
					Name    string
					Served  bool
					Storage bool
					Schema  struct {
						OpenAPIV3Schema json.RawMessage `json:"openAPIV3Schema"`
					}
				}
			}
		}
		require.NoError(t, yaml.Unmarshal(b, &crd))
		require.Equal(t, group, crd.Spec.Group)
		for _, v := range crd.Spec.Versions {
			if v.Name != version {
				continue
			}
			require.True(t, v.Served && v.Storage, "%s: %s is served and stored", f, version)
			var s spec.Schema
			require.NoError(t, json.Unmarshal(v.Schema.OpenAPIV3Schema, &s))
			out[crd.Spec.Names.Kind] = validate.NewSchemaValidator(&s, nil, "", strfmt.Default)
		}
	}
	require.Len(t, out, len(files))
	return out
}

// policyReportItem is what the test reads of a report, beside the schema.
type policyReportItem struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name, Namespace string
	} `json:"metadata"`
	Summary map[string]int `json:"summary"`
	Results []struct {
		Policy, Result, Message, Severity string
		Resources                         []struct{ APIVersion, Kind, Namespace, Name string }
	} `json:"results"`
}

// requirePolicyReports checks out, -o policyreport's output: a List whose
// items the CRDs' schemas accept, a PolicyReport per namespace and one
// ClusterPolicyReport, each result with its policy, result, message,
// severity and (but for an input that could not be read) its object, in
// the report of the object's scope, and summaries that count the
// results. It returns the reports.
func requirePolicyReports(t *testing.T, out string, validators map[string]*validate.SchemaValidator) []policyReportItem {
	t.Helper()
	var list struct {
		APIVersion string            `json:"apiVersion"`
		Kind       string            `json:"kind"`
		Items      []json.RawMessage `json:"items"`
	}
	require.NoError(t, yaml.Unmarshal([]byte(out), &list), out)
	require.Equal(t, "v1", list.APIVersion)
	require.Equal(t, "List", list.Kind)
	require.NotNil(t, list.Items, "items: [] when empty")
	var reports []policyReportItem
	seen := map[string]bool{}
	for _, raw := range list.Items {
		var doc map[string]any
		require.NoError(t, json.Unmarshal(raw, &doc))
		var item policyReportItem
		require.NoError(t, json.Unmarshal(raw, &item))
		v := validators[item.Kind]
		require.NotNil(t, v, "kind %q", item.Kind)
		res := v.Validate(doc)
		require.True(t, res.IsValid(), "%s %s does not fit the CRD: %v", item.Kind, item.Metadata.Namespace, res.Errors)
		require.Equal(t, "wgpolicyk8s.io/v1alpha2", item.APIVersion)
		require.NotEmpty(t, item.Metadata.Name)
		require.Equal(t, item.Kind == "ClusterPolicyReport", item.Metadata.Namespace == "", "only a PolicyReport has a namespace")
		require.False(t, seen[item.Metadata.Namespace], "one report per namespace")
		seen[item.Metadata.Namespace] = true
		counts := map[string]int{}
		for _, r := range item.Results {
			require.NotEmpty(t, r.Policy)
			require.Contains(t, []string{"pass", "fail", "warn", "error"}, r.Result)
			require.NotEmpty(t, r.Message)
			require.NotEmpty(t, r.Severity)
			counts[r.Result]++
			if r.Result == "error" {
				continue
			}
			require.Len(t, r.Resources, 1)
			ref := r.Resources[0]
			require.Equal(t, "ome.io/v1beta1", ref.APIVersion)
			require.Equal(t, item.Metadata.Namespace, ref.Namespace, "%s %s is in the report of its scope", ref.Kind, ref.Name)
			require.Equal(t, strings.HasPrefix(ref.Kind, "Cluster"), ref.Namespace == "")
		}
		for _, k := range []string{"pass", "fail", "warn", "error"} {
			require.Equal(t, counts[k], item.Summary[k], "summary.%s", k)
		}
		reports = append(reports, item)
	}
	return reports
}

// TestPolicyReportsFitTheCRD: lint and select write PolicyReports that the
// CRD of the release Kyverno's module pins accepts, with every result in
// place, and an empty List when there is nothing to report.
func TestPolicyReportsFitTheCRD(t *testing.T) {
	validators := policyReportValidators(t)
	empty := t.TempDir()
	cases := []struct {
		name string
		args []string
		code int
		// want are "<namespace>/<policy>/<result>" that some result
		// must be.
		want []string
	}{
		{name: "lint", args: []string{"lint", at("testdata/lint/bad"), exModels, exRuntimes, bad("invalid-yaml.yaml")}, code: 2,
			want: []string{"/empty-version/fail", "/ome-lint/pass", "llama-demo/ome-lint/pass", "/input-error/error"}},
		{name: "lint --fail-on-warn", args: []string{"lint", "--fail-on-warn", at("testdata/lint/bad/ignored-field.yaml")}, code: 1,
			want: []string{"/ignored-field/fail"}},
		{name: "select", args: []string{"select", "-f", at("testdata/examples/select"), "-f", exModels, "-f", exRuntimes, "-f", at("testdata/select/unselectable.yaml")}, code: 1,
			want: []string{"team-a/ome-runtime-selection/pass", "llama-demo/ome-runtime-selection/pass", "llama-demo/ome-runtime-selection/fail"}},
		{name: "lint, nothing", args: []string{"lint", empty}},
		{name: "select, nothing", args: []string{"select", empty}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := evaluate(t, time.Minute, "", append(c.args, "-o", "policyreport")...)
			require.Equal(t, c.code, r.code, r.stderr)
			reports := requirePolicyReports(t, r.stdout, validators)
			got := map[string]bool{}
			for _, rep := range reports {
				for _, res := range rep.Results {
					got[rep.Metadata.Namespace+"/"+res.Policy+"/"+res.Result] = true
				}
			}
			for _, w := range c.want {
				require.True(t, got[w], "no result %s among %v", w, got)
			}
			if len(c.want) == 0 {
				require.Empty(t, reports)
			}
		})
	}
}
