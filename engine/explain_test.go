package engine

import (
	"github.com/ome-policy/evaluator/input"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/ome-policy/evaluator/policies/policyset"

	"github.com/stretchr/testify/require"

	"github.com/ome-policy/evaluator/objects"
)

func testExplainers(t testing.TB) map[string]Explainer {
	t.Helper()
	return releaseExplainers(t, testPolicies(t))
}

func releaseExplainers(t testing.TB, set *policyset.Set) map[string]Explainer {
	t.Helper()
	out := map[string]Explainer{}
	for _, name := range Names {
		x, err := NewExplainer(name, set)
		require.NoError(t, err)
		out[name] = x
	}
	return out
}

func specObject(kind, name string, spec map[string]any) *objects.Object {
	return &objects.Object{Kind: kind, Name: name, File: "test.yaml", Line: 1,
		Value: map[string]any{"apiVersion": objects.APIVersion, "kind": kind, "metadata": map[string]any{"name": name}, "spec": spec}}
}

func explainFiles(t testing.TB, x Explainer, model, runtime string) Explanation {
	t.Helper()
	ms, err := input.Load([]string{model}, input.LoadOptions{})
	require.NoError(t, err)
	rs, err := input.Load([]string{runtime}, input.LoadOptions{})
	require.NoError(t, err)
	e, err := x.Explain(ms[0], rs[0])
	require.NoError(t, err)
	return e
}

// The seed's example: framework 4.46.0 against srt-llama-3-2-3b-instruct's
// entry 4.45.0.dev0. OME's reason, and the suffix rule named.
func TestExplainSeedExample(t *testing.T) {
	for name, x := range testExplainers(t) {
		ms, err := input.Load([]string{"../testdata/examples/models/more-models.yaml"}, input.LoadOptions{})
		require.NoError(t, err)
		rs, err := input.Load([]string{"../testdata/examples/runtimes/srt-llama-3-2-3b-instruct.yaml"}, input.LoadOptions{})
		require.NoError(t, err)
		e, err := x.Explain(ms[0], rs[0])
		require.NoError(t, err, name)
		require.False(t, e.Compatible)
		require.Equal(t, "model format 'mt:safetensors:1.0.0:LlamaForCausalLM:transformers:4.46.0' not in supported formats: framework version mismatch (model=4.46.0, runtime=4.45.0.dev0)", e.Reason)
		require.Len(t, e.Entries, 1)
		fw := e.Entries[0].Checks[4]
		require.Equal(t, "framework", fw.Check)
		require.False(t, fw.Passed)
		require.Contains(t, strings.Join(fw.Details, "\n"), "has a suffix, so every operator means equality: it accepts only a version equal to 4.45.0.dev0")
		require.NotEmpty(t, fw.Fix)
		require.Equal(t, &VersionText{Text: "4.45.0.dev0", Valid: true, Parts: 3, Numbers: []string{"4", "45", "0"},
			Dev: []string{"dev0"}, Pre: []string{}, Build: []string{}}, fw.Versions.Entry)
		require.Nil(t, fw.Versions.Operator)
		require.Equal(t, []string{"framework version mismatch (model=4.46.0, runtime=4.45.0.dev0)"}, e.Entries[0].Differences)
		require.NotEmpty(t, e.Advice)
		for _, c := range e.Entries[0].Checks[:4] {
			require.True(t, c.Passed, c.Check)
			require.Empty(t, c.Fix)
		}
	}
}

// The user page's second entry: GreaterThanOrEqual is an upper limit, and
// the model's suffix forces equality.
func TestExplainUpperLimit(t *testing.T) {
	x := testExplainers(t)[Both]
	e := explainFiles(t, x, "../testdata/examples/models/llama-3-2-3b-instruct.yaml", "../testdata/examples/runtimes/llama-transformers-up-to-4-46.yaml")
	fw := e.Entries[0].Checks[4]
	require.Contains(t, fw.Details, "entry 4.46.0 GreaterThanOrEqual accepts 3-part versions without v or suffix up to 4.46.0; the model's 4.45.0.dev0 has a suffix, so only an equal version would match")
	require.Equal(t, "GreaterThanOrEqual", *fw.Versions.Operator)

	e = explainFiles(t, x, "../testdata/examples/models/more-models.yaml", "../testdata/examples/runtimes/llama-transformers-up-to-4-46.yaml")
	require.True(t, e.Compatible)
	require.Empty(t, e.Advice)
}

