package admission

import (
	"fmt"
	"math"
	"path"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"gopkg.in/yaml.v3"

	"github.com/ome-policy/evaluator/builtins"
	"github.com/ome-policy/evaluator/cases"
	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/internal/corpus"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/policies/policyset"
)

// kyvernoCEL is an environment close to Kyverno's CEL for policies
// (Kyverno's pkg/cel/compiler: homogeneous literals, optional types, the
// bindings, lists v3, math, sets, strings v2 and regex extensions), with
// vars. Kyverno's own engine is checked by make kyverno-verify.
func kyvernoCEL(t testing.TB, vars ...cel.EnvOption) *cel.Env {
	t.Helper()
	opts := append(KyvernoEnvOptions(), vars...)
	env, err := cel.NewEnv(opts...)
	if err != nil {
		t.Fatal(err)
	}
	return env
}

// TestKyvernoStandIns checks the stand-ins of kyvernocel.go against the Go
// builtins: versions (their shape, equality and order) on the version
// corpus, sizes (ParseModelSize, SizeValue, CompareSizes) and ParseFloat's
// verdict on the size corpus, where the stand-in does not call the input
// unstated.
func TestKyvernoStandIns(t *testing.T) {
	env := kyvernoCEL(t, cel.Variable("x", cel.StringType), cel.Variable("y", cel.StringType))
	r := &celTranslator{calls: kyvernoCalls, methods: kyvernoVersionMethods, kyverno: true}
	prog := func(expr string) cel.Program {
		out, err := r.rewrite(expr)
		if err != nil {
			t.Fatal(err)
		}
		return corpus.Program(t, env, out)
	}
	shape := prog(`[dyn(omeVersion(x).parts()), dyn(omeVersion(x).hasV()), dyn(omeVersion(x).hasSuffix())]`)
	equal := prog(`cel.bind(a, omeVersion(x), cel.bind(b, omeVersion(y), [dyn(a.isEqualTo(b)), dyn(a.compareTo(b))]))`)
	size := prog(`[dyn(omeSize(x)), dyn(omeSizeCompare(x, y)), dyn(omeIsFloat(x)), dyn(omeSizeUnstated(x) || omeSizeUnstated(y)), dyn(omeFloatUnstated(x))]`)
	n := 20_000
	if testing.Short() {
		n = 2_000
	}
	failures := 0
	fail := func(format string, args ...any) {
		if failures++; failures <= 20 {
			t.Errorf(format, args...)
		}
	}
	for _, p := range corpus.VersionPairs(n, corpus.Versions(n)) {
		a, errA := builtins.Parse(p[0])
		b, errB := builtins.Parse(p[1])
		if errA != nil || errB != nil {
			continue
		}
		in := map[string]any{"x": p[0], "y": p[1]}
		got, _, err := shape.Eval(in)
		if want := fmt.Sprint([]any{int64(a.Parts), a.V, a.HasSuffix()}); err != nil || fmt.Sprint(got.Value()) != want {
			fail("shape of %q = %v, %v; want %s", p[0], got, err, want)
		}
		got, _, err = equal.Eval(in)
		if want := fmt.Sprint([]any{builtins.Equal(a, b), int64(builtins.Compare(a, b))}); err != nil || fmt.Sprint(got.Value()) != want {
			fail("%q against %q = %v, %v; want %s", p[0], p[1], got, err, want)
		}
	}
	unstated, pairs := 0, 0
	for _, p := range corpus.SizePairs(n, corpus.Sizes(n)) {
		if !utf8.ValidString(p[0]) || !utf8.ValidString(p[1]) {
			continue
		}
		got, _, err := size.Eval(map[string]any{"x": p[0], "y": p[1]})
		if err != nil {
			fail("sizes %q, %q: %v", p[0], p[1], err)
			continue
		}
		l := got.Value().([]ref.Val)
		if l[3].Value() == true || l[4].Value() == true {
			// What the stand-ins leave, KyvernoLeaves must say may be left.
			if !KyvernoLeaves(map[string]any{"x": p[0], "y": p[1]}, nil) {
				fail("sizes %q, %q: the stand-ins leave them to Gatekeeper; KyvernoLeaves does not", p[0], p[1])
			}
			unstated++
			continue
		}
		pairs++
		wantSize := builtins.SizeValue(p[0])
		if g := l[0].Value().(float64); g != wantSize && !(math.IsNaN(g) && math.IsNaN(wantSize)) {
			fail("omeSize(%q) = %v; want %v", p[0], g, wantSize)
		}
		if g := l[1].Value().(int64); g != int64(builtins.CompareSizes(p[0], p[1])) {
			fail("omeSizeCompare(%q, %q) = %v; want %v", p[0], p[1], g, builtins.CompareSizes(p[0], p[1]))
		}
		if g := l[2].Value().(bool); g != builtins.IsFloat(p[0]) {
			fail("omeIsFloat(%q) = %v; want %v", p[0], g, builtins.IsFloat(p[0]))
		}
	}
	if failures > 20 {
		t.Errorf("... %d failures in all", failures)
	}
	t.Logf("%d size pairs left to Gatekeeper (a number beyond float64's range), %d checked", unstated, pairs)
	// The corpus holds numbers beyond float64's range on purpose, but most
	// of its pairs must be checked: a stand-in that left everything to
	// Gatekeeper would check none.
	if unstated*100 > (unstated+pairs)*kyvernoMaxUnstatedSizesPercent {
		t.Errorf("%d of %d size pairs left to Gatekeeper: more than %d%%", unstated, unstated+pairs, kyvernoMaxUnstatedSizesPercent)
	}
}

