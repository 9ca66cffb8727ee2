package output

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/ome-policy/evaluator/builtins"
	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/results"
)

// matchText writes a table per model: each runtime OME pairs it with,
// MATCH or NO MATCH, and OME's reason, as soon as its model is done. A
// reason wider than the terminal (lineWidth; 0 for no terminal) goes on
// below its column.
type matchText struct {
	w         io.Writer
	lineWidth int
	width     int // of the RUNTIME column
	models    int
	unserved  int
	// zeroSizes are the sizes of each model and runtime given that OME
	// reads as 0 (builtins.SizeParses): a note says so under the table.
	zeroSizes map[engine.Ref][]string
}

// RefText names an object: "ClusterServingRuntime rt", "BaseModel ns/m".
func RefText(r engine.Ref) string {
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

func (m *matchText) Begin(models, runtimes []*objects.Object) error {
	m.width = len("RUNTIME")
	for _, r := range runtimes {
		m.width = max(m.width, len(runtimeText(objects.RefOf(r))))
	}
	m.zeroSizes = map[engine.Ref][]string{}
	for _, o := range append(append([]*objects.Object(nil), models...), runtimes...) {
		spec := o.Spec()
		var sizes []any
		if o.IsModel() {
			sizes = append(sizes, spec["modelParameterSize"])
		} else if r, ok := spec["modelSizeRange"].(map[string]any); ok {
			sizes = append(sizes, r["min"], r["max"])
		}
		for _, v := range sizes {
			if s, ok := v.(string); ok && !builtins.SizeParses(s) {
				m.zeroSizes[objects.RefOf(o)] = append(m.zeroSizes[objects.RefOf(o)], s)
			}
		}
	}
	return nil
}

func (m *matchText) Model(model engine.Ref, results []engine.Result) error {
	var b strings.Builder
	if m.models > 0 {
		b.WriteString("\n")
	}
	m.models++
	b.WriteString(RefText(model) + "\n")
	if len(results) == 0 {
		b.WriteString("  no runtime that OME pairs with it was given\n")
	} else {
		fmt.Fprintf(&b, "  %-*s  %-8s  %s\n", m.width, "RUNTIME", "VERDICT", "REASON")
	}
	matches := 0
	for _, r := range results {
		verdict := "NO MATCH"
		if r.Compatible {
			verdict = "MATCH"
			matches++
		}
		line := fmt.Sprintf("  %-*s  %-8s  %s", m.width, runtimeText(r.Runtime), verdict, r.Reason)
		wrapTo(&b, strings.TrimRight(line, " "), m.lineWidth, 2+m.width+2+8+2)
	}
	if matches == 0 {
		m.unserved++
	}
	// The sizes that OME reads as 0, where the table shows the size check:
	// the model's, and the bounds of each runtime refused for its size.
	if len(results) > 0 {
		zeros := slices.Clone(m.zeroSizes[model])
		for _, r := range results {
			if strings.HasPrefix(r.Reason, "model size ") {
				for _, z := range m.zeroSizes[r.Runtime] {
					if !slices.Contains(zeros, z) {
						zeros = append(zeros, z)
					}
				}
			}
		}
		if len(zeros) > 0 {
			verb := "reads"
			if len(zeros) > 1 {
				verb = "read"
			}
			wrapTo(&b, fmt.Sprintf("  note: %s %s as 0: OME reads a size as a decimal number with an optional upper-case T, B or M, and any other text as 0 (evaluate lint: unparsed-size)",
				joinAnd(zeros), verb), m.lineWidth, 2)
		}
	}
	fmt.Fprintf(&b, "  %d compatible runtime(s)\n", matches)
	_, err := io.WriteString(m.w, b.String())
	return err
}

func (m *matchText) End(s results.MatchSummary) error {
	if m.models == 0 {
		return nil
	}
	line := matchTotals(m.models, m.unserved, s.LeftOut)
	var b strings.Builder
	b.WriteString("\n")
	wrapTo(&b, line, m.lineWidth, 0)
	_, err := io.WriteString(m.w, b.String())
	return err
}

// matchTotals is the last line of match's text and summary: the models,
// those with no compatible runtime, and the pairs OME never considers.
func matchTotals(models, unserved, leftOut int) string {
	line := fmt.Sprintf("%d model(s), %d with no compatible runtime", models, unserved)
	if leftOut > 0 {
		line += fmt.Sprintf("; %d pair(s) left out, which OME never considers (a BaseModel and a ServingRuntime of another namespace)", leftOut)
	}
	return line
}
