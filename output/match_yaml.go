package output

import (
	"io"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/results"
)

// matchYAML writes the same document as -o json, in YAML, one result at a
// time.
type matchYAML struct {
	w       io.Writer
	count   int
	cluster *results.Cluster // of a fleet's results (fleet.go); nil for one run
}

// clusterResult is a result of a fleet, with its cluster.
type clusterResult struct {
	engine.Result `yaml:",inline"`
	Cluster       *results.Cluster `yaml:"cluster"`
}

func (m *matchYAML) Begin(_, _ []*objects.Object) error { return nil }

func (m *matchYAML) Model(_ engine.Ref, results []engine.Result) error {
	if len(results) == 0 {
		return nil
	}
	if m.count == 0 {
		if _, err := io.WriteString(m.w, "results:\n"); err != nil {
			return err
		}
	}
	m.count += len(results)
	out := make([]engine.Result, len(results))
	for i, r := range results {
		out[i] = normalise(r)
	}
	if m.cluster != nil {
		withCluster := make([]clusterResult, len(out))
		for i, r := range out {
			withCluster[i] = clusterResult{r, m.cluster}
		}
		return encodeYAML(m.w, withCluster)
	}
	return encodeYAML(m.w, out)
}

func (m *matchYAML) End(s results.MatchSummary) error {
	if m.count == 0 {
		if _, err := io.WriteString(m.w, "results: []\n"); err != nil {
			return err
		}
	}
	if s.Problems == nil {
		s.Problems = []results.Problem{}
	}
	return encodeYAML(m.w, s)
}

// encodeYAML writes v as YAML indented by two.
func encodeYAML(w io.Writer, v any) error {
	var b strings.Builder
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// normalise makes empty lists print as [] rather than null.
func normalise(r engine.Result) engine.Result {
	if r.Entries == nil {
		r.Entries = []engine.EntryResult{}
	}
	for i := range r.Entries {
		if r.Entries[i].Differences == nil {
			r.Entries[i].Differences = []string{}
		}
	}
	return r
}
