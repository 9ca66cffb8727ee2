package answer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ome-policy/evaluator/objects"
)

// VersionText is a version as written, parsed: what the explain policies
// say of it. Numbers are as written, without the v.
type VersionText struct {
	Text    string   `json:"text" yaml:"text"`
	Valid   bool     `json:"valid" yaml:"valid"`
	Problem string   `json:"problem" yaml:"problem"`
	V       bool     `json:"v" yaml:"v"`
	Parts   int      `json:"parts" yaml:"parts"`
	Numbers []string `json:"numbers" yaml:"numbers"`
	Dev     []string `json:"dev" yaml:"dev"`
	Pre     []string `json:"pre" yaml:"pre"`
	Build   []string `json:"build" yaml:"build"`
}

// CheckVersions are the two versions a format or framework check compared,
// and the entry's operator; nil where a side sets none.
type CheckVersions struct {
	Operator *string      `json:"operator" yaml:"operator"`
	Model    *VersionText `json:"model" yaml:"model"`
	Entry    *VersionText `json:"entry" yaml:"entry"`
}

// Check is one check of an entry (pipeline, architecture, quantization,
// format, framework) or of the runtime (disabled, size), in evaluate's
// words. Rule is the rule of the chosen release that decided it, where a
// later release has another ("does not compare diffusion pipelines"),
// without the release's name; "" otherwise.
type Check struct {
	Check    string         `json:"check" yaml:"check"`
	Passed   bool           `json:"passed" yaml:"passed"`
	Summary  string         `json:"summary" yaml:"summary"`
	Details  []string       `json:"details" yaml:"details"`
	Fix      string         `json:"fix" yaml:"fix"`
	Rule     string         `json:"rule" yaml:"rule"`
	Versions *CheckVersions `json:"versions" yaml:"versions"`
}

// EntryExplanation is one entry: whether it matches and the checks that
// explain it. Differences are this entry's part of OME's reason, as the
// chosen release words it: [] where that reason quotes no entry (a release
// whose reason gives the model's label alone, a disabled runtime, a runtime
// with an entry that matches).
type EntryExplanation struct {
	Index       int      `json:"index" yaml:"index"`
	Matched     bool     `json:"matched" yaml:"matched"`
	Differences []string `json:"differences" yaml:"differences"`
	Checks      []Check  `json:"checks" yaml:"checks"`
}

// Explanation is a verdict on one model and one runtime, check by check.
// Compatible and Reason are OME's, from the match policies, unchanged.
// ReasonRule is the chosen release's rule for its reason where a later
// release words it otherwise, without the release's name ("" otherwise).
type Explanation struct {
	Model         objects.Ref        `json:"model" yaml:"model"`
	Runtime       objects.Ref        `json:"runtime" yaml:"runtime"`
	Compatible    bool               `json:"compatible" yaml:"compatible"`
	Reason        string             `json:"reason" yaml:"reason"`
	ReasonRule    string             `json:"reasonRule" yaml:"reasonRule"`
	RuntimeChecks []Check            `json:"runtimeChecks" yaml:"runtimeChecks"`
	Entries       []EntryExplanation `json:"entries" yaml:"entries"`
	Notes         []string           `json:"notes" yaml:"notes"`
	Advice        []string           `json:"advice" yaml:"advice"`
	// Tie, when not nil, says that OME picks between this runtime and
	// others for the model by name alone (select's decision on an
	// InferenceService of the model where the runtime's scope decides).
	Tie *Tie `json:"tie" yaml:"tie"`
}

// Tie is OME's choice among runtimes that tie for a model on all but the
// name (score and size distance, in one scope): it takes Selected, the
// first by name; TiedWith are the others of the tie but the runtime
// explained. Priority would make any of them win (select's tiePriority).
type Tie struct {
	Selected objects.Ref   `json:"selected" yaml:"selected"`
	TiedWith []objects.Ref `json:"tiedWith" yaml:"tiedWith"`
	Score    int64         `json:"score" yaml:"score"`
	Priority int           `json:"priority" yaml:"priority"`
}

