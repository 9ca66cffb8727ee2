package engine

import (
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ome-policy/evaluator/internal/reference"
	"github.com/ome-policy/evaluator/internal/reference/oracle"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/objects/synth"
	"github.com/ome-policy/evaluator/policies/policyset"
)

func testPolicies(t testing.TB) *policyset.Set {
	t.Helper()
	set, err := policyset.Embedded()
	require.NoError(t, err)
	return set
}

// forEachRelease runs fn, as a subtest, on the policies of each OME release
// the embedded policies state, the newest first.
func forEachRelease(t *testing.T, fn func(t *testing.T, set *policyset.Set)) {
	t.Helper()
	all := testPolicies(t)
	for _, r := range all.Releases() {
		set, err := all.ForRelease(r)
		require.NoError(t, err)
		t.Run(r, func(t *testing.T) { fn(t, set) })
	}
}

// testMatchers are the engines on the newest release's policies and the
// plain-Go reference on that release.
func testMatchers(t testing.TB) map[string]Matcher {
	t.Helper()
	return releaseMatchers(t, testPolicies(t))
}

// releaseMatchers are the engines on set, and the plain-Go reference on
// set's release. The reference states every release the policies state: it
// writes the meaning of versions and sizes apart from package builtins, so
// that beside the engines it checks theirs.
func releaseMatchers(t testing.TB, set *policyset.Set) map[string]Matcher {
	t.Helper()
	require.Contains(t, reference.Releases(), set.Release, "the plain-Go reference does not state OME %s", set.Release)
	out := map[string]Matcher{"reference": oracle.Matcher{Release: set.Release}}
	for _, name := range Names {
		m, err := New(name, set)
		require.NoError(t, err)
		out[name] = m
	}
	return out
}

// gen makes random models and runtimes from small pools, so that names and
// versions collide often and every rule is exercised.
type gen struct{ r *rand.Rand }

func (g gen) pick(xs ...string) string { return xs[g.r.Intn(len(xs))] }
func (g gen) maybe(p float64) bool     { return g.r.Float64() < p }

var genVersions = []string{
	"1.0.0", "1.0", "1", "v1.0.0", "v1", "1.0.1", "2.0.0", "4.45.0", "4.46.0", "4.46.1", "4.46", "4.45", "4.9.0", "4.10.0",
	"4.45.0.dev0", "4.45.0-dev0", "4.45.0-rc.1+b", "4.45.0+b", "1.2.3.4", "0.0.0", "", "01.0.0", "1.0-rc1",
	"4.45.dev0", "latest", "V1.0.0", "18446744073709551615", "18446744073709551616", "4.45.0.dev0.post1",
}

func (g gen) version() string { return genVersions[g.r.Intn(len(genVersions))] }

func (g gen) versioned(names ...string) map[string]any {
	m := map[string]any{}
	if g.maybe(0.95) {
		m["name"] = g.pick(names...)
	}
	if g.maybe(0.8) {
		m["version"] = g.version()
	}
	return m
}

func (g gen) component() map[string]any {
	c := map[string]any{}
	if g.maybe(0.7) {
		c["library"] = g.pick("diffusers", "transformers", "")
	}
	if g.maybe(0.7) {
		c["type"] = g.pick("A", "B", "")
	}
	return c
}

func (g gen) pipeline() map[string]any {
	p := map[string]any{}
	if g.maybe(0.5) {
		p["className"] = g.pick("FluxPipeline", "QwenImagePipeline", "")
	}
	for _, c := range []string{"scheduler", "textEncoder", "tokenizer", "transformer", "vae"} {
		if g.maybe(0.25) {
			p[c] = g.component()
		}
	}
	if g.maybe(0.3) {
		ac := map[string]any{}
		for _, k := range []string{"tokenizer_2", "text_encoder_2", "unet"} {
			if g.maybe(0.5) {
				ac[k] = g.component()
			}
		}
		p["additionalComponents"] = ac
	}
	return p
}

