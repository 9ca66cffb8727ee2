package diffout

import (
	"bufio"
	"encoding/json"
	"io"

	"github.com/ome-policy/evaluator/diff"
	"github.com/ome-policy/evaluator/results"
)

type diffJSON struct{ w io.Writer }

// Write writes the document that -o json gives: old, new, omeVersion,
// toOmeVersion, summary, the report's models, inferenceServices, unmoved,
// rules (with --rules only) and evaluated, then errors, indented by two spaces. The long lists are
// written an element at a time, so that a report of every pair of a
// cluster (hundreds of megabytes of JSON) is never held whole in memory;
// the bytes are those of json.MarshalIndent of the whole document.
func (d *diffJSON) Write(r *diff.Report, sides Sides) error {
	problems := sides.Problems
	if problems == nil {
		problems = []results.Problem{}
	}
	w := bufio.NewWriterSize(d.w, 1<<16)
	w.WriteString("{")
	sep := "\n"
	field := func(key string, write func() error) error {
		w.WriteString(sep + `  "` + key + `": `)
		sep = ",\n"
		return write()
	}
	value := func(v any) func() error {
		return func() error {
			b, err := json.MarshalIndent(v, "  ", "  ")
			if err != nil {
				return err
			}
			_, err = w.Write(b)
			return err
		}
	}
	for _, f := range []struct {
		key   string
		write func() error
	}{
		{"cluster", value(sides.Cluster)},
		{"old", value(sides.Old)},
		{"new", value(sides.New)},
		{"omeVersion", value(sides.OMEVersion)},
		{"toOmeVersion", value(sides.ToOMEVersion)},
		{"summary", value(Summarize(r))},
		{"models", func() error { return writeJSONList(w, r.Models) }},
		{"inferenceServices", func() error { return writeJSONList(w, r.InferenceServices) }},
		{"unmoved", func() error { return writeJSONList(w, r.Unmoved) }},
		{"rules", func() error { return writeJSONList(w, r.Rules) }},
		{"evaluated", value(r.Work)},
		{"errors", func() error { return writeJSONList(w, problems) }},
	} {
		if f.key == "rules" && r.Rules == nil || f.key == "cluster" && sides.Cluster == nil {
			continue // no team's rules judged the sides; one run's
		}
		if err := field(f.key, f.write); err != nil {
			return err
		}
	}
	w.WriteString("\n}\n")
	return w.Flush()
}

// writeJSONList writes list as a field of the document's top level, as
// json.MarshalIndent does: null for nil, [] when empty, else an element a
// line, indented.
func writeJSONList[T any](w *bufio.Writer, list []T) error {
	switch {
	case list == nil:
		w.WriteString("null")
		return nil
	case len(list) == 0:
		w.WriteString("[]")
		return nil
	}
	w.WriteString("[")
	for i, e := range list {
		b, err := json.MarshalIndent(e, "    ", "  ")
		if err != nil {
			return err
		}
		if i > 0 {
			w.WriteString(",")
		}
		w.WriteString("\n    ")
		w.Write(b)
	}
	w.WriteString("\n  ]")
	return nil
}
