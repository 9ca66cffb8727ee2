package output

import (
	"encoding/json"
	"io"
)

// testJSON writes {"passed", "failed", "cases"}.
type testJSON struct {
	w io.Writer
}

func (t *testJSON) Write(r TestReport) error {
	if r.Cases == nil {
		r.Cases = []CaseReport{}
	}
	enc := json.NewEncoder(t.w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
