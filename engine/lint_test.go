package engine

import (
	"fmt"
	"math/rand"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ome-policy/evaluator/input"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/policies/policyset"
)

func testLinters(t testing.TB) map[string]Linter {
	t.Helper()
	return releaseLinters(t, testPolicies(t))
}

func releaseLinters(t testing.TB, set *policyset.Set) map[string]Linter {
	t.Helper()
	out := map[string]Linter{}
	for _, name := range Names {
		l, err := NewLinter(name, set)
		require.NoError(t, err)
		out[name] = l
	}
	return out
}

func lintPaths(t testing.TB, l Linter, cross bool, paths ...string) []Finding {
	t.Helper()
	objs, err := input.Load(paths, input.LoadOptions{Lenient: true})
	require.NoError(t, err)
	fs, err := Lint(l, objs, LintOptions{CrossCheck: cross})
	require.NoError(t, err)
	return fs
}

// fixtureRules names the rule each fixture under testdata/lint/bad plants.
var fixtureRules = map[string]string{
	"duplicate-name.yaml":                           "duplicate-name",
	"empty-version.yaml":                            "empty-version",
	"ignored-field.yaml":                            "ignored-field",
	"ignored-field-model-operator.yaml":             "ignored-field",
	"incomplete-size-range.yaml":                    "incomplete-size-range",
	"invalid-version.yaml":                          "invalid-version",
	"missing-format.yaml":                           "missing-format",
	"missing-framework.yaml":                        "missing-framework",
	"missing-framework-model.yaml":                  "missing-framework",
	"name-case.yaml":                                "name-case",
	"name-case-frequency.yaml":                      "name-case",
	"non-string-version.yaml":                       "non-string-version",
	"operator-without-version.yaml":                 "operator-without-version",
	"ordering-operator-with-suffix.yaml":            "ordering-operator-with-suffix",
	"unknown-deployment-mode.yaml":                  "unknown-deployment-mode",
	"unknown-deployment-mode-inferenceservice.yaml": "unknown-deployment-mode",
	"unknown-operator.yaml":                         "unknown-operator",
	"unread-field.yaml":                             "unread-field",
	"unparsed-size.yaml":                            "unparsed-size",
	"wrong-type.yaml":                               "wrong-type",
	"zero-weight.yaml":                              "zero-weight",
	"implicit-autoselect.yaml":                      "implicit-autoselect",
}

// Each fixture plants one problem: exactly one finding, of its rule, on
// every engine, with or without the cross-check.
func TestLintFixtures(t *testing.T) {
	files, err := filepath.Glob("../testdata/lint/bad/*.yaml")
	require.NoError(t, err)
	require.Len(t, files, len(fixtureRules), "every fixture is in fixtureRules")
	for name, l := range testLinters(t) {
		for _, f := range files {
			rule := fixtureRules[filepath.Base(f)]
			t.Run(name+"/"+filepath.Base(f), func(t *testing.T) {
				require.NotEmpty(t, rule, "fixture %s has no rule in fixtureRules", f)
				for _, cross := range []bool{false, true} {
					fs := lintPaths(t, l, cross, f)
					var rules []string
					for _, x := range fs {
						rules = append(rules, x.Rule)
					}
					require.Equal(t, []string{rule}, rules, "cross-check %v: %+v", cross, fs)
					require.Equal(t, f, fs[0].File)
					require.Positive(t, fs[0].Line)
					require.NotEmpty(t, fs[0].Message)
				}
			})
		}
	}
}

