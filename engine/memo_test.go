package engine

import (
	"fmt"
	"maps"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ome-policy/evaluator/engine/rego"
	"github.com/ome-policy/evaluator/internal/reference/oracle"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/objects/synth"
)

// countingRego counts the models the Rego engine evaluates; the rest come
// from the verdict memo.
type countingRego struct {
	*rego.Matcher
	evaluated atomic.Int64
}

func (c *countingRego) MatchModel(model map[string]any, prepared any) ([]Verdict, error) {
	c.evaluated.Add(1)
	return c.Matcher.MatchModel(model, prepared)
}

// twinModels is models, then each model again under another name and with
// fields the policy does not read changed: the same verdicts, by another
// model.
func twinModels(models []map[string]any) []*objects.Object {
	out := generatedObjects(models)
	for i, m := range models {
		spec := maps.Clone(m["spec"].(map[string]any))
		spec["storage"] = map[string]any{"storageUri": fmt.Sprintf("hf://other/model-%d", i)}
		spec["displayName"] = fmt.Sprintf("twin %d", i)
		out = append(out, &objects.Object{APIVersion: objects.APIVersion, Kind: objects.KindClusterBaseModel, Name: fmt.Sprintf("twin-%d", i),
			Value: map[string]any{"metadata": map[string]any{"name": fmt.Sprintf("twin-%d", i)}, "spec": spec}})
	}
	return out
}

// The Rego engine shares verdicts between models that agree on the
// policy's model_fields, and its check tables between models that agree on
// the table's field, within the bounds; the verdicts stay the reference's
// whatever the bounds.
func TestRegoMemoBounds(t *testing.T) {
	ms, rs := synth.Cluster(5, 10, 120)
	models, runtimes := twinModels(ms), generatedObjects(rs)
	var want []Result
	require.NoError(t, matchAll(oracle.Matcher{}, models, runtimes, &want))
	m, err := rego.New(testPolicies(t))
	require.NoError(t, err)
	rm := m
	keys := map[string]bool{}
	for _, mo := range models {
		k, _, err := rm.ModelKey(mo.Spec())
		require.NoError(t, err)
		keys[k] = true
	}
	distinct := int64(len(keys))
	require.Equal(t, int64(len(ms)), distinct, "the generated models differ, and each has a twin")
	// One worker, so that a twin always comes after its first is done.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	for _, tc := range []struct {
		verdicts, cells int
		evaluated       int64
	}{
		{verdicts: 1 << 15, cells: 1 << 15, evaluated: distinct},
		{verdicts: 0, cells: 1 << 15, evaluated: int64(len(models))},
		{verdicts: 1 << 15, cells: 1, evaluated: distinct},
		{verdicts: 0, cells: 0, evaluated: int64(len(models))},
	} {
		savedVerdicts, savedCells := maxMemoVerdicts, rego.MaxTableCells
		maxMemoVerdicts, rego.MaxTableCells = tc.verdicts, tc.cells
		c := &countingRego{Matcher: rm}
		var got []Result
		err := matchAll(c, models, runtimes, &got)
		maxMemoVerdicts, rego.MaxTableCells = savedVerdicts, savedCells
		require.NoError(t, err)
		require.Equal(t, want, got, "bounds %+v", tc)
		require.Equal(t, tc.evaluated, c.evaluated.Load(), "bounds %+v", tc)
	}
}

// A model's key is its model_fields: other fields do not change it, each of
// those does.
func TestRegoModelKey(t *testing.T) {
	m, err := rego.New(testPolicies(t))
	require.NoError(t, err)
	rm := m
	require.ElementsMatch(t, []string{"diffusionPipeline", "modelArchitecture", "modelFormat", "modelFramework", "modelParameterSize", "quantization"}, rm.ModelFields())
	base := map[string]any{
		"modelFormat":       map[string]any{"name": "safetensors", "version": "1.0.0"},
		"modelFramework":    map[string]any{"name": "transformers", "version": "4.45.0"},
		"modelArchitecture": "LlamaForCausalLM",
		"displayName":       "llama",
	}
	key := func(model map[string]any) string {
		k, ok, err := rm.ModelKey(model)
		require.NoError(t, err)
		require.True(t, ok)
		return k
	}
	other := maps.Clone(base)
	other["displayName"] = "another"
	other["storage"] = map[string]any{"storageUri": "hf://x/y"}
	require.Equal(t, key(base), key(other))
	for _, f := range rm.ModelFields() {
		changed := maps.Clone(base)
		changed[f] = "something else"
		require.NotEqual(t, key(base), key(changed), f)
	}
}

// The verdict memo keeps the latest keys only; a key being evaluated makes
// the others wait for its verdicts.
func TestVerdictMemo(t *testing.T) {
	saved := maxMemoVerdicts
	maxMemoVerdicts = 20
	defer func() { maxMemoVerdicts = saved }()
	m := newVerdictMemo(10) // keeps 2 keys
	a, mine := m.claim("a")
	require.True(t, mine)
	got := make(chan []Verdict)
	go func() {
		e, mine := m.claim("a")
		if mine {
			got <- nil
			return
		}
		<-e.done
		got <- e.verdicts
	}()
	want := []Verdict{{Compatible: true}}
	a.finish(want, nil)
	require.Equal(t, want, <-got)
	_, mine = m.claim("b")
	require.True(t, mine)
	_, mine = m.claim("a")
	require.False(t, mine, "a is one of the 2 latest keys")
	_, mine = m.claim("c")
	require.True(t, mine)
	_, mine = m.claim("a")
	require.True(t, mine, "a was let go for c")
}

// countingBatch counts how often a batch matcher prepares the runtimes and
// hands them to a worker.
type countingBatch struct {
	batchMatcher
	prepared, workers atomic.Int64
}

func (c *countingBatch) Prepare(runtimes []map[string]any) (any, error) {
	c.prepared.Add(1)
	return c.batchMatcher.Prepare(runtimes)
}

func (c *countingBatch) ForWorker(prepared any) any {
	c.workers.Add(1)
	return c.batchMatcher.ForWorker(prepared)
}

// The workers share one preparation of the runtimes, each with memos of its
// own, and the verdicts are the reference's however many workers there
// are (go test -race shows that they only read what they share).
func TestWorkersShareThePreparedRuntimes(t *testing.T) {
	ms, rs := synth.ShapedCluster(7, 24, 90, synth.Many)
	models, runtimes := generatedObjects(ms), generatedObjects(rs)
	var want []Result
	require.NoError(t, matchAll(oracle.Matcher{}, models, runtimes, &want))
	for _, name := range []string{CEL, Rego} {
		ms, err := Matchers(name, testPolicies(t))
		require.NoError(t, err)
		for _, procs := range []int{1, 4} {
			saved := runtime.GOMAXPROCS(procs)
			c := &countingBatch{batchMatcher: ms[0].(batchMatcher)}
			var got []Result
			err := matchAll(c, models, runtimes, &got)
			runtime.GOMAXPROCS(saved)
			require.NoError(t, err)
			require.Equal(t, want, got, "%s with %d workers", name, procs)
			require.Equal(t, int64(1), c.prepared.Load(), "%s with %d workers", name, procs)
			require.Equal(t, int64(procs), c.workers.Load(), "%s with %d workers", name, procs)
		}
	}
}