// kyvernoMaxUnstatedSizesPercent is how many of the size corpus's pairs,
// in percent, the stand-ins may leave to Gatekeeper.
const kyvernoMaxUnstatedSizesPercent = 25

// kyvernoEval evaluates a selection policy as Kyverno does, on one
// InferenceService with cluster as what resource.List finds: the first
// failing validation's message, or admitted. Variables are evaluated when
// first used.
type kyvernoEval struct {
	sel   *KyvernoSelection
	costs map[string]uint64 // each program's actual cost, at the last review
	env   *cel.Env
	progs map[string]cel.Program
	vals  []cel.Program
	msgs  []cel.Program
	list  func(apiVersion, resource, namespace string) map[string]any
}

var pluralKinds = map[string]string{"basemodels": "BaseModel", "clusterbasemodels": "ClusterBaseModel",
	"servingruntimes": "ServingRuntime", "clusterservingruntimes": "ClusterServingRuntime"}

func newKyvernoEval(t testing.TB, sel *KyvernoSelection) *kyvernoEval {
	t.Helper()
	e := &kyvernoEval{sel: sel, progs: map[string]cel.Program{}, costs: map[string]uint64{}}
	opts := []cel.EnvOption{cel.Variable("object", cel.DynType),
		cel.Function("resource.List", cel.Overload("resource_list_string_string_string",
			[]*cel.Type{cel.StringType, cel.StringType, cel.StringType}, cel.DynType,
			cel.FunctionBinding(func(args ...ref.Val) ref.Val {
				return types.DefaultTypeAdapter.NativeToValue(e.list(args[0].Value().(string), args[1].Value().(string), args[2].Value().(string)))
			})))}
	for _, v := range sel.Variables {
		opts = append(opts, cel.Variable("variables."+v.Name, cel.DynType))
	}
	e.env = kyvernoCEL(t, opts...)
	// Kyverno's programs have Kubernetes' limit on each expression's cost.
	limit := []cel.ProgramOption{cel.CostLimit(kyvernoCostLimit), cel.EvalOptions(cel.OptTrackCost)}
	for _, v := range sel.Variables {
		e.progs[v.Name] = corpus.Program(t, e.env, v.Expression, limit...)
	}
	for _, v := range sel.Validations {
		e.vals = append(e.vals, corpus.Program(t, e.env, v.Expression, limit...))
		e.msgs = append(e.msgs, corpus.Program(t, e.env, v.MessageExpression, limit...))
	}
	return e
}

