package admission

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/profiler"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
	"github.com/open-policy-agent/opa/v1/topdown"
	"gopkg.in/yaml.v3"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/objects/synth"
	"github.com/ome-policy/evaluator/policies/policyset"
)

// benchShape is bench/gatekeeper.sh's inventory: evaluate generate --shape
// many --architectures 12 --versions 150.
var benchShape = synth.Shape{Name: "many", Architectures: 12, Versions: 150, Formats: synth.Many.Formats}

// benchInventory is bench/gatekeeper.sh's inventory of n runtimes (50
// models, seed 7, and the model "unmatched" that no runtime accepts), and
// the name of a model that selection admits.
func benchInventory(t testing.TB, n int) (inv []map[string]any, admitted string) {
	t.Helper()
	ms, rts := synth.ShapedCluster(7, 50, n, benchShape)
	ms = append(ms, map[string]any{"apiVersion": "ome.io/v1beta1", "kind": "ClusterBaseModel", "metadata": map[string]any{"name": "unmatched"},
		"spec": map[string]any{
			"modelFormat":       map[string]any{"name": "safetensors", "version": "1.0.0"},
			"modelFramework":    map[string]any{"name": "transformers", "version": "4.40.0"},
			"modelArchitecture": "NoSuchArchForCausalLM",
			"storage":           map[string]any{"storageUri": "hf://x/unmatched"},
		}})
	set, err := policyset.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	s, err := engine.NewSelector(engine.Rego, set)
	if err != nil {
		t.Fatal(err)
	}
	// As the script does: the first model admitted among the first 100
	// runtimes (the generator makes the same first runtimes whatever
	// their number).
	pms, prs := synth.ShapedCluster(7, 50, min(n, 100), benchShape)
	probe := generatedObjects(append(pms, prs...))
	for _, m := range pms {
		name := m["metadata"].(map[string]any)["name"].(string)
		d, err := s.Select(selectingInferenceService(name), probe)
		if err != nil {
			t.Fatal(err)
		}
		if d.Admitted {
			admitted = name
			break
		}
	}
	if admitted == "" {
		t.Fatal("no admitted model")
	}
	return values(generatedObjects(append(ms, rts...))), admitted
}

// costTemplate is a selection template to time: its modules, and each
// module's lines (to show them in a profile).
type costTemplate struct {
	name    string
	modules []*ast.Module
	lines   map[string][]string
}

// selectionTemplateFile reads the Rego of a ConstraintTemplate file.
func selectionTemplateFile(t testing.TB, path string) costTemplate {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Spec struct {
			Targets []struct {
				Code []struct {
					Engine string
					Source struct {
						Rego string
						Libs []string
					}
				}
			}
		}
	}
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	ct := costTemplate{name: path, lines: map[string][]string{}}
	for _, c := range doc.Spec.Targets[0].Code {
		if c.Engine != "Rego" {
			continue
		}
		texts := map[string]string{"template.rego": c.Source.Rego}
		for i, l := range c.Source.Libs {
			texts[fmt.Sprintf("lib_%d.rego", i)] = l
		}
		for name, text := range texts {
			m, err := ast.ParseModuleWithOpts(name, text, ast.ParserOptions{RegoVersion: ast.RegoV1})
			if err != nil {
				t.Fatal(err)
			}
			ct.modules = append(ct.modules, m)
			ct.lines[name] = strings.Split(text, "\n")
		}
	}
	return ct
}

