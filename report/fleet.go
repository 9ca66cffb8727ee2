package report

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/ome-policy/evaluator/results"
)

// A fleet's page: the page of each cluster in one file, a cluster shown at
// a time. The page's header lists the clusters (a row a cluster, with its
// counts, and why one could not be read) and a cluster filter chooses the
// cluster the matrix and the lists show. The data and explanations of the
// first cluster read are the page's own (so that a page of one cluster and
// Documents read as they do); every cluster's are in a block of their own.

// FleetCluster is one cluster of a fleet's page: its input, or why it
// could not be read.
type FleetCluster struct {
	Cluster results.Cluster
	In      Input
	Error   string
}

// fleetEntry is what the fleet block holds of a cluster.
type fleetEntry struct {
	Cluster results.Cluster `json:"cluster"`
	Error   string          `json:"error,omitempty"`
	Summary *Summary        `json:"summary,omitempty"`
	Main    json.RawMessage `json:"main,omitempty"`
	Explain json.RawMessage `json:"explain,omitempty"`
}

// WriteFleet evaluates each cluster's input and writes one page of them
// all; the summary adds the clusters' counts up.
func WriteFleet(w io.Writer, clusters []FleetCluster) (Summary, error) {
	var total Summary
	var entries []fleetEntry
	var data, explain []byte
	for _, c := range clusters {
		e := fleetEntry{Cluster: c.Cluster, Error: c.Error}
		if c.Error == "" {
			pd, sum, err := compute(c.In)
			if err != nil {
				return total, err
			}
			e.Main = pd.t.encode(0, pd.split, pd.mainRoot, true)
			e.Explain = pd.t.encode(pd.split, len(pd.t.nodes), pd.explainRoot, false)
			s := sum
			e.Summary = &s
			total.Models += sum.Models
			total.Runtimes += sum.Runtimes
			total.Compatible += sum.Compatible
			total.Unserved += sum.Unserved
			total.Rejected += sum.Rejected
			if data == nil {
				if data, err = encodeData(e.Main); err != nil {
					return total, err
				}
				if explain, err = encodeData(e.Explain); err != nil {
					return total, err
				}
			}
		}
		entries = append(entries, e)
	}
	doc, err := json.Marshal(map[string]any{"clusters": entries})
	if err != nil {
		return total, err
	}
	fleet, err := encodeData(doc)
	if err != nil {
		return total, err
	}
	total.DataBytes = len(data) + len(explain) + len(fleet)
	page, err := render(data, explain, fleet)
	if err != nil {
		return total, err
	}
	_, err = w.Write(page)
	return total, err
}

// WriteFleetJSON writes, as one JSON document, what each cluster's page is
// built from (WriteJSON's document, with its "cluster"), and the clusters:
// {"reports": [...], "clusters": [...]}.
func WriteFleetJSON(w io.Writer, clusters []FleetCluster) (Summary, error) {
	var total Summary
	var b bytes.Buffer
	b.WriteString(`{"reports": [`)
	var read []results.ClusterRead
	n := 0
	for _, c := range clusters {
		read = append(read, results.ClusterRead{Cluster: c.Cluster, Error: c.Error})
		if c.Error != "" {
			continue
		}
		var one bytes.Buffer
		sum, err := WriteJSON(&one, c.In)
		if err != nil {
			return total, err
		}
		total.Models += sum.Models
		total.Runtimes += sum.Runtimes
		total.Compatible += sum.Compatible
		total.Unserved += sum.Unserved
		total.Rejected += sum.Rejected
		cl, _ := json.Marshal(c.Cluster)
		if n > 0 {
			b.WriteString(",")
		}
		n++
		b.WriteString(`{"cluster": `)
		b.Write(cl)
		b.WriteString(",")
		b.Write(bytes.TrimPrefix(bytes.TrimSpace(one.Bytes()), []byte("{")))
	}
	b.WriteString(`], "clusters": `)
	cl, err := json.Marshal(read)
	if err != nil {
		return total, err
	}
	b.Write(cl)
	b.WriteString("}")
	var out bytes.Buffer
	if err := json.Indent(&out, b.Bytes(), "", "  "); err != nil {
		return total, err
	}
	out.WriteString("\n")
	_, err = w.Write(out.Bytes())
	return total, err
}
