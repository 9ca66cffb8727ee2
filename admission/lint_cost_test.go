package admission

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"github.com/open-policy-agent/opa/v1/profiler"
	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/ome-policy/evaluator/policies/policyset"
)

// lintRuntime64 is bench/gatekeeper.sh's OMEVersionLint object: a
// ClusterServingRuntime of 64 entries, every eighth of them an ordering
// operator on a version with a suffix (8 findings, warnings), the others
// plain.
func lintRuntime64() map[string]any {
	var entries []any
	for j := 0; j < 64; j++ {
		framework := map[string]any{"name": "transformers", "version": fmt.Sprintf("4.%d.0.dev0", j)}
		if j%8 == 0 {
			framework["operator"] = "GreaterThanOrEqual"
		}
		entries = append(entries, map[string]any{
			"modelFormat":       map[string]any{"name": "safetensors", "version": "1.0.0"},
			"modelFramework":    framework,
			"modelArchitecture": fmt.Sprintf("Arch%02dForCausalLM", j),
		})
	}
	return map[string]any{
		"apiVersion": "ome.io/v1beta1", "kind": "ClusterServingRuntime",
		"metadata": map[string]any{"name": "lint-0"},
		"spec":     map[string]any{"supportedModelFormats": entries},
	}
}

// lintConstraints are the parameters of OMEVersionLint's two sample
// constraints (deny-errors, warn-warnings), each of which reviews every
// object, and how many violations each gives on lintRuntime64.
var lintConstraints = []struct {
	name       string
	params     map[string]any
	violations int
}{
	{"errors", map[string]any{"severities": []any{"error"}}, 0},
	{"warnings", map[string]any{"severities": []any{"warning"}}, 8},
}