// explainParts is what the explain policies give: the runtime's checks,
// notes and advice, and each entry's checks.
type explainParts struct {
	Runtime struct {
		Checks        []Check  `json:"checks"`
		Notes         []string `json:"notes"`
		Advice        []string `json:"advice"`
		QuotesEntries bool     `json:"quotesEntries"`
		ReasonRule    string   `json:"reasonRule"`
	} `json:"runtime"`
	Entries [][]Check `json:"entries"`
}

// decodeParts converts the policies' plain values into explainParts,
// refusing any other shape.
func decodeParts(v any) (explainParts, error) {
	var p explainParts
	b, err := json.Marshal(v)
	if err != nil {
		return p, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return p, fmt.Errorf("the explain policies gave an unexpected shape: %w", err)
	}
	return p, nil
}

// combine puts OME's verdict and the policies' checks together, and checks
// that they tell the same story: an entry matches exactly when all its
// checks pass.
func combine(model, runtime *objects.Object, v Verdict, p explainParts) (Explanation, error) {
	e := Explanation{
		Model: objects.RefOf(model), Runtime: objects.RefOf(runtime),
		Compatible: v.Compatible, Reason: v.Reason, ReasonRule: p.Runtime.ReasonRule,
		RuntimeChecks: p.Runtime.Checks, Notes: p.Runtime.Notes, Advice: p.Runtime.Advice,
		Entries: []EntryExplanation{},
	}
	if len(p.Entries) != len(v.Entries) {
		return e, fmt.Errorf("the explain policies gave %d entries, the match policies %d", len(p.Entries), len(v.Entries))
	}
	if p.Runtime.QuotesEntries && !strings.HasSuffix(v.Reason, Details(v.Entries)) {
		return e, fmt.Errorf("the explain policies say OME's reason quotes the entries' differences, but it is %q", v.Reason)
	}
	for i, er := range v.Entries {
		checks := p.Entries[i]
		passed := true
		for j := range checks {
			normaliseCheck(&checks[j])
			passed = passed && checks[j].Passed
		}
		if passed != er.Matched {
			return e, fmt.Errorf("entry %d: the explain policies say its checks %s, but the match policies say it %s", i,
				map[bool]string{true: "all pass", false: "do not all pass"}[passed], map[bool]string{true: "matches", false: "does not match"}[er.Matched])
		}
		diffs := er.Differences
		if diffs == nil || !p.Runtime.QuotesEntries {
			diffs = []string{}
		}
		e.Entries = append(e.Entries, EntryExplanation{Index: i, Matched: er.Matched, Differences: diffs, Checks: checks})
	}
	for j := range e.RuntimeChecks {
		normaliseCheck(&e.RuntimeChecks[j])
	}
	for _, s := range []*[]string{&e.Notes, &e.Advice} {
		if *s == nil {
			*s = []string{}
		}
	}
	if e.RuntimeChecks == nil {
		e.RuntimeChecks = []Check{}
	}
	return e, nil
}

// normaliseCheck makes empty lists [] rather than null, so both engines
// and every output format agree.
func normaliseCheck(c *Check) {
	if c.Details == nil {
		c.Details = []string{}
	}
	if c.Versions == nil {
		return
	}
	for _, v := range []*VersionText{c.Versions.Model, c.Versions.Entry} {
		if v == nil {
			continue
		}
		for _, l := range []*[]string{&v.Numbers, &v.Dev, &v.Pre, &v.Build} {
			if *l == nil {
				*l = []string{}
			}
		}
	}
}

// ExplanationFrom puts OME's verdict v (from the match policies) and the
// explain policies' output, as plain values, together into an Explanation,
// refusing an output of any other shape or one that tells another story
// than the verdict.
func ExplanationFrom(model, runtime *objects.Object, v Verdict, parts any) (Explanation, error) {
	p, err := decodeParts(parts)
	if err != nil {
		return Explanation{}, err
	}
	return combine(model, runtime, v, p)
}
