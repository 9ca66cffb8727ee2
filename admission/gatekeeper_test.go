package admission

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/storage/inmem"

	"github.com/ome-policy/evaluator/cases"
	"github.com/ome-policy/evaluator/engine"
	regoengine "github.com/ome-policy/evaluator/engine/rego"
	"github.com/ome-policy/evaluator/input"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/objects/synth"
	"github.com/ome-policy/evaluator/policies/policyset"
)

// The repository root, from this package's folder.
const root = ".."

func repoPath(p string) string { return filepath.Join(root, filepath.FromSlash(p)) }

// gatekeeperEval evaluates a template as Gatekeeper does: its violation
// rule, with input {review, parameters} and the synced objects in
// data.inventory.
type gatekeeperEval struct {
	store storage.Store
	query rego.PreparedEvalQuery
}

func newGatekeeperEval(t testing.TB, name string) *gatekeeperEval {
	t.Helper()
	set, err := policyset.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	return templateEval(t, templateOf(t, set, name))
}

// templateOf is the template called name that set generates.
func templateOf(t testing.TB, set *policyset.Set, name string) *Check {
	t.Helper()
	templates, err := Checks(set)
	if err != nil {
		t.Fatal(err)
	}
	for _, tp := range templates {
		if tp.Name == name {
			return tp
		}
	}
	t.Fatalf("no template %s", name)
	return nil
}

// templateEval prepares a template's violation rule as Gatekeeper
// evaluates it.
func templateEval(t testing.TB, tp *Check) *gatekeeperEval {
	t.Helper()
	return templateQuery(t, tp, "data."+tp.Name+".violation")
}