// Each way a check can go, on both engines: the check that fails, and words
// that must be in its explanation.
func TestExplainChecks(t *testing.T) {
	st := func(v string) map[string]any { return map[string]any{"name": "safetensors", "version": v} }
	tf := func(v, op string) map[string]any {
		m := map[string]any{"name": "transformers", "version": v}
		if op != "" {
			m["operator"] = op
		}
		return m
	}
	model := func(fw map[string]any) map[string]any {
		m := map[string]any{"modelFormat": st("1.0.0")}
		if fw != nil {
			m["modelFramework"] = fw
		}
		return m
	}
	entry := func(fw map[string]any) map[string]any {
		m := map[string]any{"modelFormat": st("1.0.0")}
		if fw != nil {
			m["modelFramework"] = fw
		}
		return m
	}
	for _, tc := range []struct {
		name         string
		model, entry map[string]any
		check        string // the failing check, "" when all pass
		words        []string
	}{
		{"ordering accepts below", model(tf("4.44.2", "")), entry(tf("4.46.0", "GreaterThanOrEqual")), "", []string{"the model's 4.44.2 is below 4.46.0"}},
		{"ordering is an upper limit", model(tf("4.47.0", "")), entry(tf("4.46.0", "GreaterThanOrEqual")), "framework", []string{"upper limit, not a lower one", "raise the entry's version to 4.47.0"}},
		{"GreaterThan excludes itself", model(tf("4.46.0", "")), entry(tf("4.46.0", "GreaterThan")), "framework", []string{"is not below 4.46.0", "use GreaterThanOrEqual"}},
		{"parts differ", model(tf("4.46", "")), entry(tf("4.46.0", "GreaterThanOrEqual")), "framework", []string{"has 2 numbers, not 3"}},
		{"v on one side", model(tf("4.45.0", "")), entry(tf("v4.46.0", "GreaterThanOrEqual")), "framework", []string{"entry's v4.46.0 has a v and the model's does not", "with a v and no suffix"}},
		{"unknown operator", model(tf("1.0", "")), entry(tf("1.0.0", "LessThan")), "framework", []string{`operator: "LessThan", which is not one OME knows`, "has 2 numbers, not 3"}},
		{"Equal ignores parts and v", model(tf("v1.0", "")), entry(tf("1.0.0", "Equal")), "", []string{"the model's v1.0 is equal"}},
		{"invalid version", model(tf("4.45.dev0", "")), entry(tf("4.46.0", "")), "framework", []string{"does not parse: number 3", "fix the model's version 4.45.dev0"}},
		{"empty version", model(tf("4.46.0", "")), entry(tf("", "")), "framework", []string{"the entry's version does not parse", "the version is empty"}},
		{"entry requires a version", model(map[string]any{"name": "transformers"}), entry(tf("4.46.0", "")), "framework", []string{"set the model's modelFramework.version yourself"}},
		{"model has a version, entry none", model(tf("4.46.0", "")), entry(map[string]any{"name": "transformers"}), "framework", []string{"give the entry's modelFramework a version that accepts 4.46.0"}},
		{"no framework on the model", model(nil), entry(tf("4.46.0", "")), "framework", []string{"the entry requires framework transformers; the model has none"}},
		{"no framework on the entry", model(tf("4.46.0", "")), entry(nil), "framework", []string{"add modelFramework: {name: transformers}"}},
		{"names differ in case", map[string]any{"modelFormat": map[string]any{"name": "SafeTensors"}}, map[string]any{"modelFormat": map[string]any{"name": "safetensors"}}, "format", []string{"only in case"}},
		{"entry without a format", model(nil), map[string]any{}, "format", []string{"the entry has no modelFormat"}},
		{"architecture", map[string]any{"modelFormat": st("1.0.0"), "modelArchitecture": "A"}, map[string]any{"modelFormat": st("1.0.0"), "modelArchitecture": "B"}, "architecture", []string{"model A, entry B"}},
		{"quantization on the entry only", model(nil), map[string]any{"modelFormat": st("1.0.0"), "quantization": "fp8"}, "quantization", []string{"the entry requires fp8"}},
		{"pipeline", model(nil), map[string]any{"modelFormat": st("1.0.0"), "diffusionPipeline": map[string]any{"className": "FluxPipeline"}}, "pipeline", []string{"diffusion pipeline required by runtime but not specified in model"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := specObject(objects.KindClusterBaseModel, "m", tc.model)
			r := specObject(objects.KindClusterServingRuntime, "r", map[string]any{"supportedModelFormats": []any{tc.entry}})
			e, err := testExplainers(t)[Both].Explain(m, r)
			require.NoError(t, err)
			var failing []string
			var text []string
			for _, c := range e.Entries[0].Checks {
				if !c.Passed {
					failing = append(failing, c.Check)
					require.NotEmpty(t, c.Fix, c.Check)
				}
				text = append(text, c.Summary, c.Fix)
				text = append(text, c.Details...)
			}
			if tc.check == "" {
				require.Empty(t, failing)
				require.True(t, e.Compatible)
			} else {
				require.Equal(t, []string{tc.check}, failing)
			}
			for _, w := range tc.words {
				require.Contains(t, strings.Join(text, "\n"), w)
			}
		})
	}
}

