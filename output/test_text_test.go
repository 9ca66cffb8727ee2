package output

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ome-policy/evaluator/results"
)

// The summary counts cases, and the runs apart when there are more runs
// than cases: "both" is two runs; engines and releases are named when
// several ran.
func TestTestSummary(t *testing.T) {
	res := func(engine, release string, passed bool) results.CaseResult {
		return results.CaseResult{Engine: engine, OMEVersion: release, Passed: passed}
	}
	for _, tc := range []struct {
		name  string
		cases [][]results.CaseResult
		want  string
	}{
		{"one engine, one release", [][]results.CaseResult{{res("cel", "v1.2.2", true)}, {res("cel", "v1.2.2", false)}}, "1 passed, 1 failed"},
		{"both engines", [][]results.CaseResult{{res("both", "v1.2.2", true)}, {res("both", "v1.2.2", true)}}, "2 passed, 0 failed (4 runs: 2 engines)"},
		{"a case fails on one release of three", [][]results.CaseResult{{res("rego", "v1.2.2", true), res("rego", "v0.1.5", true), res("rego", "v0.1.4", false)}},
			"0 passed, 1 failed (3 runs: 3 releases)"},
		{"engines and releases", [][]results.CaseResult{{res("both", "v1.2.2", true), res("both", "v0.1.4", true)}, {res("cel", "v1.2.2", true)}},
			"2 passed, 0 failed (5 runs: 2 engines, 2 releases)"},
		{"nothing", nil, "0 passed, 0 failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var r results.TestReport
			for i, c := range tc.cases {
				r.Add(results.CaseReport{File: "c.yaml", Line: i + 1, Name: "c", Results: c})
			}
			require.Equal(t, tc.want, r.Summary())
			var b bytes.Buffer
			require.NoError(t, (&testText{w: &b}).Write(r))
			require.Equal(t, tc.want+"\n", lastLineOf(b.String()))
		})
	}
}

// Failures alike on releases one after another are said once, naming them;
// a failure unlike the one before is said apart.
func TestTestFailuresGrouped(t *testing.T) {
	got := func(reason string) any { return map[string]any{"compatible": false, "reason": reason} }
	var r results.TestReport
	r.Add(results.CaseReport{File: "c.yaml", Line: 7, Name: "c", Results: []results.CaseResult{
		{Engine: "both", OMEVersion: "v1.2.2", Expected: map[string]any{"compatible": true}, Got: got("a")},
		{Engine: "both", OMEVersion: "v0.1.5", Expected: map[string]any{"compatible": true}, Got: got("a")},
		{Engine: "both", OMEVersion: "v0.1.4", Expected: map[string]any{"compatible": true}, Got: got("b")},
	}})
	var b bytes.Buffer
	require.NoError(t, (&testText{w: &b}).Write(r))
	require.Equal(t, `FAIL c.yaml:7: c [both; OME v1.2.2, v0.1.5]
  expected:
    compatible: true
  got:
    compatible: false
    reason: a
FAIL c.yaml:7: c [both; OME v0.1.4]
  expected:
    compatible: true
  got:
    compatible: false
    reason: b
0 passed, 1 failed (6 runs: 2 engines, 3 releases)
`, b.String())
}

// lastLineOf is the last line of s, with its newline.
func lastLineOf(s string) string {
	return s[strings.LastIndex(strings.TrimSuffix(s, "\n"), "\n")+1:]
}