// The planted problems with their file, line, severity and field.
func TestLintFixtureLocations(t *testing.T) {
	l := testLinters(t)[Both]
	fs := lintPaths(t, l, false, "../testdata/lint/bad")
	var got []string
	for _, f := range fs {
		got = append(got, fmt.Sprintf("%s:%d %s %s %s", filepath.Base(f.File), f.Line, f.Severity, f.Rule, f.Field))
	}
	require.Equal(t, []string{
		"duplicate-name.yaml:14 warning duplicate-name metadata.name",
		"empty-version.yaml:12 error empty-version spec.modelFramework.version",
		"ignored-field-model-operator.yaml:14 warning ignored-field spec.modelFramework.operator",
		"ignored-field.yaml:8 warning ignored-field spec.supportedModelFormats[0].version",
		"implicit-autoselect.yaml:14 warning implicit-autoselect spec.supportedModelFormats[1]",
		"incomplete-size-range.yaml:10 error incomplete-size-range spec.modelSizeRange",
		"invalid-version.yaml:13 error invalid-version spec.supportedModelFormats[0].modelFramework.version",
		"missing-format.yaml:8 error missing-format spec.supportedModelFormats[0].modelFormat",
		"missing-framework-model.yaml:8 warning missing-framework spec.modelFramework",
		"missing-framework.yaml:8 error missing-framework spec.supportedModelFormats[0].modelFramework",
		"name-case-frequency.yaml:28 warning name-case spec.supportedModelFormats[0].modelFramework.name",
		"name-case.yaml:8 warning name-case spec.modelFormat.name",
		"non-string-version.yaml:13 error non-string-version spec.supportedModelFormats[0].modelFramework.version",
		"operator-without-version.yaml:13 warning operator-without-version spec.supportedModelFormats[0].modelFramework.operator",
		"ordering-operator-with-suffix.yaml:15 warning ordering-operator-with-suffix spec.supportedModelFormats[0].modelFramework.operator",
		`unknown-deployment-mode-inferenceservice.yaml:13 warning unknown-deployment-mode spec.engine.annotations["ome.io/deploymentMode"]`,
		`unknown-deployment-mode.yaml:17 warning unknown-deployment-mode spec.engineConfig.annotations["ome.io/deploymentMode"]`,
		"unknown-operator.yaml:14 error unknown-operator spec.supportedModelFormats[0].modelFramework.operator",
		"unparsed-size.yaml:14 error unparsed-size spec.modelSizeRange.max",
		"unread-field.yaml:16 warning unread-field spec.acceleratorRequirements.minComputeCapability",
		"wrong-type.yaml:10 error wrong-type spec.supportedModelFormats[0].autoSelect",
		"zero-weight.yaml:9 warning zero-weight spec.supportedModelFormats[0].modelFormat.weight",
	}, got)
	require.Equal(t, Ref{Kind: objects.KindClusterServingRuntime, Name: "twice"}, fs[0].Object)
}

// Clean objects get no finding, even cross-checked; neither do the bundled
// examples, apart from the top-level version of one runtime.
func TestLintClean(t *testing.T) {
	for name, l := range testLinters(t) {
		require.Empty(t, lintPaths(t, l, false, "../testdata/lint/clean"), name)
		require.Empty(t, lintPaths(t, l, true, "../testdata/lint/clean"), name)
		fs := lintPaths(t, l, false, "../testdata/examples/models", "../testdata/examples/runtimes")
		require.Len(t, fs, 1, name)
		require.Equal(t, "ignored-field", fs[0].Rule)
	}
}

