package output

import (
	"fmt"
	"io"
	"strings"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/objects"
)

// matchText writes a table per model: each runtime, MATCH or NO MATCH, and
// OME's reason. Results arrive grouped by model, so each table is written
// as soon as its model is done.
type matchText struct {
	w        io.Writer
	width    int
	current  *engine.Ref
	matches  int
	models   int
	unserved int
}

func refText(r engine.Ref) string {
	if r.Namespace != "" {
		return r.Kind + " " + r.Namespace + "/" + r.Name
	}
	return r.Kind + " " + r.Name
}

func runtimeText(r engine.Ref) string {
	if r.Namespace != "" {
		return r.Namespace + "/" + r.Name
	}
	return r.Name
}

func (m *matchText) Begin(_, runtimes []*objects.Object) error {
	m.width = len("RUNTIME")
	for _, r := range runtimes {
		m.width = max(m.width, len(runtimeText(objects.RefOf(r))))
	}
	return nil
}

func (m *matchText) Result(r engine.Result) error {
	if m.current == nil || *m.current != r.Model {
		if err := m.closeModel(); err != nil {
			return err
		}
		ref := r.Model
		m.current = &ref
		m.models++
		if m.models > 1 {
			if _, err := io.WriteString(m.w, "\n"); err != nil {
				return err
			}
		}
		if _, err := fmt.Fprintf(m.w, "%s\n  %-*s  %-8s  %s\n", refText(r.Model), m.width, "RUNTIME", "VERDICT", "REASON"); err != nil {
			return err
		}
	}
	verdict := "NO MATCH"
	if r.Compatible {
		verdict = "MATCH"
		m.matches++
	}
	line := fmt.Sprintf("  %-*s  %-8s  %s", m.width, runtimeText(r.Runtime), verdict, r.Reason)
	_, err := io.WriteString(m.w, strings.TrimRight(line, " ")+"\n")
	return err
}

func (m *matchText) closeModel() error {
	if m.current == nil {
		return nil
	}
	if m.matches == 0 {
		m.unserved++
	}
	_, err := fmt.Fprintf(m.w, "  %d compatible runtime(s)\n", m.matches)
	m.matches = 0
	return err
}

func (m *matchText) End() error {
	if err := m.closeModel(); err != nil {
		return err
	}
	if m.models > 0 {
		_, err := fmt.Fprintf(m.w, "\n%d model(s), %d with no compatible runtime\n", m.models, m.unserved)
		return err
	}
	return nil
}
