package output

import (
	"encoding/json"
	"io"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/results"
)

// explainJSON writes {"explanations": [...], "errors": [...]}.
type explainJSON struct {
	w       io.Writer
	release string
}

// explainDocument is what -o json and -o yaml write.
type explainDocument struct {
	OMEVersion   string               `json:"omeVersion" yaml:"omeVersion"`
	Explanations []engine.Explanation `json:"explanations" yaml:"explanations"`
	Errors       []results.Problem    `json:"errors" yaml:"errors"`
}

func newExplainDocument(release string, es []engine.Explanation, problems []results.Problem) explainDocument {
	if es == nil {
		es = []engine.Explanation{}
	}
	if problems == nil {
		problems = []results.Problem{}
	}
	return explainDocument{OMEVersion: release, Explanations: es, Errors: problems}
}

func (x *explainJSON) Write(es []engine.Explanation, problems []results.Problem) error {
	enc := json.NewEncoder(x.w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(newExplainDocument(x.release, es, problems))
}