// BenchmarkLintTemplate64 is one evaluation of OMEVersionLint (one
// constraint's review) on lintRuntime64, as Gatekeeper evaluates it: its
// Rego (this project's OPA, the template compiled once; steps/op is the
// number of expressions OPA evaluates; cpu-ms/op, the process's CPU time,
// less noisy than the wall time on a shared machine) and its CEL (the
// environment of kubernetesCEL, every variable evaluated in turn;
// "CEL-k8s" as Kubernetes evaluates it: each variable on its first use,
// and the cost of each expression tracked under a limit).
func BenchmarkLintTemplate64(b *testing.B) {
	object := lintRuntime64()
	for _, c := range lintConstraints {
		b.Run("Rego/"+c.name, func(b *testing.B) {
			g := newGatekeeperEval(b, "omeversionlint")
			if msgs := g.review(b, DeepCopy(object), nil, c.params); len(msgs) != c.violations {
				b.Fatalf("%d violations: %q", len(msgs), msgs)
			}
			steps := &stepCounter{}
			if _, err := g.query.Eval(context.Background(), rego.EvalInput(map[string]any{"review": map[string]any{"object": object}, "parameters": c.params}),
				rego.EvalQueryTracer(steps)); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			cpu := cpuTime()
			for i := 0; i < b.N; i++ {
				g.review(b, object, nil, c.params)
			}
			b.ReportMetric(ms(cpuTime()-cpu)/float64(b.N), "cpu-ms/op")
			b.ReportMetric(float64(steps.n), "steps/op")
		})
		for _, k8s := range []bool{false, true} {
			name := "CEL/"
			if k8s {
				name = "CEL-k8s/"
			}
			b.Run(name+c.name, func(b *testing.B) {
				var opts []cel.ProgramOption
				review := (*celEval).review
				if k8s {
					opts = append(opts, cel.CostLimit(1e12))
					review = (*celEval).reviewLazy
				}
				e := newCELEval(b, templateOf(b, embeddedSet(b), "omeversionlint").CEL, opts...)
				if msgs, err := review(e, DeepCopy(object), c.params); err != nil || len(msgs) != c.violations {
					b.Fatalf("%d violations: %q, %v", len(msgs), msgs, err)
				}
				b.ResetTimer()
				cpu := cpuTime()
				for i := 0; i < b.N; i++ {
					if _, err := review(e, object, c.params); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(ms(cpuTime()-cpu)/float64(b.N), "cpu-ms/op")
				if k8s {
					b.StopTimer()
					// Every call costs 1: about the number of steps.
					u := newCELEval(b, templateOf(b, embeddedSet(b), "omeversionlint").CEL, cel.CostLimit(1e12), cel.CostTracking(unitCallCost{}))
					_, n, err := u.reviewLazyCost(object, c.params)
					if err != nil {
						b.Fatal(err)
					}
					b.ReportMetric(float64(n), "steps/op")
				}
			})
		}
	}
}

// unitCallCost costs every CEL call 1, so that the tracked cost of an
// evaluation counts its steps (calls, and what else CEL's cost counts:
// selections, comprehension steps).
type unitCallCost struct{}

func (unitCallCost) CallCost(function, overloadID string, args []ref.Val, result ref.Val) *uint64 {
	one := uint64(1)
	return &one
}

// TestLintTemplateCost prints the OPA steps of OMEVersionLint's Rego on
// lintRuntime64 by line (the N costliest lines, with LINT_PROFILE=N).
func TestLintTemplateCost(t *testing.T) {
	top, _ := strconv.Atoi(os.Getenv("LINT_PROFILE"))
	if top <= 0 {
		t.Skip("LINT_PROFILE not set")
	}
	tp := templateOf(t, embeddedSet(t), "omeversionlint")
	lines := map[string][]string{"template.rego": strings.Split(tp.Rego, "\n")}
	for i, l := range tp.Libs {
		lines[fmt.Sprintf("lib_%d.rego", i)] = strings.Split(l.Text, "\n")
	}
	g := templateEval(t, tp)
	for _, c := range lintConstraints {
		input := map[string]any{"review": map[string]any{"object": lintRuntime64()}, "parameters": c.params}
		p := profiler.New()
		if _, err := g.query.Eval(context.Background(), rego.EvalInput(input), rego.EvalQueryTracer(p)); err != nil {
			t.Fatal(err)
		}
		stats := p.ReportTopNResults(100000, []string{"num_eval"})
		sort.SliceStable(stats, func(i, j int) bool { return stats[i].NumEval+stats[i].NumRedo > stats[j].NumEval+stats[j].NumRedo })
		var b strings.Builder
		steps := 0
		for _, s := range stats {
			steps += s.NumEval + s.NumRedo
		}
		for _, s := range stats[:min(top, len(stats))] {
			line := ""
			if l := lines[s.Location.File]; s.Location.Row > 0 && s.Location.Row <= len(l) {
				line = strings.TrimSpace(l[s.Location.Row-1])
			}
			fmt.Fprintf(&b, "\n%9.3f ms %6d evals %6d redo  %s:%-4d %.100s", ms(time.Duration(s.ExprTimeNs)), s.NumEval, s.NumRedo, s.Location.File, s.Location.Row, line)
		}
		t.Logf("%s: %d steps%s", c.name, steps, b.String())
	}
}

func embeddedSet(t testing.TB) *policyset.Set {
	t.Helper()
	set, err := policyset.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// lazyVariables is the variables of a CEL code block as Kubernetes (and
// Gatekeeper's K8sNativeValidation) gives them to its expressions: each
// evaluated on its first use, then kept.
type lazyVariables struct {
	e      *celEval
	act    map[string]any
	index  map[string]int
	values map[string]ref.Val
	err    error
	cost   uint64 // the variables' cost, when tracked
}

func (l *lazyVariables) Find(key ref.Val) (ref.Val, bool) {
	name, ok := key.Value().(string)
	if !ok {
		return nil, false
	}
	if v, ok := l.values[name]; ok {
		return v, true
	}
	i, ok := l.index[name]
	if !ok {
		return nil, false
	}
	v, det, err := l.e.vars[i].Eval(l.act)
	l.addCost(det)
	if err != nil {
		if l.err == nil {
			l.err = fmt.Errorf("variable %s: %w", name, err)
		}
		return types.WrapErr(err), true
	}
	l.values[name] = v
	return v, true
}

// addCost adds an evaluation's cost, when it was tracked.
func (l *lazyVariables) addCost(det *cel.EvalDetails) {
	if det != nil && det.ActualCost() != nil {
		l.cost += *det.ActualCost()
	}
}

func (l *lazyVariables) Get(key ref.Val) ref.Val {
	if v, ok := l.Find(key); ok {
		return v
	}
	return types.NewErr("no such variable: %v", key)
}

func (l *lazyVariables) Contains(key ref.Val) ref.Val {
	_, ok := l.Find(key)
	return types.Bool(ok)
}

func (l *lazyVariables) Size() ref.Val { return types.Int(len(l.index)) }

func (l *lazyVariables) Iterator() traits.Iterator { panic("variables are not iterated") }

func (l *lazyVariables) ConvertToNative(reflect.Type) (any, error) {
	return nil, fmt.Errorf("variables are not converted")
}

func (l *lazyVariables) ConvertToType(t ref.Type) ref.Val {
	if t == types.TypeType {
		return types.MapType
	}
	return types.NewErr("variables are not converted to %v", t)
}

func (l *lazyVariables) Equal(ref.Val) ref.Val { return types.False }

func (l *lazyVariables) Type() ref.Type { return types.MapType }

func (l *lazyVariables) Value() any { return l }

// reviewLazy is review with the variables evaluated on first use, as
// Kubernetes does.
func (e *celEval) reviewLazy(object map[string]any, params map[string]any) ([]string, error) {
	msgs, _, err := e.reviewLazyCost(object, params)
	return msgs, err
}

// reviewLazyCost is reviewLazy, and the cost of the variables and
// validations, when tracked.
func (e *celEval) reviewLazyCost(object map[string]any, params map[string]any) ([]string, uint64, error) {
	l := &lazyVariables{e: e, index: map[string]int{}, values: map[string]ref.Val{}}
	for i, n := range e.names {
		l.index[n] = i
	}
	var p ref.Val = types.NullValue
	if params != nil {
		p = types.DefaultTypeAdapter.NativeToValue(params)
	}
	l.values["params"] = p
	l.act = map[string]any{"object": object, "variables": l}
	msgs, err := e.validate(l.act, l.addCost, func() error { return l.err })
	if err != nil {
		return nil, 0, err
	}
	return msgs, l.cost, nil
}