// review gives the message of the first failing validation ("" when
// admitted) and whether an unstated variable is true.
func (e *kyvernoEval) review(isvc *objects.Object, cluster []*objects.Object) (string, bool, error) {
	e.list = func(apiVersion, resource, namespace string) map[string]any {
		items := []any{}
		for _, o := range cluster {
			if o.Kind == pluralKinds[resource] && o.Namespace == namespace {
				items = append(items, o.Value)
			}
		}
		return map[string]any{"items": items}
	}
	act := map[string]any{"object": isvc.Value}
	cache := map[string]ref.Val{}
	clear(e.costs)
	for _, v := range e.sel.Variables {
		name, prog := v.Name, e.progs[v.Name]
		act["variables."+name] = func() ref.Val {
			if got, ok := cache[name]; ok {
				return got
			}
			out, det, err := prog.Eval(actOf(act))
			if det != nil && det.ActualCost() != nil {
				e.costs[name] = *det.ActualCost()
			}
			if err != nil {
				out = types.WrapErr(fmt.Errorf("variable %s: %w", name, err))
			}
			cache[name] = out
			return out
		}
	}
	unstated := false
	for _, v := range e.sel.Variables {
		if strings.HasPrefix(v.Name, "unstated") {
			if out, _, err := e.progs[v.Name].Eval(actOf(act)); err == nil && out.Value() == true {
				unstated = true
			}
		}
	}
	for i, p := range e.vals {
		out, _, err := p.Eval(actOf(act))
		if err != nil {
			return "", unstated, fmt.Errorf("validation %s: %w", e.sel.Validations[i].Name, err)
		}
		if out.Value() == true {
			continue
		}
		msg, _, err := e.msgs[i].Eval(actOf(act))
		if err != nil {
			return "", unstated, fmt.Errorf("message of %s: %w", e.sel.Validations[i].Name, err)
		}
		return msg.Value().(string), unstated, nil
	}
	return "", unstated, nil
}

// kyvernoCostLimit is the cost limit of each CEL expression in Kubernetes
// (k8s.io/apiserver's PerCallLimit), which Kyverno's environment sets.
const kyvernoCostLimit = 1_000_000

// TestKyvernoSelectionCost reviews InferenceServices, admitted and refused,
// at bench/gatekeeper.sh's inventory of 1,000 runtimes: no expression of
// the selection policy may cost more than Kubernetes lets one CEL
// expression cost (Kyverno fails the request otherwise), and the answers
// are evaluate's.
func TestKyvernoSelectionCost(t *testing.T) {
	all, err := policyset.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	// Rego, as benchInventory.
	ev, selector := kyvernoBeside(t, all, all.Newest(), engine.Rego)
	for _, n := range []int{100, 330, 1000} {
		inv, admitted := benchInventory(t, n)
		// As read from YAML, as the API server's JSON gives them to Kyverno.
		for i, v := range inv {
			b, err := yaml.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			inv[i] = nil
			if err := yaml.Unmarshal(b, &inv[i]); err != nil {
				t.Fatal(err)
			}
		}
		cluster := generatedObjects(inv)
		for _, model := range []string{admitted, "unmatched"} {
			isvc := selectingInferenceService(model)
			want, err := selector.Select(isvc, cluster)
			if err != nil {
				t.Fatal(err)
			}
			got, unstated, err := ev.review(isvc, cluster)
			if err != nil {
				t.Fatalf("%d runtimes, model %s: %v", n, model, err)
			}
			if unstated != KyvernoLeavesCase(cases.Case{InferenceService: isvc, Objects: cluster}) {
				t.Errorf("%d runtimes, model %s: the policy leaves it to Gatekeeper: %v; KyvernoLeaves says %v", n, model, unstated, !unstated)
			}
			if unstated {
				if got != "" {
					t.Errorf("%d runtimes, model %s: left to Gatekeeper, yet refused with %.200q", n, model, got)
				}
				t.Logf("%d runtimes, model %s: admitted, left to Gatekeeper", n, model)
				continue
			}
			if wantMsg := map[bool]string{true: ""}[want.Admitted]; !want.Admitted {
				wantMsg = want.Message
				if got != wantMsg {
					t.Errorf("%d runtimes, model %s: got %.200q, want %.200q", n, model, got, wantMsg)
				}
			} else if got != "" {
				t.Errorf("%d runtimes, model %s: refused with %.200q; evaluate admits it", n, model, got)
			}
			top, topName := uint64(0), ""
			for name, c := range ev.costs {
				if c > top {
					top, topName = c, name
				}
			}
			t.Logf("%d runtimes, model %s: the costliest expression is %s, %d (limit %d)", n, model, topName, top, kyvernoCostLimit)
		}
	}
}

// kyvernoBeside is release r's selection policy, ready to review, and the
// selector of the engine named, for the answers to hold it to.
func kyvernoBeside(t *testing.T, all *policyset.Set, r, name string) (*kyvernoEval, engine.Selector) {
	t.Helper()
	set, err := all.ForRelease(r)
	if err != nil {
		t.Fatal(err)
	}
	sel, err := KyvernoSelectionCEL(set)
	if err != nil {
		t.Fatal(err)
	}
	selector, err := engine.NewSelector(name, set)
	if err != nil {
		t.Fatal(err)
	}
	return newKyvernoEval(t, sel), selector
}

// actOf is the activation of act, whose variables are lazy.
func actOf(act map[string]any) map[string]any { return act }

