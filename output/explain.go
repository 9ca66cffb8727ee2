package output

import (
	"io"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/results"
)

// ExplainWriter writes the explanations of `evaluate explain`, one per
// model and runtime, ordered by model, then runtime, and the inputs that
// could not be read (the machine-readable formats carry them).
type ExplainWriter interface {
	Write(es []engine.Explanation, problems []results.Problem) error
}

// ExplainFormats lists the -o values of explain.
var ExplainFormats = []string{"text", "json", "yaml"}

// NewExplainWriter returns the writer for format; style applies to text
// only; release is the OME release whose rules gave the explanations,
// which the documents name.
func NewExplainWriter(format string, w io.Writer, style Style, release string) (ExplainWriter, error) {
	switch format {
	case "text":
		return &explainText{w: w, style: style, release: release}, nil
	case "json":
		return &explainJSON{w: w, release: release}, nil
	case "yaml":
		return &explainYAML{w: w, release: release}, nil
	}
	return nil, UnknownFormat(format, ExplainFormats)
}