// TestSelectionCost times OMERuntimeSelection in-process (this project's
// OPA; the inventory written once, in a store like Gatekeeper's) on
// bench/gatekeeper.sh's inventories, for an admitted and a refused
// InferenceService, and one that names a runtime, under a constraint that
// checks it (validateNamedRuntime): the wall and CPU time of one review,
// median and minimum. It runs only when SELECTION_COST gives the sizes
// ("100 1000").
//
//	SELECTION_TEMPLATES  template files to time, alternating ("embedded",
//	                     the default: the template of the embedded policies)
//	SELECTION_RUNS       runs per template and kind (default 5)
//	SELECTION_ONLY       admitted, refused or named
//	SELECTION_PROFILE=N  also print OPA's profile: the N costliest lines
func TestSelectionCost(t *testing.T) {
	sizes := os.Getenv("SELECTION_COST")
	if sizes == "" {
		t.Skip("SELECTION_COST not set")
	}
	top, _ := strconv.Atoi(os.Getenv("SELECTION_PROFILE"))
	runs := 5
	if r, _ := strconv.Atoi(os.Getenv("SELECTION_RUNS")); r > 0 {
		runs = r
	}
	var templates []costTemplate
	names := strings.Fields(os.Getenv("SELECTION_TEMPLATES"))
	if len(names) == 0 {
		names = []string{"embedded"}
	}
	for _, p := range names {
		if p != "embedded" {
			templates = append(templates, selectionTemplateFile(t, p))
			continue
		}
		set, err := policyset.Embedded()
		if err != nil {
			t.Fatal(err)
		}
		tp := templateOf(t, set, "omeruntimeselection")
		ct := costTemplate{name: "embedded", modules: tp.modules, lines: map[string][]string{"template.rego": strings.Split(tp.Rego, "\n")}}
		for i, l := range tp.Libs {
			ct.lines[fmt.Sprintf("lib_%d.rego", i)] = strings.Split(l.Text, "\n")
		}
		templates = append(templates, ct)
	}
	ctx := context.Background()
	for _, f := range strings.Fields(sizes) {
		n, err := strconv.Atoi(f)
		if err != nil {
			t.Fatal(err)
		}
		inv, admitted := benchInventory(t, n)
		// Gatekeeper's store: the synced objects as Go values, turned into
		// Rego values as the policy reads them.
		store := inmem.NewWithOpts(inmem.OptRoundTripOnWrite(false))
		txn, err := store.NewTransaction(ctx, storage.WriteParams)
		if err != nil {
			t.Fatal(err)
		}
		if err := store.Write(ctx, txn, storage.AddOp, storage.MustParsePath("/inventory"), inventory(inv)); err != nil {
			t.Fatal(err)
		}
		queries := make([]rego.PreparedEvalQuery, len(templates))
		for i, ct := range templates {
			opts := []func(*rego.Rego){rego.Query("data.omeruntimeselection.violation"), rego.Store(store), rego.Capabilities(ast.CapabilitiesForThisVersion())}
			for _, m := range ct.modules {
				opts = append(opts, rego.ParsedModule(m))
			}
			if queries[i], err = rego.New(opts...).PrepareForEval(ctx); err != nil {
				t.Fatal(err)
			}
		}
		for _, kind := range []string{"admitted", "refused", "named"} {
			if only := os.Getenv("SELECTION_ONLY"); only != "" && only != kind {
				continue
			}
			model := admitted
			if kind != "admitted" {
				model = "unmatched"
			}
			isvc := DeepCopy(selectingInferenceService(model).Value)
			params := map[string]any{}
			if kind == "named" {
				// It names a runtime that does not support its model, and the
				// constraint checks it: admitted, with a warning.
				isvc["spec"].(map[string]any)["runtime"] = map[string]any{"name": "runtime-0000"}
				params["validateNamedRuntime"] = true
			}
			input := map[string]any{"review": map[string]any{
				"kind": map[string]any{"group": "ome.io", "version": "v1beta1", "kind": "InferenceService"},
				"name": isvc["metadata"].(map[string]any)["name"], "namespace": "default", "operation": "CREATE", "object": isvc,
			}, "parameters": params}
			eval := func(q rego.PreparedEvalQuery, opts ...rego.EvalOption) string {
				rs, err := q.Eval(ctx, append(opts, rego.EvalTransaction(txn), rego.EvalInput(input))...)
				if err != nil {
					t.Fatal(err)
				}
				return fmt.Sprint(rs[0].Expressions[0].Value)
			}
			first := ""
			for i, q := range queries {
				got := eval(q)
				if (got == "[]") != (kind == "admitted") {
					t.Fatalf("%d runtimes, %s: %.300s", n, kind, got)
				}
				if i == 0 {
					first = got
				} else if got != first {
					t.Errorf("%d runtimes, %s: %s and %s disagree", n, kind, templates[0].name, templates[i].name)
				}
			}
			walls := make([][]time.Duration, len(queries))
			cpus := make([][]time.Duration, len(queries))
			for r := 0; r < runs; r++ {
				for i, q := range queries {
					start, cpu := time.Now(), cpuTime()
					eval(q)
					walls[i] = append(walls[i], time.Since(start))
					cpus[i] = append(cpus[i], cpuTime()-cpu)
				}
			}
			for i, q := range queries {
				w, c := sorted(walls[i]), sorted(cpus[i])
				var steps stepCounter
				eval(q, rego.EvalQueryTracer(&steps))
				// What one review allocates drives the collections: in gator,
				// whose heap holds the inventory, they took a fifth of the
				// CPU time of a run with 1,000 runtimes.
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				eval(q)
				runtime.ReadMemStats(&after)
				t.Logf("%6d runtimes, %-8s wall %8.2f ms (min %8.2f), CPU %8.2f ms (min %8.2f), median of %d, %8d steps, %6.2f MB allocated: %s",
					n, kind, ms(w[runs/2]), ms(w[0]), ms(c[runs/2]), ms(c[0]), runs, steps.n,
					float64(after.TotalAlloc-before.TotalAlloc)/(1<<20), templates[i].name)
			}
			if top == 0 {
				continue
			}
			for i, q := range queries {
				p := profiler.New()
				eval(q, rego.EvalQueryTracer(p))
				var b strings.Builder
				stats := p.ReportTopNResults(100000, []string{"num_eval"})
				sort.SliceStable(stats, func(i, j int) bool { return stats[i].NumEval+stats[i].NumRedo > stats[j].NumEval+stats[j].NumRedo })
				for _, s := range stats[:min(top, len(stats))] {
					line := ""
					if l := templates[i].lines[s.Location.File]; s.Location.Row > 0 && s.Location.Row <= len(l) {
						line = strings.TrimSpace(l[s.Location.Row-1])
					}
					fmt.Fprintf(&b, "\n%9.2f ms %7d evals %7d redo  %s:%-4d %.90s", ms(time.Duration(s.ExprTimeNs)), s.NumEval, s.NumRedo, s.Location.File, s.Location.Row, line)
				}
				byFile := map[string]int{}
				for _, s := range stats {
					byFile[s.Location.File] += s.NumEval + s.NumRedo
				}
				t.Logf("profile, %d runtimes, %s, %s: steps by file %v%s", n, kind, templates[i].name, byFile, b.String())
			}
		}
		store.Abort(ctx, txn)
	}
}

func sorted(ds []time.Duration) []time.Duration {
	out := append([]time.Duration(nil), ds...)
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

// cpuTime is the process's CPU time so far (user and system).
func cpuTime() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// stepCounter counts the expressions OPA evaluates (and evaluates again),
// a measure of the interpreter's work that the machine's load does not
// change.
type stepCounter struct{ n int }

func (c *stepCounter) Enabled() bool { return true }

func (c *stepCounter) Config() topdown.TraceConfig { return topdown.TraceConfig{} }

func (c *stepCounter) TraceEvent(e topdown.Event) {
	if e.Op == topdown.EvalOp || e.Op == topdown.RedoOp {
		c.n++
	}
}
