package output

import (
	"encoding/json"
	"io"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/results"
)

// lintJSON writes {"findings": [...]}.
type lintJSON struct{ w io.Writer }

func (l *lintJSON) Write(r results.LintReport) error {
	if r.Findings == nil {
		r.Findings = []engine.Finding{}
	}
	enc := json.NewEncoder(l.w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
