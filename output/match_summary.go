package output

import (
	"fmt"
	"io"
	"strings"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/results"
)

// matchSummary writes one line per model, as soon as its model is done:
// the model, how many runtimes accept it and which one OME would select,
// or "none"; the summary line of the text output ends it. The MODEL column
// is as wide as the widest model's name, known from Begin.
type matchSummary struct {
	w        io.Writer
	width    int // of the MODEL column
	models   int
	unserved int
	buf      []byte
}

func (m *matchSummary) Begin(models, _ []*objects.Object) error {
	m.width = len("MODEL")
	for _, o := range models {
		m.width = max(m.width, len(RefText(objects.RefOf(o))))
	}
	return nil
}

func (m *matchSummary) Model(model engine.Ref, results []engine.Result) error {
	return m.ModelSelected(model, results, nil)
}

func (m *matchSummary) ModelSelected(model engine.Ref, results []engine.Result, selected *engine.Ref) error {
	b := m.buf[:0]
	if m.models == 0 {
		b = fmt.Appendf(b, "%-*s  %-10s  %s\n", m.width, "MODEL", "COMPATIBLE", "SELECTED")
	}
	m.models++
	compatible := 0
	for _, r := range results {
		if r.Compatible {
			compatible++
		}
	}
	if compatible == 0 {
		m.unserved++
	}
	sel := "none"
	if selected != nil {
		sel = RefText(*selected)
	}
	b = fmt.Appendf(b, "%-*s  %-10s  %s\n", m.width, RefText(model), fmt.Sprintf("%d/%d", compatible, len(results)), sel)
	m.buf = b
	_, err := m.w.Write(b)
	return err
}

func (m *matchSummary) End(s results.MatchSummary) error {
	if m.models == 0 {
		return nil
	}
	line := matchTotals(m.models, m.unserved, s.LeftOut)
	var b strings.Builder
	b.WriteString("\n" + line + "\n")
	_, err := io.WriteString(m.w, b.String())
	return err
}