func (g gen) common(m map[string]any) {
	if g.maybe(0.7) {
		m["modelArchitecture"] = g.pick("LlamaForCausalLM", "MistralForCausalLM", "")
	}
	if g.maybe(0.2) {
		m["quantization"] = g.pick("fp8", "int4")
	}
	if g.maybe(0.15) {
		m["diffusionPipeline"] = g.pipeline()
	}
}

func (g gen) model() map[string]any {
	m := map[string]any{}
	if g.maybe(0.97) {
		m["modelFormat"] = g.versioned("safetensors", "SafeTensors", "pytorch", "")
	}
	if g.maybe(0.85) {
		m["modelFramework"] = g.versioned("transformers", "diffusers", "Transformers")
	}
	g.common(m)
	if g.maybe(0.3) {
		// Sizes in other units than the bounds', near them, so that a wrong
		// unit or a bound read as exclusive changes a verdict.
		m["modelParameterSize"] = g.pick("7B", "8B", "3.21B", "500M", "1.5T", "huge",
			"8000M", "8001M", "6999M", "0.5T", "1000B", "1001B", "7000000000", "NaN")
	}
	return m
}

func (g gen) entry() map[string]any {
	e := map[string]any{}
	if g.maybe(0.95) {
		f := g.versioned("safetensors", "SafeTensors", "pytorch")
		if g.maybe(0.5) {
			f["operator"] = g.pick("Equal", "GreaterThan", "GreaterThanOrEqual", "", "LessThan", "greaterthan")
		}
		e["modelFormat"] = f
	}
	if g.maybe(0.9) {
		f := g.versioned("transformers", "diffusers", "Transformers")
		if g.maybe(0.6) {
			f["operator"] = g.pick("Equal", "GreaterThan", "GreaterThanOrEqual", "", "LessThan")
		}
		e["modelFramework"] = f
	}
	g.common(e)
	return e
}

// entryFor makes an entry that resembles the model: a copy of its fields
// with a few changed, dropped or given operators, the way real runtimes
// nearly match real models.
func (g gen) entryFor(model map[string]any) map[string]any {
	if g.maybe(0.2) {
		return g.entry()
	}
	e := deepCopy(model).(map[string]any)
	delete(e, "modelParameterSize")
	other := g.entry()
	for _, k := range []string{"modelFormat", "modelFramework", "modelArchitecture", "quantization", "diffusionPipeline"} {
		if g.maybe(0.12) {
			if v, ok := other[k]; ok {
				e[k] = v
			} else {
				delete(e, k)
			}
		}
	}
	for _, k := range []string{"modelFormat", "modelFramework"} {
		if f, ok := e[k].(map[string]any); ok && g.maybe(0.4) {
			f["operator"] = g.pick("Equal", "GreaterThan", "GreaterThanOrEqual", "", "LessThan")
			if g.maybe(0.5) {
				f["version"] = g.version()
			}
		}
	}
	return e
}

func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = deepCopy(e)
		}
		return l
	}
	return v
}

func (g gen) runtime(model map[string]any) map[string]any {
	r := map[string]any{}
	n := g.r.Intn(4)
	if n > 0 || g.maybe(0.5) {
		entries := make([]any, n)
		for i := range entries {
			entries[i] = g.entryFor(model)
		}
		r["supportedModelFormats"] = entries
	}
	if g.maybe(0.1) {
		r["disabled"] = g.maybe(0.5)
	}
	if g.maybe(0.3) {
		rng := map[string]any{}
		if g.maybe(0.9) {
			rng["min"] = g.pick("1B", "7B", "500M", "7000M", "0.007T")
		}
		if g.maybe(0.9) {
			rng["max"] = g.pick("8B", "70B", "1T", "1000B", "8000M")
		}
		r["modelSizeRange"] = rng
	}
	return r
}

