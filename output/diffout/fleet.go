package diffout

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/ome-policy/evaluator/diff"
	"github.com/ome-policy/evaluator/results"
)

// FleetWriter writes the diffs of a fleet (--cluster with several
// contexts): text, markdown and github as one report a cluster, each
// headed by its cluster (markdown's marker once, github's titles naming
// the cluster); json as one document, {"diffs": [...], "clusters": [...]},
// each diff the document of one run with its "cluster".
type FleetWriter struct {
	format string
	w      io.Writer
	n      int
}

// NewFleetWriter returns the fleet writer of format.
func NewFleetWriter(format string, w io.Writer) (*FleetWriter, error) {
	if _, err := NewWriter(format, w); err != nil {
		return nil, err
	}
	return &FleetWriter{format: format, w: w}, nil
}

// Cluster writes the diff of the cluster c.
func (f *FleetWriter) Cluster(c results.Cluster, r *diff.Report, s Sides) error {
	s.Cluster, s.later = &c, f.n > 0
	first := f.n == 0
	f.n++
	var head string
	switch f.format {
	case "json":
		head = ",\n"
		if first {
			head = "{\"diffs\": [\n"
		}
	case "text", "github":
		if !first {
			head = "\n"
		}
		head += "=== " + c.Header() + "\n"
	case "markdown":
		if !first {
			head = "\n"
		}
	}
	if _, err := io.WriteString(f.w, head); err != nil {
		return err
	}
	if f.format == "json" {
		var b bytes.Buffer
		if err := (&diffJSON{w: &b}).Write(r, s); err != nil {
			return err
		}
		_, err := f.w.Write(bytes.TrimRight(b.Bytes(), "\n"))
		return err
	}
	w, _ := NewWriter(f.format, f.w)
	return w.Write(r, s)
}

// Close ends the output: json's document names every cluster.
func (f *FleetWriter) Close(clusters []results.ClusterRead) error {
	if f.format != "json" {
		return nil
	}
	head := "\n],\n"
	if f.n == 0 {
		head = "{\"diffs\": [],\n"
	}
	b, err := json.MarshalIndent(clusters, "", "  ")
	if err != nil {
		return err
	}
	_, err = io.WriteString(f.w, head+"\"clusters\": "+string(b)+"}\n")
	return err
}

// inCluster is what a github title says of a fleet's cluster.
func inCluster(s Sides) string {
	if s.Cluster == nil {
		return ""
	}
	return " in cluster " + s.Cluster.Name
}
