package output

import (
	"encoding/csv"
	"io"

	"github.com/ome-policy/evaluator/results"
)

// selectCSV writes a row per InferenceService: its namespace and name,
// whether OME admits it, the runtime OME selects (kind/namespace/name, or
// empty) and OME's message.
type selectCSV struct{ w io.Writer }

func (s *selectCSV) Write(decisions []results.SelectResult, _ []results.Problem) error {
	w := csv.NewWriter(s.w)
	_ = w.Write([]string{"namespace", "name", "admitted", "runtime", "message"})
	for _, d := range decisions {
		runtime := ""
		if d.Selected != nil {
			runtime = RefText(*d.Selected)
		}
		admitted := "false"
		if d.Admitted {
			admitted = "true"
		}
		_ = w.Write([]string{d.InferenceService.Namespace, d.InferenceService.Name, admitted, runtime, d.Message})
	}
	w.Flush()
	return w.Error()
}
