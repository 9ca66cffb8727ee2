package output

import (
	"encoding/json"
	"io"

	"github.com/ome-policy/evaluator/engine"
)

// explainJSON writes {"explanations": [...]}.
type explainJSON struct{ w io.Writer }

func (x *explainJSON) Write(es []engine.Explanation) error {
	if es == nil {
		es = []engine.Explanation{}
	}
	enc := json.NewEncoder(x.w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(map[string]any{"explanations": es})
}
