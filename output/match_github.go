package output

import (
	"fmt"
	"io"
	"strings"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/results"
)

// matchGitHub writes a workflow annotation (an error) on each model that
// no runtime OME pairs it with accepts, at the model's file and line, with
// each runtime's reason; an input that could not be read is an error
// annotation too; a plain summary line ends the output, as text's does.
type matchGitHub struct {
	w        io.Writer
	where    map[engine.Ref]*objects.Object
	models   int
	unserved int
	cluster  *results.Cluster // of a fleet's results (fleet.go): named in each annotation
}

func (m *matchGitHub) Begin(models, _ []*objects.Object) error {
	m.where = make(map[engine.Ref]*objects.Object, len(models))
	for _, o := range models {
		if _, seen := m.where[objects.RefOf(o)]; !seen {
			m.where[objects.RefOf(o)] = o
		}
	}
	return nil
}

func (m *matchGitHub) Model(model engine.Ref, results []engine.Result) error {
	m.models++
	for _, r := range results {
		if r.Compatible {
			return nil
		}
	}
	m.unserved++
	message := "no runtime that OME pairs it with was given"
	if len(results) > 0 {
		lines := make([]string, len(results))
		for i, r := range results {
			lines[i] = runtimeText(r.Runtime) + ": " + r.Reason
		}
		message = fmt.Sprintf("none of the %d runtime(s) OME pairs it with accepts it:\n%s", len(results), strings.Join(lines, "\n"))
	}
	file, line := "", 0
	if o := m.where[model]; o != nil {
		file, line = o.File, o.Line
	}
	_, err := io.WriteString(m.w, GitHubAnnotation("error", file, line, "no compatible runtime ("+RefText(model)+")"+inClusterTitle(m.cluster), message))
	return err
}

func (m *matchGitHub) End(s results.MatchSummary) error {
	var b strings.Builder
	for _, p := range s.Problems {
		message := p.Message
		if p.Field != "" {
			message = p.Field + ": " + message
		}
		b.WriteString(GitHubAnnotation("error", p.File, p.Line, "input-error"+inClusterTitle(m.cluster), message))
	}
	if m.cluster != nil {
		b.WriteString("cluster " + m.cluster.Name + ": ")
	}
	fmt.Fprintf(&b, "%d model(s), %d with no compatible runtime", m.models, m.unserved)
	if s.LeftOut > 0 {
		fmt.Fprintf(&b, "; %d pair(s) left out, which OME never considers", s.LeftOut)
	}
	b.WriteString("\n")
	_, err := io.WriteString(m.w, b.String())
	return err
}
