package output

import (
	"io"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/results"
)

// explainYAML writes the same document as explainJSON, in YAML.
type explainYAML struct {
	w       io.Writer
	release string
}

func (x *explainYAML) Write(es []engine.Explanation, problems []results.Problem) error {
	return encodeYAML(x.w, newExplainDocument(x.release, es, problems))
}
