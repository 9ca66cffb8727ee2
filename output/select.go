package output

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/ome-policy/evaluator/engine"
)

// SelectResult is one InferenceService and OME's webhook decision on it.
type SelectResult struct {
	InferenceService engine.Ref `json:"inferenceService" yaml:"inferenceService"`
	engine.Decision  `yaml:",inline"`
}

// SelectWriter writes the results of `evaluate select`, and the inputs
// that could not be read (the machine-readable formats carry them).
type SelectWriter interface {
	Write(results []SelectResult, problems []Problem) error
}

// SelectFormats lists the -o values of select.
var SelectFormats = []string{"text", "json", "yaml"}

// NewSelectWriter returns the writer for format; release is the OME
// release whose rules gave the decisions, which the documents name.
func NewSelectWriter(format string, w io.Writer, release string) (SelectWriter, error) {
	switch format {
	case "text":
		return &selectText{w: w}, nil
	case "json":
		return &selectJSON{w: w, release: release}, nil
	case "yaml":
		return &selectYAML{w: w, release: release}, nil
	}
	return nil, unknownFormat(format, SelectFormats)
}

type selectJSON struct {
	w       io.Writer
	release string
}

// selectDocument is what -o json and -o yaml write.
type selectDocument struct {
	OMEVersion string         `json:"omeVersion" yaml:"omeVersion"`
	Decisions  []SelectResult `json:"decisions" yaml:"decisions"`
	Errors     []Problem      `json:"errors" yaml:"errors"`
}

func newSelectDocument(release string, results []SelectResult, problems []Problem) selectDocument {
	if results == nil {
		results = []SelectResult{}
	}
	if problems == nil {
		problems = []Problem{}
	}
	return selectDocument{OMEVersion: release, Decisions: results, Errors: problems}
}

func (s *selectJSON) Write(results []SelectResult, problems []Problem) error {
	enc := json.NewEncoder(s.w)
	enc.SetIndent("", "  ")
	return enc.Encode(newSelectDocument(s.release, results, problems))
}

type selectYAML struct {
	w       io.Writer
	release string
}

func (s *selectYAML) Write(results []SelectResult, problems []Problem) error {
	return encodeYAML(s.w, newSelectDocument(s.release, results, problems))
}

// selectText writes a block per InferenceService: the verdict, then what
// selection saw.
type selectText struct{ w io.Writer }

func (s *selectText) Write(results []SelectResult, _ []Problem) error {
	var b strings.Builder
	for i, r := range results {
		if i > 0 {
			b.WriteString("\n")
		}
		d := r.Decision
		fmt.Fprintf(&b, "%s\n", refText(r.InferenceService))
		switch {
		case d.Admitted && d.Selected != nil:
			fmt.Fprintf(&b, "  ADMITTED: OME selects %s\n", refText(*d.Selected))
		case d.Admitted:
			b.WriteString("  ADMITTED: no runtime selection (no engine, a named runtime, or a runner image of its own)\n")
		default:
			fmt.Fprintf(&b, "  REJECTED: %s\n", d.Message)
		}
		if d.Model != nil {
			fmt.Fprintf(&b, "  model: %s\n", refText(*d.Model))
		}
		if d.Selection {
			fmt.Fprintf(&b, "  checked %d runtime(s): %d namespace-scoped, %d cluster-scoped\n",
				d.Checked.Namespaced+d.Checked.Cluster, d.Checked.Namespaced, d.Checked.Cluster)
			if len(d.Candidates) > 0 {
				b.WriteString("  candidates, best first:\n")
				for j, c := range d.Candidates {
					fmt.Fprintf(&b, "    %d. %s (score %d)\n", j+1, refText(c.Ref), c.Score)
				}
			}
			if n := d.Checked.Namespaced + d.Checked.Cluster - len(d.Candidates) - len(d.Excluded); n > 0 {
				fmt.Fprintf(&b, "  %d compatible runtime(s) not selectable: no entry with autoSelect: true, or a score of 0\n", n)
			}
			if len(d.Excluded) > 0 {
				b.WriteString("  excluded:\n")
				for _, e := range d.Excluded {
					fmt.Fprintf(&b, "    %s: %s\n", refText(e.Ref), e.Reason)
					if e.HiddenBy != nil {
						fmt.Fprintf(&b, "      OME's message names %s once, with the reason of %s\n", e.Name, refText(*e.HiddenBy))
					}
				}
			}
		}
		for _, w := range d.Warnings {
			fmt.Fprintf(&b, "  warning: %s\n", w)
		}
	}
	_, err := io.WriteString(s.w, b.String())
	return err
}
