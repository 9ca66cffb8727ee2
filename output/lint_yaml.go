package output

import (
	"io"

	"gopkg.in/yaml.v3"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/results"
)

// lintYAML writes the same document as lintJSON, in YAML.
type lintYAML struct{ w io.Writer }

func (l *lintYAML) Write(r results.LintReport) error {
	if r.Findings == nil {
		r.Findings = []engine.Finding{}
	}
	enc := yaml.NewEncoder(l.w)
	enc.SetIndent(2)
	return enc.Encode(r)
}
