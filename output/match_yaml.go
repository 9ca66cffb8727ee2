package output

import (
	"io"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/objects"
)

// matchYAML writes the same document as -o json, in YAML, one result at a
// time.
type matchYAML struct {
	w     io.Writer
	count int
}

func (m *matchYAML) Begin(_, _ []*objects.Object) error { return nil }

func (m *matchYAML) Result(r engine.Result) error {
	if m.count == 0 {
		if _, err := io.WriteString(m.w, "results:\n"); err != nil {
			return err
		}
	}
	m.count++
	var b strings.Builder
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode([]engine.Result{normalise(r)}); err != nil {
		return err
	}
	_, err := io.WriteString(m.w, b.String())
	return err
}

func (m *matchYAML) End() error {
	if m.count == 0 {
		_, err := io.WriteString(m.w, "results: []\n")
		return err
	}
	return nil
}

// normalise makes empty lists print as [] rather than null.
func normalise(r engine.Result) engine.Result {
	if r.Entries == nil {
		r.Entries = []engine.EntryResult{}
	}
	for i := range r.Entries {
		if r.Entries[i].Differences == nil {
			r.Entries[i].Differences = []string{}
		}
	}
	return r
}
