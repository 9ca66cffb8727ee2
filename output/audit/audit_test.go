package audit

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ome-policy/evaluator/output"
)

// A report larger than the limit is cut into parts that each fit, named
// NAME, NAME-2, ..., each with the summary of its own results, together
// holding every result in order; a single result over the limit is an
// error that names the report.
func TestSplit(t *testing.T) {
	r := output.PolicyReport{APIVersion: "wgpolicyk8s.io/v1alpha2", Kind: "PolicyReport",
		Metadata: output.PolicyReportMetadata{Name: "ome-lint", Namespace: "team-a", Labels: map[string]string{"app.kubernetes.io/managed-by": "evaluate"}}}
	for i := range 100 {
		result := "pass"
		if i%3 == 0 {
			result = "fail"
		}
		r.Results = append(r.Results, output.PolicyReportResult{Source: "evaluate", Policy: "ome-lint", Result: result, Severity: "info", Message: fmt.Sprintf("result %03d", i)})
	}
	r.Summary = output.Summarise(r.Results)

	whole, err := split(r, MaxReportBytes)
	require.NoError(t, err)
	require.Len(t, whole, 1)
	require.Equal(t, "ome-lint", whole[0].Metadata.Name)

	const max = 2000
	parts, err := split(r, max)
	require.NoError(t, err)
	require.Greater(t, len(parts), 3)
	var all []output.PolicyReportResult
	fails := 0
	for i, p := range parts {
		want := "ome-lint"
		if i > 0 {
			want = fmt.Sprintf("ome-lint-%d", i+1)
		}
		require.Equal(t, want, p.Metadata.Name)
		require.Equal(t, "team-a", p.Metadata.Namespace)
		b, err := json.Marshal(p)
		require.NoError(t, err)
		require.LessOrEqual(t, len(b), max, p.Metadata.Name)
		require.Equal(t, output.Summarise(p.Results), p.Summary)
		fails += p.Summary.Fail
		all = append(all, p.Results...)
	}
	require.Equal(t, r.Results, all)
	require.Equal(t, r.Summary.Fail, fails)

	_, err = split(r, 300)
	require.ErrorContains(t, err, "PolicyReport team-a/ome-lint: one result is ")
}
