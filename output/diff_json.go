package output

import (
	"encoding/json"
	"io"

	"github.com/ome-policy/evaluator/diff"
)

type diffJSON struct{ w io.Writer }

// diffDocument is what -o json writes.
type diffDocument struct {
	Old          string      `json:"old"`
	New          string      `json:"new"`
	OMEVersion   string      `json:"omeVersion"`
	ToOMEVersion string      `json:"toOmeVersion"`
	Summary      DiffSummary `json:"summary"`
	*diff.Report
	Errors []Problem `json:"errors"`
}

func (d *diffJSON) Write(r *diff.Report, sides DiffSides) error {
	problems := sides.Problems
	if problems == nil {
		problems = []Problem{}
	}
	enc := json.NewEncoder(d.w)
	enc.SetIndent("", "  ")
	return enc.Encode(diffDocument{Old: sides.Old, New: sides.New, OMEVersion: sides.OMEVersion, ToOMEVersion: sides.ToOMEVersion,
		Summary: Summarize(r), Report: r, Errors: problems})
}