// CEL, Rego and the plain-Go reference agree on random pairs of every OME
// release, entries and reasons included.
func TestEnginesAgreeOnRandomPairs(t *testing.T) {
	forEachRelease(t, testEnginesAgreeOnRandomPairs)
}

func testEnginesAgreeOnRandomPairs(t *testing.T, set *policyset.Set) {
	n := 3000
	if testing.Short() {
		n = 300
	}
	ms := releaseMatchers(t, set)
	const first = "reference"
	g := gen{rand.New(rand.NewSource(20261129))}
	compatible := 0
	for i := 0; i < n; i++ {
		model := g.model()
		runtime := g.runtime(model)
		want, err := ms[first].Match(model, runtime)
		require.NoError(t, err)
		if want.Compatible {
			compatible++
		}
		for _, name := range []string{CEL, Rego, Both} {
			got, err := ms[name].Match(model, runtime)
			require.NoError(t, err, "pair %d [%s]\nmodel %v\nruntime %v", i, name, model, runtime)
			if !reflect.DeepEqual(want, got) {
				t.Fatalf("pair %d [%s] differs from the reference\nmodel   %v\nruntime %v\nwant %+v\ngot  %+v", i, name, model, runtime, want, got)
			}
		}
	}
	// The generator must reach both verdicts often enough to mean something.
	require.Greater(t, compatible, n/50, "too few compatible pairs: %d of %d", compatible, n)
	require.Less(t, compatible, n-n/5)
}

func TestBothReportsDisagreement(t *testing.T) {
	b := &bothMatcher{cel: fixed{Verdict{Compatible: true}}, rego: fixed{Verdict{Reason: "x"}}}
	_, err := b.Match(nil, nil)
	var d *DisagreementError
	require.ErrorAs(t, err, &d)
	require.Contains(t, err.Error(), "engines disagree")
}

type fixed struct{ v Verdict }

func (f fixed) Name() string { return "fixed" }
func (f fixed) Match(_, _ map[string]any) (Verdict, error) {
	return f.v, nil
}

func TestNewRejectsUnknownEngine(t *testing.T) {
	_, err := New("wasm", testPolicies(t))
	require.EqualError(t, err, fmt.Sprintf("unknown engine %q (want cel, rego, both)", "wasm"))
}

// generatedObjects makes objects of the values Generate returns.
func generatedObjects(vals []map[string]any) []*objects.Object {
	out := make([]*objects.Object, len(vals))
	for i, v := range vals {
		meta := v["metadata"].(map[string]any)
		out[i] = &objects.Object{APIVersion: objects.APIVersion, Kind: v["kind"].(string), Name: meta["name"].(string), Value: v}
	}
	return out
}

// MatchObjects on a generated cluster, with every core: every engine gives
// the reference's verdicts, in input order.
func TestMatchObjectsOnGeneratedCluster(t *testing.T) {
	// Many runtimes, so that one Rego query sees many distinct entries.
	ms, rs := synth.Cluster(1, 4, 700)
	if testing.Short() {
		ms, rs = synth.Cluster(1, 3, 200)
	}
	models, runtimes := generatedObjects(ms), generatedObjects(rs)
	var want []Result
	require.NoError(t, matchAll(oracle.Matcher{}, models, runtimes, &want))
	require.Len(t, want, len(models)*len(runtimes))
	for name, m := range testMatchers(t) {
		var got []Result
		require.NoError(t, matchAll(m, models, runtimes, &got))
		require.Len(t, got, len(want), name)
		for i := range want {
			require.Equal(t, want[i], got[i], "%s: pair %d", name, i)
		}
	}
}

