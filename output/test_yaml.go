package output

import (
	"io"

	"gopkg.in/yaml.v3"
)

// testYAML writes the same document as testJSON, in YAML.
type testYAML struct {
	w io.Writer
}

func (t *testYAML) Write(r TestReport) error {
	enc := yaml.NewEncoder(t.w)
	enc.SetIndent(2)
	return enc.Encode(r.doc())
}