func TestExplainRuntimeChecks(t *testing.T) {
	x := testExplainers(t)[Both]
	m := specObject(objects.KindClusterBaseModel, "m", map[string]any{"modelFormat": map[string]any{"name": "onnx"}, "modelParameterSize": "9B"})
	r := specObject(objects.KindClusterServingRuntime, "r", map[string]any{
		"disabled":              true,
		"modelSizeRange":        map[string]any{"max": "8B"},
		"supportedModelFormats": []any{map[string]any{"modelFormat": map[string]any{"name": "onnx"}, "autoSelect": true}},
	})
	e, err := x.Explain(m, r)
	require.NoError(t, err)
	require.Equal(t, "runtime is disabled", e.Reason)
	require.Equal(t, "disabled", e.RuntimeChecks[0].Check)
	require.False(t, e.RuntimeChecks[0].Passed)
	require.Equal(t, "model size 9B is outside [unbounded, 8B]", e.RuntimeChecks[1].Summary)
	require.Len(t, e.RuntimeChecks[1].Details, 1)
	require.Empty(t, e.Notes, "an entry has autoSelect: true")
	require.True(t, e.Entries[0].Matched)
}

// CEL and Rego explain random pairs alike, and every explanation agrees
// with the match policies' verdict (Explain checks that itself).
func TestExplainEnginesAgreeOnRandomPairs(t *testing.T) {
	forEachRelease(t, testExplainEnginesAgreeOnRandomPairs)
}

func testExplainEnginesAgreeOnRandomPairs(t *testing.T, set *policyset.Set) {
	n := 1500
	if testing.Short() {
		n = 200
	}
	xs := releaseExplainers(t, set)
	g := gen{rand.New(rand.NewSource(77))}
	for i := 0; i < n; i++ {
		model := g.model()
		m := specObject(objects.KindClusterBaseModel, "m", model)
		r := specObject(objects.KindClusterServingRuntime, "r", g.runtime(model))
		c, err := xs[CEL].Explain(m, r)
		require.NoError(t, err, "pair %d\nmodel %v\nruntime %v", i, m.Value, r.Value)
		rg, err := xs[Rego].Explain(m, r)
		require.NoError(t, err, "pair %d\nmodel %v\nruntime %v", i, m.Value, r.Value)
		if !reflect.DeepEqual(c, rg) {
			t.Fatalf("pair %d: engines disagree\nmodel %v\nruntime %v\ncel  %+v\nrego %+v", i, m.Value, r.Value, c, rg)
		}
	}
}
