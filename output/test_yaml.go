package output

import (
	"io"

	"gopkg.in/yaml.v3"

	"github.com/ome-policy/evaluator/results"
)

// testYAML writes the same document as testJSON, in YAML.
type testYAML struct {
	w io.Writer
}

func (t *testYAML) Write(r results.TestReport) error {
	enc := yaml.NewEncoder(t.w)
	enc.SetIndent(2)
	return enc.Encode(testDocOf(r))
}