func TestLintCrossCheck(t *testing.T) {
	for name, l := range testLinters(t) {
		fs := lintPaths(t, l, true, "../testdata/lint/cross-check/unmatched-model.yaml")
		var got []string
		for _, f := range fs {
			got = append(got, fmt.Sprintf("%d %s %s %s", f.Line, f.Severity, f.Rule, f.Field))
		}
		require.Equal(t, []string{
			"8 warning unmatched-model spec",
			"20 info unreachable-entry spec.supportedModelFormats[0]",
			"23 info unreachable-entry spec.supportedModelFormats[1]",
		}, got, name)
		require.Contains(t, fs[0].Message, "the closest miss is ClusterServingRuntime srt-llama-dev entry 0: framework version mismatch (model=4.46.0, runtime=4.45.0.dev0)", name)
		require.Contains(t, fs[2].Message, "architecture mismatch (model=LlamaForCausalLM, runtime=MistralForCausalLM), framework version mismatch", name)

		fs = lintPaths(t, l, true, "../testdata/lint/cross-check/unreachable-entry.yaml")
		require.Len(t, fs, 1, name)
		require.Equal(t, "unreachable-entry", fs[0].Rule)
		require.Equal(t, Ref{Kind: objects.KindClusterServingRuntime, Name: "mistral-only"}, fs[0].Object)

		fs = lintPaths(t, l, true, "../testdata/lint/cross-check/selection-tie.yaml")
		require.Len(t, fs, 1, name)
		require.Equal(t, "selection-tie", fs[0].Rule)
		require.Equal(t, Ref{Kind: objects.KindClusterBaseModel, Name: "llama-3-1-8b"}, fs[0].Object)
		require.Contains(t, fs[0].Message, "ClusterServingRuntime sglang-llama and ClusterServingRuntime vllm-llama tie on score 2", name)

		// Without the cross-check, nothing.
		require.Empty(t, lintPaths(t, l, false, "../testdata/lint/cross-check"), name)
	}
}

// On OME's own catalog: the four duplicate runtime names and the ignored
// top-level versions, and no error.
func TestLintCatalogRuntimes(t *testing.T) {
	for _, name := range []string{CEL, Rego} {
		fs := lintPaths(t, testLinters(t)[name], false, "../testdata/catalog/runtimes")
		count := map[string]int{}
		var dups []string
		for _, f := range fs {
			require.NotEqual(t, SeverityError, f.Severity, "%+v", f)
			count[f.Rule]++
			if f.Rule == "duplicate-name" {
				dups = append(dups, f.Object.Name)
			} else {
				require.Equal(t, "ignored-field", f.Rule)
				require.Regexp(t, `^spec\.supportedModelFormats\[\d\]\.version$`, f.Field)
			}
		}
		sort.Strings(dups)
		require.Equal(t, []string{"srt-llama-3-2-11b-vision-instruct", "srt-mixtral-8x7b-instruct", "srt-qwen2-5-32b-instruct", "srt-qwen3-embedding-0-6b"}, dups, name)
		require.Equal(t, 43, count["ignored-field"], name)
	}
}

func TestLintSortsByFileLineRule(t *testing.T) {
	fs := lintPaths(t, testLinters(t)[CEL], false, "../testdata/lint/bad", "../testdata/lint/clean")
	require.True(t, sort.SliceIsSorted(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Rule < b.Rule
	}))
}

// mess gives a generated object's fields the wrong types now and then, as
// lenient loading lets through.
func (g gen) mess(v any, depth int) any {
	if depth > 0 && g.maybe(0.04) {
		switch g.r.Intn(6) {
		case 0:
			return int64(g.r.Intn(3))
		case 1:
			return 4.4
		case 2:
			return g.maybe(0.5)
		case 3:
			return []any{"1.0.0"}
		case 4:
			return map[string]any{"a": "b"}
		default:
			return "text"
		}
	}
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = g.mess(e, depth+1)
		}
	case []any:
		for i, e := range x {
			x[i] = g.mess(e, depth+1)
		}
	}
	return v
}

// CEL and Rego give the same findings on random, often broken, objects,
// cross-check included.
func TestLintEnginesAgreeOnRandomObjects(t *testing.T) {
	forEachRelease(t, testLintEnginesAgreeOnRandomObjects)
}

