package report

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/input"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/output"
	"github.com/ome-policy/evaluator/policies/policyset"
	"github.com/ome-policy/evaluator/results"
)

// loadInput reads models, runtimes and InferenceServices as the command
// does (strictly; model folders with -m).
func loadInput(t *testing.T, engineName string, models, runtimes, services []string) Input {
	t.Helper()
	set, err := policyset.Embedded()
	require.NoError(t, err)
	in := Input{Engine: engineName, Policies: set}
	in.Models, err = input.Load(models, input.LoadOptions{ModelFolders: true})
	require.NoError(t, err)
	in.Runtimes, err = input.Load(runtimes, input.LoadOptions{})
	require.NoError(t, err)
	if len(services) > 0 {
		objs, err := input.Load(services, input.LoadOptions{ModelFolders: true})
		require.NoError(t, err)
		for _, o := range objs {
			if o.Kind == objects.KindInferenceService {
				in.Services = append(in.Services, o)
			} else {
				in.Others = append(in.Others, o)
			}
		}
	}
	return in
}

func catalogInput(t *testing.T) Input {
	cat := filepath.Join("..", "testdata", "catalog")
	return loadInput(t, "cel", []string{filepath.Join(cat, "models")}, []string{filepath.Join(cat, "runtimes")}, nil)
}

// catalogExpectations is what the engine says of the catalog, computed
// here in-process, independently of the page's data.
type catalogExpectations struct {
	rowCount, colCount []int
	sample             [][2]int // pairs to open: model, runtime
	explanations       map[[2]int]engine.Explanation
	matchJSON          map[[2]int]string // the pair's result as evaluate match -o json prints it
	explainJSON        map[[2]int]string // its explanation as evaluate explain -o json prints it
	scores             map[[2]int]int64  // selectable pairs: the webhook's score
}

func expectedCatalog(t *testing.T, in Input) catalogExpectations {
	t.Helper()
	M, R := len(in.Models), len(in.Runtimes)
	exp := catalogExpectations{rowCount: make([]int, M), colCount: make([]int, R),
		explanations: map[[2]int]engine.Explanation{}, matchJSON: map[[2]int]string{}, explainJSON: map[[2]int]string{},
		scores: map[[2]int]int64{}}
	m, err := engine.New(in.Engine, in.Policies)
	require.NoError(t, err)
	byPair := map[[2]int]engine.Result{}
	var compatible, disabled, other [][2]int
	i := 0
	leftOut, err := engine.MatchObjects(m, in.Models, in.Runtimes, func(_ *objects.Object, rs []engine.Result) error {
		// The catalog is cluster-scoped: every model meets every runtime.
		require.Len(t, rs, R)
		for j, r := range rs {
			byPair[[2]int{i, j}] = r
			switch {
			case r.Compatible:
				exp.rowCount[i]++
				exp.colCount[j]++
				compatible = append(compatible, [2]int{i, j})
			case r.Reason == "runtime is disabled":
				disabled = append(disabled, [2]int{i, j})
			default:
				other = append(other, [2]int{i, j})
			}
		}
		i++
		return nil
	})
	require.NoError(t, err)
	require.Zero(t, leftOut)
	require.Equal(t, M, i)
	// Every 20th compatible pair, a disabled runtime, and every 700th other.
	for n := 0; n < len(compatible); n += 20 {
		exp.sample = append(exp.sample, compatible[n])
	}
	if len(disabled) > 0 {
		exp.sample = append(exp.sample, disabled[0])
	}
	for n := 0; n < len(other); n += 700 {
		exp.sample = append(exp.sample, other[n])
	}
	x, err := engine.NewExplainer(in.Engine, in.Policies)
	require.NoError(t, err)
	sel, err := engine.NewSelector(in.Engine, in.Policies)
	require.NoError(t, err)
	probed := map[int]bool{}
	for _, p := range exp.sample {
		mo, ru := in.Models[p[0]], in.Runtimes[p[1]]
		e, err := x.Explain(mo, ru)
		require.NoError(t, err)
		exp.explanations[p] = e
		var b bytes.Buffer
		w, _ := output.NewExplainWriter("json", &b, output.Style{}, in.Policies.Release)
		require.NoError(t, w.Write([]engine.Explanation{e}, nil))
		var ed struct{ Explanations []json.RawMessage }
		require.NoError(t, json.Unmarshal(b.Bytes(), &ed))
		exp.explainJSON[p] = string(ed.Explanations[0])

		b.Reset()
		mw, _ := output.NewMatchWriter("json", &b)
		require.NoError(t, mw.Begin(nil, nil))
		require.NoError(t, mw.Model(byPair[p].Model, []engine.Result{byPair[p]}))
		require.NoError(t, mw.End(results.MatchSummary{}))
		var md struct{ Results []json.RawMessage }
		require.NoError(t, json.Unmarshal(b.Bytes(), &md))
		exp.matchJSON[p] = string(md.Results[0])

		// The webhook on an InferenceService of the model, with every
		// runtime of the catalog (all cluster-scoped) in view.
		if byPair[p].Compatible && !probed[p[0]] {
			probed[p[0]] = true
			isvc, err := probeService(mo, "default")
			require.NoError(t, err)
			d, err := sel.Select(isvc, append([]*objects.Object{mo}, in.Runtimes...))
			require.NoError(t, err)
			for _, c := range d.Candidates {
				for j, r := range in.Runtimes {
					if objects.RefOf(r) == c.Ref {
						exp.scores[[2]int{p[0], j}] = c.Score
					}
				}
			}
		}
	}
	return exp
}
