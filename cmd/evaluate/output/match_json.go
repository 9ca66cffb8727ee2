package output

import (
	"encoding/json"
	"io"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/objects"
)

// matchJSON writes {"results": [...]}, one result at a time, so memory does
// not grow with the number of pairs.
type matchJSON struct {
	w     io.Writer
	count int
}

func (m *matchJSON) Begin(_, _ []*objects.Object) error {
	_, err := io.WriteString(m.w, "{\"results\": [")
	return err
}

func (m *matchJSON) Result(r engine.Result) error {
	b, err := json.MarshalIndent(normalise(r), "  ", "  ")
	if err != nil {
		return err
	}
	sep := "\n  "
	if m.count > 0 {
		sep = ",\n  "
	}
	m.count++
	if _, err := io.WriteString(m.w, sep); err != nil {
		return err
	}
	_, err = m.w.Write(b)
	return err
}

func (m *matchJSON) End() error {
	end := "]}\n"
	if m.count > 0 {
		end = "\n]}\n"
	}
	_, err := io.WriteString(m.w, end)
	return err
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
