package output

import (
	"io"

	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/results"
)

// The documents of a run with no result: a format for programs writes one
// even then, with the input's problems only, so that whatever reads it
// can. Each is the format's own writer given nothing.

// WriteNoMatches writes match's document of no model, on release.
func WriteNoMatches(format string, w io.Writer, release string, problems []*objects.InputError) error {
	mw, err := NewMatchWriter(format, w)
	if err != nil {
		return err
	}
	if err := mw.Begin(nil, nil); err != nil {
		return err
	}
	return mw.End(results.MatchSummary{OMEVersion: release, Problems: results.Problems(problems)})
}

// WriteNoSelections writes select's document of no InferenceService.
func WriteNoSelections(format string, w io.Writer, release string, problems []*objects.InputError) error {
	sw, err := NewSelectWriter(format, w, release)
	if err != nil {
		return err
	}
	return sw.Write(nil, results.Problems(problems))
}

// WriteNoExplanations writes explain's document of no pair.
func WriteNoExplanations(format string, w io.Writer, release string, problems []*objects.InputError) error {
	ew, err := NewExplainWriter(format, w, Style{}, release)
	if err != nil {
		return err
	}
	return ew.Write(nil, results.Problems(problems))
}
