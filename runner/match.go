package runner

import (
	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/output"
)

// Matches matches every model against the runtimes OME pairs it with and
// writes the results to w, each model's as soon as they are known, then
// the summary; each, when not nil, is called before each model's results
// are written (what the engine prepared is live then). unserved says
// whether some model has no compatible runtime.
func Matches(w output.MatchWriter, m engine.Matcher, release string, ms, rs []*objects.Object, problems []*objects.InputError, each func()) (unserved bool, err error) {
	if err := w.Begin(ms, rs); err != nil {
		return false, err
	}
	leftOut, err := engine.MatchObjects(m, ms, rs, func(mo *objects.Object, results []engine.Result) error {
		if each != nil {
			each()
		}
		served := false
		for _, r := range results {
			served = served || r.Compatible
		}
		unserved = unserved || !served
		return w.Model(objects.RefOf(mo), results)
	})
	if err != nil {
		return false, err
	}
	return unserved, w.End(output.MatchSummary{OMEVersion: release, LeftOut: leftOut, Problems: output.Problems(problems)})
}
