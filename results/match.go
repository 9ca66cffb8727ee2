package results

import (
	"fmt"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/objects"
)

// MatchWriter writes the results of `evaluate match` as they come: Begin
// once, Model for each model with its results (the runtimes OME pairs it
// with, in input order), End once.
type MatchWriter interface {
	Begin(models, runtimes []*objects.Object) error
	Model(model engine.Ref, results []engine.Result) error
	End(s MatchSummary) error
}

// MatchSummary is what a match run says after its results.
type MatchSummary struct {
	// OMEVersion is the OME release whose rules gave the results.
	OMEVersion string `json:"omeVersion" yaml:"omeVersion"`
	// LeftOut counts the pairs OME never considers (objects.InScope).
	LeftOut int `json:"leftOut" yaml:"leftOut"`
	// Problems are the inputs that could not be read; the machine-readable
	// formats carry them as entries.
	Problems []Problem `json:"errors" yaml:"errors"`
	// Clusters are a fleet's clusters (cluster.go); none for one run.
	Clusters []ClusterRead `json:"clusters,omitempty" yaml:"clusters,omitempty"`
}

// Problem is an input that could not be read, as the machine-readable
// formats give it.
type Problem struct {
	File    string `json:"file" yaml:"file"`
	Line    int    `json:"line" yaml:"line"`
	Field   string `json:"field" yaml:"field"`
	Message string `json:"message" yaml:"message"`
	// Cluster is the cluster of a fleet whose input it is (cluster.go).
	Cluster *Cluster `json:"cluster,omitempty" yaml:"cluster,omitempty"`
}

// Problems turns input errors into Problems ([] for none).
func Problems(errs []*objects.InputError) []Problem {
	out := make([]Problem, len(errs))
	for i, e := range errs {
		msg := e.Msg
		if e.Case != "" {
			msg = fmt.Sprintf("case %q: %s", e.Case, msg)
		}
		out[i] = Problem{File: e.File, Line: e.Line, Field: e.Field, Message: msg}
	}
	return out
}

// SelectionWriter is a MatchWriter that also shows, for each model, the
// runtime OME's selection would choose for it (-o summary): the command
// calls ModelSelected instead of Model.
type SelectionWriter interface {
	MatchWriter
	// ModelSelected writes a model's results with the runtime that
	// selection chooses (nil for none).
	ModelSelected(model engine.Ref, results []engine.Result, selected *engine.Ref) error
}
