package output

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/results"
)

// SelectWriter writes the results of `evaluate select`, and the inputs
// that could not be read (the machine-readable formats carry them).
type SelectWriter interface {
	Write(results []results.SelectResult, problems []results.Problem) error
}

// SelectFormats lists the -o values of select.
var SelectFormats = []string{"text", "json", "yaml", "policyreport", "csv"}

// NewSelectWriter returns the writer for format; release is the OME
// release whose rules gave the decisions, which the documents name.
func NewSelectWriter(format string, w io.Writer, release string) (SelectWriter, error) {
	switch format {
	case "text":
		return &selectText{w: w, width: terminalWidth(w)}, nil
	case "json":
		return &selectJSON{w: w, release: release}, nil
	case "yaml":
		return &selectYAML{w: w, release: release}, nil
	case "policyreport":
		return &selectPolicyReport{w: w}, nil
	case "csv":
		return &selectCSV{w: w}, nil
	}
	return nil, UnknownFormat(format, SelectFormats)
}

type selectJSON struct {
	w       io.Writer
	release string
}

// selectDocument is what -o json and -o yaml write.
type selectDocument struct {
	OMEVersion string                 `json:"omeVersion" yaml:"omeVersion"`
	Decisions  []results.SelectResult `json:"decisions" yaml:"decisions"`
	Errors     []results.Problem      `json:"errors" yaml:"errors"`
	Clusters   []results.ClusterRead  `json:"clusters,omitempty" yaml:"clusters,omitempty"`
}

func newSelectDocument(release string, decisions []results.SelectResult, problems []results.Problem) selectDocument {
	if decisions == nil {
		decisions = []results.SelectResult{}
	}
	if problems == nil {
		problems = []results.Problem{}
	}
	return selectDocument{OMEVersion: release, Decisions: decisions, Errors: problems}
}

func (s *selectJSON) Write(results []results.SelectResult, problems []results.Problem) error {
	enc := json.NewEncoder(s.w)
	enc.SetIndent("", "  ")
	return enc.Encode(newSelectDocument(s.release, results, problems))
}

type selectYAML struct {
	w       io.Writer
	release string
}

func (s *selectYAML) Write(results []results.SelectResult, problems []results.Problem) error {
	return encodeYAML(s.w, newSelectDocument(s.release, results, problems))
}

// inlineExclusions is how many of a decision's excluded runtimes the text
// lists; -o json and -o yaml list every one.
const inlineExclusions = 10

// selectText writes a block per InferenceService: the verdict, then what
// selection saw. OME's message is shown once: when it ends with the
// excluded runtimes, they are listed one a line below its head, the first
// inlineExclusions of them. Lines are wrapped to width (0: never).
type selectText struct {
	w     io.Writer
	width int
}

func (s *selectText) Write(results []results.SelectResult, _ []results.Problem) error {
	var b strings.Builder
	line := func(format string, args ...any) {
		wrapTo(&b, fmt.Sprintf(format, args...), s.width, 0)
	}
	for i, r := range results {
		if i > 0 {
			b.WriteString("\n")
		}
		d := r.Decision
		line("%s", RefText(r.InferenceService))
		excludedShown := false
		switch {
		case d.Admitted && d.Selected != nil:
			line("  ADMITTED: OME selects %s", RefText(*d.Selected))
			if len(d.TiedWith) > 0 && len(d.Candidates) > 0 {
				line("  %s", TieText(d.Candidates[0].Score, d.TiedWith, d.TiePriority))
			}
		case d.Admitted:
			line("  ADMITTED: no runtime selection (no engine, a named runtime, or a runner image of its own)")
		default:
			if head, ok := messageHead(d); ok {
				line("  REJECTED: %s", head)
				writeExcluded(line, d.Excluded)
				excludedShown = true
			} else {
				line("  REJECTED: %s", d.Message)
			}
		}
		if d.Model != nil {
			line("  model: %s", RefText(*d.Model))
		}
		if d.Selection {
			line("  checked %d runtime(s): %d namespace-scoped, %d cluster-scoped",
				d.Checked.Namespaced+d.Checked.Cluster, d.Checked.Namespaced, d.Checked.Cluster)
			if len(d.Candidates) > 0 {
				line("  candidates, best first:")
				for j, c := range d.Candidates {
					line("    %d. %s (score %d)", j+1, RefText(c.Ref), c.Score)
				}
			}
			if len(d.Unselectable) > 0 {
				line("  %d compatible runtime(s) not selectable:", len(d.Unselectable))
				for j, u := range d.Unselectable {
					if j == inlineExclusions {
						line("    and %d more (-o json lists all)", len(d.Unselectable)-j)
						break
					}
					line("    %s: %s", RefText(u.Ref), u.Reason)
				}
			}
			if len(d.Excluded) > 0 && !excludedShown {
				line("  excluded:")
				writeExcluded(line, d.Excluded)
			}
		}
		for _, w := range d.Warnings {
			line("  warning: %s", w)
		}
		for _, f := range r.Rules {
			line("  %s by rule %s: %s", ruleVerdict[f.Severity], f.Rule, f.Message)
		}
	}
	_, err := io.WriteString(s.w, b.String())
	return err
}