// NewForDecisions gives, on every engine and release, the verdicts of New
// as far as a decision reads them: whether each pair is compatible and each
// entry's result, in the same order. On CEL an incompatible pair has no
// reason; the other engines give New's verdicts whole.
func TestNewForDecisions(t *testing.T) {
	ms, rs := synth.Cluster(2, 6, 150)
	models, runtimes := generatedObjects(ms), generatedObjects(rs)
	forEachRelease(t, func(t *testing.T, set *policyset.Set) {
		for _, name := range Names {
			full, err := New(name, set)
			require.NoError(t, err)
			var want []Result
			require.NoError(t, matchAll(full, models, runtimes, &want))
			decisions, err := NewForDecisions(name, set)
			require.NoError(t, err)
			var got []Result
			require.NoError(t, matchAll(decisions, models, runtimes, &got))
			require.Len(t, got, len(want), name)
			incompatible := 0
			for i := range want {
				if name == CEL {
					require.Empty(t, got[i].Reason, "%s: pair %d", name, i)
					got[i].Reason = want[i].Reason
				}
				require.Equal(t, want[i], got[i], "%s: pair %d", name, i)
				if !want[i].Compatible {
					incompatible++
				}
			}
			require.Positive(t, incompatible, "%s: the cluster has pairs that do not match", name)
		}
	})
}

// matchAll runs MatchObjects and appends every result to out.
func matchAll(m Matcher, models, runtimes []*objects.Object, out *[]Result) error {
	_, err := MatchObjects(m, models, runtimes, func(_ *objects.Object, rs []Result) error {
		*out = append(*out, rs...)
		return nil
	})
	return err
}

// MatchObjects pairs as OME scopes: a BaseModel meets the ServingRuntimes
// of its own namespace and every ClusterServingRuntime; a ClusterBaseModel
// meets every runtime. Each model gets its results, none for a model that
// meets no runtime, and the pairs left out are counted.
func TestMatchObjectsScopesByNamespace(t *testing.T) {
	object := func(kind, ns, name string) *objects.Object {
		meta := map[string]any{"name": name}
		if ns != "" {
			meta["namespace"] = ns
		}
		spec := map[string]any{"modelFormat": map[string]any{"name": "safetensors"}}
		if strings.HasSuffix(kind, "Runtime") {
			spec = map[string]any{"supportedModelFormats": []any{map[string]any{"modelFormat": map[string]any{"name": "safetensors"}}}}
		}
		return &objects.Object{APIVersion: objects.APIVersion, Kind: kind, Namespace: ns, Name: name,
			Value: map[string]any{"apiVersion": objects.APIVersion, "kind": kind, "metadata": meta, "spec": spec}}
	}
	models := []*objects.Object{
		object("BaseModel", "team-a", "a"),
		object("BaseModel", "team-b", "b"),
		object("ClusterBaseModel", "", "c"),
		object("BaseModel", "team-c", "lonely"),
	}
	runtimes := []*objects.Object{
		object("ServingRuntime", "team-a", "sr-a"),
		object("ClusterServingRuntime", "", "csr"),
		object("ServingRuntime", "team-b", "sr-b"),
	}
	for name, m := range testMatchers(t) {
		got := map[string][]string{}
		var order []string
		leftOut, err := MatchObjects(m, models, runtimes, func(mo *objects.Object, rs []Result) error {
			order = append(order, mo.Name)
			got[mo.Name] = []string{}
			for _, r := range rs {
				require.Equal(t, objects.RefOf(mo), r.Model)
				got[mo.Name] = append(got[mo.Name], r.Runtime.Name)
			}
			return nil
		})
		require.NoError(t, err, name)
		require.Equal(t, []string{"a", "b", "c", "lonely"}, order, name)
		require.Equal(t, map[string][]string{
			"a":      {"sr-a", "csr"},
			"b":      {"csr", "sr-b"},
			"c":      {"sr-a", "csr", "sr-b"},
			"lonely": {"csr"},
		}, got, name)
		require.Equal(t, 4, leftOut, name) // a-sr-b, b-sr-a, lonely-sr-a, lonely-sr-b
	}
}
