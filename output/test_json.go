package output

import (
	"encoding/json"
	"io"
)

// testJSON writes {"passed", "failed", "runs", "engines", "omeVersions",
// "cases"}, each case with its "results".
type testJSON struct {
	w io.Writer
}

func (t *testJSON) Write(r TestReport) error {
	r = r.lists()
	enc := json.NewEncoder(t.w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// lists gives the report's nil lists as empty ones, so that they are
// written [] rather than null.
func (r TestReport) lists() TestReport {
	if r.Cases == nil {
		r.Cases = []CaseReport{}
	}
	if r.Engines == nil {
		r.Engines = []string{}
	}
	if r.OMEVersions == nil {
		r.OMEVersions = []string{}
	}
	return r
}