// ruleVerdict is what a team's rule's finding does to an InferenceService.
var ruleVerdict = map[string]string{engine.SeverityError: "REFUSED", engine.SeverityWarning: "warned", engine.SeverityInfo: "noted"}

// excludedMark is where OME's message of a refusal starts listing the
// runtimes it excluded.
const excludedMark = ". Excluded runtimes: "

// messageHead is OME's message up to the runtimes it excluded, when the
// rest of it is exactly those runtimes (each name once, with its reason),
// which the text then lists one a line.
func messageHead(d engine.Decision) (string, bool) {
	i := strings.Index(d.Message, excludedMark)
	if i < 0 || len(d.Excluded) == 0 {
		return "", false
	}
	// Each name once, where it first comes, with the reason of the
	// runtime of that name that OME's message names (the one no other
	// hides).
	var names []string
	reasons := map[string]string{}
	for _, e := range d.Excluded {
		if _, seen := reasons[e.Name]; !seen {
			names = append(names, e.Name)
			reasons[e.Name] = ""
		}
		if e.HiddenBy == nil {
			reasons[e.Name] = e.Reason
		}
	}
	named := make([]string, len(names))
	for i, n := range names {
		named[i] = n + " (" + reasons[n] + ")"
	}
	if d.Message[i+len(excludedMark):] != strings.Join(named, "; ") {
		return "", false
	}
	return d.Message[:i+len(excludedMark)-1], true
}

// writeExcluded lists the first inlineExclusions of the excluded runtimes,
// then how many more there are.
func writeExcluded(line func(string, ...any), excluded []engine.Excluded) {
	for i, e := range excluded {
		if i == inlineExclusions {
			line("    and %d more (-o json lists all)", len(excluded)-i)
			return
		}
		line("    %s: %s", RefText(e.Ref), e.Reason)
		if e.HiddenBy != nil {
			line("      OME's message names %s once, with the reason of %s", e.Name, RefText(*e.HiddenBy))
		}
	}
}

// TieText says that OME chose a runtime by name alone: the others tie
// with it on score (and size distance), and priority would make the one
// meant win.
func TieText(score int64, tied []objects.Ref, priority int) string {
	texts := make([]string, len(tied))
	for i, r := range tied {
		texts[i] = RefText(r)
	}
	verb := "ties"
	if len(texts) > 1 {
		verb = "tie"
	}
	return fmt.Sprintf("tie: OME chose it by name alone: %s %s with it on score %d and size distance; set priority: %d on the entry of the runtime you mean to choose on purpose",
		joinAnd(texts), verb, score, priority)
}

// joinAnd joins texts as a sentence does: "a", "a and b", "a, b and c".
func joinAnd(texts []string) string {
	if len(texts) < 2 {
		return strings.Join(texts, "")
	}
	return strings.Join(texts[:len(texts)-1], ", ") + " and " + texts[len(texts)-1]
}

// ExplainTieText says of a runtime explained that OME picks between it and
// others for the model by name alone.
func ExplainTieText(runtime objects.Ref, t engine.Tie) string {
	texts := make([]string, len(t.TiedWith))
	for i, r := range t.TiedWith {
		texts[i] = RefText(r)
	}
	taken := "takes this one"
	if t.Selected != runtime {
		taken = "takes " + RefText(t.Selected)
	}
	return fmt.Sprintf("tie: OME picks between this runtime and %s by name alone for this model (score %d and size distance tie), and %s; set priority: %d on the entry of the runtime you mean to choose on purpose",
		joinAnd(texts), t.Score, taken, t.Priority)
}
