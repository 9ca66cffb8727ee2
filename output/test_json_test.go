package output

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/results"
)

// -o json has one entry per run, a case on one engine and one release,
// with the case's file, line and name; passed and failed count cases, runs
// count runs; -o yaml is the same document.
func TestTestJSONDocument(t *testing.T) {
	yes := map[string]any{"compatible": true}
	no := map[string]any{"compatible": false, "reason": "x"}
	var r results.TestReport
	r.Add(results.CaseReport{File: "c.yaml", Line: 3, Name: "passes", Results: []results.CaseResult{
		{Engine: engine.Both, OMEVersion: "v1.2.2", Passed: true, Expected: yes, Got: yes, Runs: []engine.EngineRun{
			{Engine: engine.CEL, Passed: true, Got: yes}, {Engine: engine.Rego, Passed: true, Got: yes}}},
	}})
	r.Add(results.CaseReport{File: "c.yaml", Line: 9, Name: "rego wrong", Results: []results.CaseResult{
		{Engine: engine.Both, OMEVersion: "v1.2.2", Expected: yes, Got: yes, Detail: "engines disagree", Runs: []engine.EngineRun{
			{Engine: engine.CEL, Passed: true, Got: yes}, {Engine: engine.Rego, Got: no}}},
		{Engine: engine.Both, OMEVersion: "v0.1.4", Detail: "cel: boom", Expected: yes, Runs: []engine.EngineRun{
			{Engine: engine.CEL, Err: "boom"}, {Engine: engine.Rego, Passed: true, Got: yes}}},
	}})
	r.Add(results.CaseReport{File: "t_test.rego", Line: 5, Name: "test_x", Results: []results.CaseResult{
		{Engine: engine.Rego, OMEVersion: "v1.2.2", Expected: "pass", Got: "fail", Detail: "failed at t_test.rego:6"},
	}})

	var js bytes.Buffer
	require.NoError(t, (&testJSON{w: &js}).Write(r))
	require.JSONEq(t, `{
  "passed": 1, "failed": 2,
  "runs": {"passed": 4, "failed": 3},
  "engines": ["cel", "rego"],
  "omeVersions": ["v1.2.2", "v0.1.4"],
  "cases": [
    {"file": "c.yaml", "line": 3, "name": "passes", "engine": "cel", "omeVersion": "v1.2.2", "passed": true, "expected": {"compatible": true}, "got": {"compatible": true}},
    {"file": "c.yaml", "line": 3, "name": "passes", "engine": "rego", "omeVersion": "v1.2.2", "passed": true, "expected": {"compatible": true}, "got": {"compatible": true}},
    {"file": "c.yaml", "line": 9, "name": "rego wrong", "engine": "cel", "omeVersion": "v1.2.2", "passed": true, "expected": {"compatible": true}, "got": {"compatible": true}},
    {"file": "c.yaml", "line": 9, "name": "rego wrong", "engine": "rego", "omeVersion": "v1.2.2", "passed": false, "expected": {"compatible": true}, "got": {"compatible": false, "reason": "x"}, "detail": "engines disagree"},
    {"file": "c.yaml", "line": 9, "name": "rego wrong", "engine": "cel", "omeVersion": "v0.1.4", "passed": false, "expected": {"compatible": true}, "got": null, "detail": "boom"},
    {"file": "c.yaml", "line": 9, "name": "rego wrong", "engine": "rego", "omeVersion": "v0.1.4", "passed": true, "expected": {"compatible": true}, "got": {"compatible": true}},
    {"file": "t_test.rego", "line": 5, "name": "test_x", "engine": "rego", "omeVersion": "v1.2.2", "passed": false, "expected": "pass", "got": "fail", "detail": "failed at t_test.rego:6"}
  ]
}`, js.String())

	var ym bytes.Buffer
	require.NoError(t, (&testYAML{w: &ym}).Write(r))
	var fromYAML any
	require.NoError(t, yaml.Unmarshal(ym.Bytes(), &fromYAML))
	b, err := json.Marshal(fromYAML)
	require.NoError(t, err)
	require.JSONEq(t, js.String(), string(b), "-o yaml is -o json in YAML")
}

// An empty report has empty lists, not nulls; a result without runs of
// its own is one run on each engine of its name.
func TestTestJSONEmptyAndBoth(t *testing.T) {
	var js bytes.Buffer
	require.NoError(t, (&testJSON{w: &js}).Write(results.TestReport{}))
	require.JSONEq(t, `{"passed": 0, "failed": 0, "runs": {"passed": 0, "failed": 0}, "engines": [], "omeVersions": [], "cases": []}`, js.String())

	var r results.TestReport
	r.Add(results.CaseReport{File: "c.yaml", Name: "c", Results: []results.CaseResult{{Engine: engine.Both, OMEVersion: "v1.2.2", Detail: "d"}}})
	d := testDocOf(r)
	require.Equal(t, runCounts{Failed: 2}, d.Runs)
	require.Len(t, d.Cases, 2)
	for i, e := range []string{engine.CEL, engine.Rego} {
		require.Equal(t, testRun{File: "c.yaml", Name: "c", Engine: e, OMEVersion: "v1.2.2", Detail: "d"}, d.Cases[i])
	}
}