// templateQuery prepares query on a template's modules, with Gatekeeper's
// capabilities.
func templateQuery(t testing.TB, tp *Check, query string) *gatekeeperEval {
	t.Helper()
	store := inmem.New()
	opts := []func(*rego.Rego){
		rego.Query(query),
		rego.Store(store),
		// Gatekeeper's capabilities: OPA's builtins, none of ours.
		rego.Capabilities(ast.CapabilitiesForThisVersion()),
	}
	for _, m := range tp.modules {
		opts = append(opts, rego.ParsedModule(m))
	}
	q, err := rego.New(opts...).PrepareForEval(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return &gatekeeperEval{store: store, query: q}
}

// inventory places objects as Gatekeeper's sync does: by namespace (when
// the object has one), group/version, kind and name.
func inventory(objs []map[string]any) map[string]any {
	inv := map[string]any{"namespace": map[string]any{}, "cluster": map[string]any{}}
	put := func(m map[string]any, keys []string, v any) {
		for _, k := range keys[:len(keys)-1] {
			next, ok := m[k].(map[string]any)
			if !ok {
				next = map[string]any{}
				m[k] = next
			}
			m = next
		}
		m[keys[len(keys)-1]] = v
	}
	for _, o := range objs {
		meta, _ := o["metadata"].(map[string]any)
		ns, _ := meta["namespace"].(string)
		name, _ := meta["name"].(string)
		gv, _ := o["apiVersion"].(string)
		kind, _ := o["kind"].(string)
		if ns != "" {
			put(inv["namespace"].(map[string]any), []string{ns, gv, kind, name}, o)
		} else {
			put(inv["cluster"].(map[string]any), []string{gv, kind, name}, o)
		}
	}
	return inv
}

// review returns the messages of the violations of object, in order.
func (g *gatekeeperEval) review(t testing.TB, object map[string]any, inv []map[string]any, params map[string]any) []string {
	t.Helper()
	rs := g.eval(t, object, inv, params)
	var msgs []string
	if len(rs) == 1 {
		for _, v := range rs[0].Expressions[0].Value.([]any) {
			msgs = append(msgs, v.(map[string]any)["msg"].(string))
		}
	}
	sort.Strings(msgs)
	return msgs
}

// eval evaluates the query with object under review, the objects of inv
// synced into data.inventory, and params as the constraint's parameters.
func (g *gatekeeperEval) eval(t testing.TB, object map[string]any, inv []map[string]any, params map[string]any) rego.ResultSet {
	t.Helper()
	ctx := context.Background()
	txn, err := g.store.NewTransaction(ctx, storage.WriteParams)
	if err != nil {
		t.Fatal(err)
	}
	defer g.store.Abort(ctx, txn)
	if err := g.store.Write(ctx, txn, storage.AddOp, storage.MustParsePath("/inventory"), inventory(inv)); err != nil {
		t.Fatal(err)
	}
	meta, _ := object["metadata"].(map[string]any)
	ns, _ := meta["namespace"].(string)
	name, _ := meta["name"].(string)
	input := map[string]any{
		"review": map[string]any{
			"kind":      map[string]any{"group": "ome.io", "version": "v1beta1", "kind": object["kind"]},
			"name":      name,
			"namespace": ns,
			"operation": "CREATE",
			"object":    object,
		},
		"parameters": params,
	}
	rs, err := g.query.Eval(ctx, rego.EvalTransaction(txn), rego.EvalInput(input))
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// namedRuntimeLabel labels the named-runtime case file among
// selectionCaseFiles' files: its cases run under a constraint that sets
// validateNamedRuntime.
const namedRuntimeLabel = "named-runtime-cases.yaml (validateNamedRuntime)"

// selectionCaseFiles are every case file of testdata/cases with selection
// cases.
func selectionCaseFiles(t *testing.T, release string) map[string][]cases.Case {
	t.Helper()
	paths, err := filepath.Glob(repoPath("testdata/cases/*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]cases.Case{}
	for _, p := range paths {
		cases, err := cases.ReadCases(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			if c.InferenceService != nil && c.HoldsFor(release) {
				out[filepath.Base(p)] = append(out[filepath.Base(p)], c)
			}
		}
	}
	return out
}

// TestSelectionTemplateAgreesWithSelect runs OMERuntimeSelection, as
// Gatekeeper would, on every selection case of testdata/cases and on the
// validate-named-runtime cases, and compares it with what `evaluate select`
// decides (on both engines, with the Go builtins) and with the case's
// expectation: no violation when OME admits the InferenceService, else
// exactly one, with OME's message.
func TestSelectionTemplateAgreesWithSelect(t *testing.T) {
	all, err := policyset.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range all.Releases() {
		t.Run(r, func(t *testing.T) {
			set, err := all.ForRelease(r)
			if err != nil {
				t.Fatal(err)
			}
			testSelectionTemplateAgreesWithSelect(t, set)
		})
	}
}

func testSelectionTemplateAgreesWithSelect(t *testing.T, set *policyset.Set) {
	selectors, err := engine.Selectors(engine.Both, set)
	if err != nil {
		t.Fatal(err)
	}
	g := templateEval(t, templateOf(t, set, "omeruntimeselection"))
	named, err := NamedRuntimeCaseFile()
	if err != nil {
		t.Fatal(err)
	}
	files := selectionCaseFiles(t, set.Release)
	files[namedRuntimeLabel] = cases.ForRelease(named, set.Release)
	total := 0
	for file, cases := range files {
		strict := file == namedRuntimeLabel
		converted, err := SelectionCases(cases)
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range cases {
			total++
			kept, _ := objects.Deduplicate(c.Objects)
			var want []string
			for _, s := range selectors {
				d, err := s.Select(c.InferenceService, kept)
				if err != nil {
					t.Fatalf("%s: %s: %s: %v", file, c.Name, s.Name(), err)
				}
				var msgs []string
				switch {
				case !d.Admitted:
					msgs = []string{d.Message}
				case strict && len(d.Warnings) > 0:
					msgs = []string{d.Warnings[0]}
				}
				if want == nil {
					want = append([]string{}, msgs...)
				} else if fmt.Sprint(want) != fmt.Sprint(msgs) {
					t.Errorf("%s: %s: the engines disagree: %q, %q", file, c.Name, want, msgs)
				}
			}
			if expect := converted[i].Messages; fmt.Sprint(expect) != fmt.Sprint(want) {
				t.Errorf("%s: %s: evaluate select says %q, the case expects %q", file, c.Name, want, expect)
			}
			params := map[string]any{"validateNamedRuntime": strict}
			got := g.review(t, converted[i].Object, converted[i].Inventory, params)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s: %s:\n  evaluate select: %q\n  template:        %q", file, c.Name, want, got)
			}
			// The same with the case's objects synced as they are, in order
			// (a later object of the same kind, namespace and name replaces
			// the earlier, and a cluster-scoped one may say a namespace).
			if got := g.review(t, converted[i].Object, values(c.Objects), params); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s: %s, objects as they are:\n  evaluate select: %q\n  template:        %q", file, c.Name, want, got)
			}
		}
	}
	t.Logf("%d selection cases in %d files", total, len(files))
}

// TestSelectionTemplateOnAGeneratedCluster: OMERuntimeSelection says what
// `evaluate select` says on a generated cluster of 300 runtimes with few
// architectures and many versions, for InferenceServices that are admitted
// and refused (the template first looks at the runtimes of the model's
// architecture only, then at all of them when those do not admit it).
func TestSelectionTemplateOnAGeneratedCluster(t *testing.T) {
	set, err := policyset.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	selectors, err := engine.Selectors(engine.Both, set)
	if err != nil {
		t.Fatal(err)
	}
	g := newGatekeeperEval(t, "omeruntimeselection")
	ms, rts := synth.ShapedCluster(9, 30, 300, selectionShape)
	ms = append(ms, map[string]any{"apiVersion": "ome.io/v1beta1", "kind": "ClusterBaseModel", "metadata": map[string]any{"name": "unmatched"},
		"spec": map[string]any{"modelFormat": map[string]any{"name": "safetensors"}, "modelArchitecture": "NoSuchArchitecture"}})
	cluster := generatedObjects(append(ms, rts...))
	inv := values(cluster)
	admitted, refused := 0, 0
	for _, m := range ms {
		name := m["metadata"].(map[string]any)["name"].(string)
		isvc := selectingInferenceService(name)
		var want []string
		for _, s := range selectors {
			d, err := s.Select(isvc, cluster)
			if err != nil {
				t.Fatalf("%s: %s: %v", name, s.Name(), err)
			}
			var msgs []string
			if !d.Admitted {
				msgs = []string{d.Message}
			}
			if want != nil && fmt.Sprint(want) != fmt.Sprint(msgs) {
				t.Fatalf("%s: the engines disagree", name)
			}
			want = msgs
		}
		if len(want) == 0 {
			admitted++
		} else {
			refused++
		}
		got := g.review(t, DeepCopy(isvc.Value), inv, nil)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s:\n  evaluate select: %.300q\n  template:        %.300q", name, want, got)
		}
	}
	if admitted == 0 || refused < 2 {
		t.Errorf("%d admitted, %d refused: both kinds are needed", admitted, refused)
	}
	t.Logf("%d admitted, %d refused", admitted, refused)
}

// TestRuntimeSpecFieldsAreAllThatIsRead: the Gatekeeper template hands
// the selection policy each runtime's kind, name, namespace,
// creationTimestamp, the spec fields of select.runtime_spec_fields and the
// annotations of those of select.runtime_spec_annotations only.
// On every selection case, and on a generated cluster, the Rego selector
// decides the same (the whole decision: candidates, excluded runtimes and
// reasons, warnings) with the runtimes cut down so.
func TestRuntimeSpecFieldsAreAllThatIsRead(t *testing.T) {
	set, err := policyset.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	qs, err := regoengine.Queries(set, []string{"ome.select", "ome.match"}, "data.ome.select.runtime_spec_fields")
	if err != nil {
		t.Fatal(err)
	}
	rs, err := qs[0].Eval(context.Background())
	if err != nil || len(rs) != 1 {
		t.Fatalf("runtime_spec_fields: %v %v", rs, err)
	}
	var fields []string
	for _, f := range rs[0].Expressions[0].Value.([]any) {
		fields = append(fields, f.(string))
	}
	qs, err = regoengine.Queries(set, []string{"ome.select", "ome.match"}, "data.ome.select.runtime_spec_annotations")
	if err != nil {
		t.Fatal(err)
	}
	rs, err = qs[0].Eval(context.Background())
	if err != nil || len(rs) != 1 {
		t.Fatalf("runtime_spec_annotations: %v %v", rs, err)
	}
	var annotated []string
	for _, f := range rs[0].Expressions[0].Value.([]any) {
		annotated = append(annotated, f.(string))
	}
	s, err := engine.NewSelector(engine.Rego, set)
	if err != nil {
		t.Fatal(err)
	}
	cut := func(objs []*objects.Object) []*objects.Object {
		out := make([]*objects.Object, len(objs))
		for i, o := range objs {
			c := *o
			if o.Kind == "ServingRuntime" || o.Kind == "ClusterServingRuntime" {
				meta, _ := o.Value["metadata"].(map[string]any)
				spec, _ := o.Value["spec"].(map[string]any)
				kept := pick(spec, fields...)
				for _, k := range annotated {
					if config, ok := spec[k].(map[string]any); ok {
						kept[k] = pick(config, "annotations")
					}
				}
				c.Value = map[string]any{"kind": o.Kind, "metadata": pick(meta, "name", "namespace", "creationTimestamp"), "spec": kept}
			}
			out[i] = &c
		}
		return out
	}
	type job struct {
		name string
		isvc *objects.Object
		objs []*objects.Object
	}
	var jobs []job
	for file, cs := range selectionCaseFiles(t, set.Release) {
		for _, c := range cs {
			kept, _ := objects.Deduplicate(c.Objects)
			jobs = append(jobs, job{file + ": " + c.Name, c.InferenceService, kept})
		}
	}
	ms, rts := synth.ShapedCluster(3, 20, 200, selectionShape)
	cluster := generatedObjects(append(ms, rts...))
	for _, m := range ms {
		name := m["metadata"].(map[string]any)["name"].(string)
		jobs = append(jobs, job{"generated: " + name, selectingInferenceService(name), cluster})
	}
	admitted, refused := 0, 0
	for _, j := range jobs {
		whole, err := s.Select(j.isvc, j.objs)
		if err != nil {
			t.Fatalf("%s: %v", j.name, err)
		}
		viewed, err := s.Select(j.isvc, cut(j.objs))
		if err != nil {
			t.Fatalf("%s: %v", j.name, err)
		}
		if !reflect.DeepEqual(whole, viewed) {
			a, _ := json.Marshal(whole)
			b, _ := json.Marshal(viewed)
			t.Errorf("%s:\n  whole runtimes: %.600s\n  cut down:       %.600s", j.name, a, b)
		}
		if whole.Admitted {
			admitted++
		} else {
			refused++
		}
	}
	if admitted == 0 || refused == 0 {
		t.Errorf("%d admitted, %d refused: both kinds are needed", admitted, refused)
	}
}

// selectionShape is the shape of bench/gatekeeper.sh's inventories: few
// architectures, many framework versions, every entry with the models'
// format and framework names.
var selectionShape = synth.Shape{Name: "gk", Architectures: 12, Versions: 150, Formats: 1}

// generatedObjects are generated objects as the loader would give them.
func generatedObjects(vs []map[string]any) []*objects.Object {
	out := make([]*objects.Object, len(vs))
	for i, v := range vs {
		out[i] = &objects.Object{Kind: v["kind"].(string), Name: v["metadata"].(map[string]any)["name"].(string), Value: v}
	}
	return out
}

// selectingInferenceService is an InferenceService of namespace default on
// the model, with an engine that has no runner of its own, so that OME
// selects a runtime.
func selectingInferenceService(model string) *objects.Object {
	return &objects.Object{Kind: "InferenceService", Namespace: "default", Name: "isvc-" + model, Value: map[string]any{
		"apiVersion": "ome.io/v1beta1", "kind": "InferenceService",
		"metadata": map[string]any{"name": "isvc-" + model, "namespace": "default"},
		"spec":     map[string]any{"model": map[string]any{"name": model}, "engine": map[string]any{}},
	}}
}

// pick is m with only the keys given (those it has).
func pick(m map[string]any, keys ...string) map[string]any {
	out := map[string]any{}
	for _, k := range keys {
		if v, ok := m[k]; ok {
			out[k] = v
		}
	}
	return out
}

// TestLintTemplateAgreesWithLint runs OMEVersionLint, as Gatekeeper would,
// on every model and runtime of testdata/ (lint fixtures, examples, OME's
// catalog, and the Gatekeeper lint objects), both its Rego code and its
// CEL code, and compares their violations with `evaluate lint`'s findings
// for the object, narrowed to the template's rules.
func TestLintTemplateAgreesWithLint(t *testing.T) {
	all, err := policyset.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range all.Releases() {
		t.Run(r, func(t *testing.T) {
			set, err := all.ForRelease(r)
			if err != nil {
				t.Fatal(err)
			}
			testLintTemplateAgreesWithLint(t, set)
		})
	}
}

func testLintTemplateAgreesWithLint(t *testing.T, set *policyset.Set) {
	linter, err := engine.NewLinter(engine.Both, set)
	if err != nil {
		t.Fatal(err)
	}
	rules, err := engine.LintRules(set)
	if err != nil {
		t.Fatal(err)
	}
	tp := templateOf(t, set, "omeversionlint")
	celCode := tp.CEL
	if celCode == nil {
		t.Fatal("OMEVersionLint has no CEL code")
	}
	g := templateEval(t, tp)
	c := newCELEval(t, celCode)
	objs, err := input.Load([]string{repoPath("testdata/lint"), repoPath("testdata/gatekeeper/lint-objects.yaml"),
		repoPath("testdata/examples/models"), repoPath("testdata/examples/runtimes"), repoPath("testdata/catalog")}, input.LoadOptions{Lenient: true})
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	infos := map[string]bool{} // rules lint gives as an info, which the template never enforces
	for _, o := range objs {
		if !o.IsModel() && !o.IsRuntime() {
			continue // the template reviews models and runtimes only
		}
		findings, err := engine.Lint(linter, []*objects.Object{o}, engine.LintOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range findings {
			if f.Severity == engine.SeverityInfo {
				infos[f.Rule] = true
			}
		}
		for _, params := range []map[string]any{
			nil, // the default: errors only
			{"severities": []any{"error"}},
			{"severities": []any{"warning"}},
			{"severities": []any{"error", "warning"}},
		} {
			sev := []string{engine.SeverityError}
			if params != nil {
				sev = nil
				for _, s := range params["severities"].([]any) {
					sev = append(sev, s.(string))
				}
			}
			want := LintViolations(findings, o, sev...)
			got := g.review(t, DeepCopy(o.Value), nil, params)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s (%s), severities %v:\n  evaluate lint: %q\n  Rego:          %q", o.Ref(), o.File, sev, want, got)
			}
			gotCEL, err := c.review(DeepCopy(o.Value), params)
			if err != nil {
				t.Fatalf("%s (%s): CEL: %v", o.Ref(), o.File, err)
			}
			sort.Strings(gotCEL)
			if fmt.Sprint(gotCEL) != fmt.Sprint(want) {
				t.Errorf("%s (%s), severities %v:\n  evaluate lint: %q\n  CEL:           %q", o.Ref(), o.File, sev, want, gotCEL)
			}
			if len(sev) == 2 {
				for _, m := range want {
					counts[m[1:strings.IndexByte(m, ']')]]++
				}
			}
		}
	}
	for _, r := range append(LintRules, "more-findings") {
		applies := true
		for _, rule := range rules {
			if rule.ID == r {
				applies = len(rule.Releases) == 0 || slices.Contains(rule.Releases, set.Release)
			}
		}
		if counts[r] == 0 && applies && !infos[r] {
			t.Errorf("no object of testdata gives %s", r)
		}
	}
	t.Logf("%d objects; violations by rule: %v", len(objs), counts)
}