func testLintEnginesAgreeOnRandomObjects(t *testing.T, set *policyset.Set) {
	rounds := 60
	if testing.Short() {
		rounds = 10
	}
	ls := releaseLinters(t, set)
	g := gen{rand.New(rand.NewSource(4))}
	kinds := []string{objects.KindClusterBaseModel, objects.KindBaseModel, objects.KindClusterServingRuntime, objects.KindServingRuntime}
	rules := map[string]bool{}
	for round := 0; round < rounds; round++ {
		var objs []*objects.Object
		for i := 0; i < 6; i++ {
			kind := kinds[g.r.Intn(len(kinds))]
			model := g.model()
			spec := model
			if strings.HasSuffix(kind, "ServingRuntime") {
				spec = g.runtime(model)
				entries, _ := spec["supportedModelFormats"].([]any)
				for _, e := range entries {
					if g.maybe(0.1) {
						e.(map[string]any)["version"] = "1.0.0"
					}
				}
			}
			if g.maybe(0.5) {
				spec = g.mess(spec, 0).(map[string]any)
			}
			meta := map[string]any{"name": g.pick("a", "b", "c")}
			if !strings.HasPrefix(kind, "Cluster") || g.maybe(0.3) {
				meta["namespace"] = g.pick("x", "y")
			}
			o := &objects.Object{Kind: kind, Name: meta["name"].(string), File: "random.yaml", Line: i*10 + 1,
				Value: map[string]any{"apiVersion": objects.APIVersion, "kind": kind, "metadata": meta, "spec": spec},
				Pos:   objects.Positions{}}
			if !strings.HasPrefix(kind, "Cluster") {
				o.Namespace = meta["namespace"].(string)
			}
			objs = append(objs, o)
		}
		cross := round%2 == 0
		c, err := Lint(ls[CEL], objs, LintOptions{CrossCheck: cross})
		require.NoError(t, err, "round %d", round)
		r, err := Lint(ls[Rego], objs, LintOptions{CrossCheck: cross})
		require.NoError(t, err, "round %d", round)
		if !reflect.DeepEqual(c, r) {
			t.Fatalf("round %d: %s", round, firstDifference(c, r))
		}
		for _, f := range c {
			rules[f.Rule] = true
		}
	}
	require.Greater(t, len(rules), 12, "the generator reaches most rules: %v", rules)
}

type fixedLinter []Finding

func (f fixedLinter) Name() string { return "fixed" }
func (f fixedLinter) Object(*objects.Object) ([]Finding, error) {
	return append([]Finding{}, f...), nil
}
func (f fixedLinter) Set([]SetObject, LintOptions) ([]Finding, error) {
	return append([]Finding{}, f...), nil
}

func TestBothLinterReportsDisagreement(t *testing.T) {
	a := Finding{Rule: "empty-version", Severity: SeverityError, File: "a.yaml", Line: 3}
	b := a
	b.Line = 4
	o := &objects.Object{}
	_, err := (&bothLinter{cel: fixedLinter{a}, rego: fixedLinter{b}}).Object(o)
	require.ErrorContains(t, err, "engines disagree on the lint findings")
	_, err = (&bothLinter{cel: fixedLinter{a}, rego: fixedLinter{}}).Set(nil, LintOptions{})
	require.ErrorContains(t, err, "only cel finds")
	got, err := (&bothLinter{cel: fixedLinter{a}, rego: fixedLinter{a}}).Object(o)
	require.NoError(t, err)
	require.Equal(t, []Finding{a}, got)
}

func TestNewLinterRejectsUnknownEngine(t *testing.T) {
	_, err := NewLinter("wasm", testPolicies(t))
	require.EqualError(t, err, `unknown engine "wasm" (want cel, rego, both)`)
}

// A policy folder without the lint policies says which one is missing.
func TestLinterNeedsItsPolicies(t *testing.T) {
	set := testPolicies(t)
	var files []policyset.File
	for _, f := range set.Files {
		if f.Path != "cel/lint.yaml" {
			files = append(files, f)
		}
	}
	_, err := NewLinter(CEL, &policyset.Set{Origin: "test", Files: files})
	require.ErrorContains(t, err, `no CEL policy named "lint-object"`)
}