// TestKyvernoSelectionAgrees evaluates every release's selection policy,
// in an environment close to Kyverno's, on that release's selection cases
// (those of the Gatekeeper suites, and OME's recorded answers of
// testdata/cases/sample-selection.yaml): each InferenceService is refused with
// the message evaluate select gives, byte for byte, or admitted when
// evaluate admits it; an InferenceService refused by evaluate may be
// admitted only when the policy says it cannot decide it (unstated), which
// KyvernoLeavesCase must also say, on at most as many of a case file's
// cases as kyvernoMaxUnstated states for that file. Every case of the
// recorded answers that holds for the release is reviewed.
func TestKyvernoSelectionAgrees(t *testing.T) {
	all, err := policyset.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range all.Releases() {
		t.Run(r, func(t *testing.T) {
			ev, selector := kyvernoBeside(t, all, r, engine.CEL)
			list, err := ProjectCases(r)
			if err != nil {
				t.Fatal(err)
			}
			// OME's recorded answers, which the Gatekeeper bundle runs as a
			// suite of their own (testdata/gatekeeper/sample-selection).
			sample, err := cases.ReadCases(recordedCaseFile)
			if err != nil {
				t.Fatal(err)
			}
			recorded := cases.ForRelease(sample, r)
			if len(recorded) == 0 && r == all.Newest() {
				t.Fatalf("%s: no case for %s", recordedCaseFile, r)
			}
			list = append(list, recorded...)
			n, left := 0, 0
			marked, reviewed := map[string]int{}, map[string]int{} // by case file
			for _, c := range list {
				if c.InferenceService == nil {
					continue
				}
				file := path.Base(c.File)
				if _, ok := kyvernoMaxUnstated[file]; !ok {
					t.Fatalf("%s: kyvernoMaxUnstated states no bound for %s", c.File, file)
				}
				want, err := selector.Select(c.InferenceService, c.Objects)
				if err != nil {
					t.Fatalf("%s: %v", c.Name, err)
				}
				got, unstated, err := ev.review(c.InferenceService, c.Objects)
				if err != nil {
					t.Errorf("%s:%d: %s: %v", c.File, c.Line, c.Name, err)
					continue
				}
				n++
				reviewed[file]++
				if unstated {
					// What the policy leaves, KyvernoLeaves (by which the
					// Tests leave the case out) must say may be left.
					marked[file]++
					if !KyvernoLeavesCase(c) {
						t.Errorf("%s:%d: %s: the policy leaves it to Gatekeeper; KyvernoLeavesCase does not", c.File, c.Line, c.Name)
					}
				}
				wantMsg := ""
				if !want.Admitted {
					wantMsg = want.Message
				}
				if got == "" && wantMsg != "" && unstated {
					left++
					continue
				}
				if got != wantMsg {
					t.Errorf("%s:%d: %s:\n got: %q\nwant: %q", c.File, c.Line, c.Name, got, wantMsg)
				}
			}
			if n == 0 {
				t.Fatal("no selection case")
			}
			total := 0
			for file, m := range marked {
				total += m
				if m > kyvernoMaxUnstated[file] {
					t.Errorf("%s: %d of %d InferenceServices marked unstated (left to Gatekeeper): more than %d", file, m, reviewed[file], kyvernoMaxUnstated[file])
				}
			}
			t.Logf("%d InferenceServices, %d marked unstated, %d refused by evaluate and left to Gatekeeper", n, total, left)
			if got := reviewed[path.Base(recordedCaseFile)]; got != len(recorded) {
				t.Errorf("%s: %d of its %d cases for %s reviewed", recordedCaseFile, got, len(recorded), r)
			}
		})
	}
}

// recordedCaseFile holds OME's recorded answers (the repository's root is
// one folder up).
const recordedCaseFile = "../testdata/cases/sample-selection.yaml"

// kyvernoMaxUnstated is, for each case file that TestKyvernoSelectionAgrees
// runs (by name), how many of a release's cases of it the Kyverno
// selection policy may leave to Gatekeeper: the cases of a KEDA setting or
// a size it cannot decide, which are there on purpose. A file without a
// bound here fails the test.
var kyvernoMaxUnstated = map[string]int{
	"spec-selection.yaml":       0,
	"webhook-checks.yaml":       4, // KEDA's threshold and Prometheus address
	"gatekeeper-selection.yaml": 0,
	"namespaces.yaml":           0,
	"release-v0.1.4.yaml":       0,
	"release-v1.2.2.yaml":       0,
	"sample-selection.yaml":     0, // OME's recorded answers
}
