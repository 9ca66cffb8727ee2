package output

import (
	"io"

	"gopkg.in/yaml.v3"

	"github.com/ome-policy/evaluator/engine"
)

// explainYAML writes the same document as explainJSON, in YAML.
type explainYAML struct{ w io.Writer }

func (x *explainYAML) Write(es []engine.Explanation) error {
	if es == nil {
		es = []engine.Explanation{}
	}
	enc := yaml.NewEncoder(x.w)
	enc.SetIndent(2)
	return enc.Encode(map[string]any{"explanations": es})
}
