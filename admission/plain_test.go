package admission

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"gopkg.in/yaml.v3"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/input"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/policies/policyset"
)

// plainEntryVariants are runtime entries near the plain ones of lint's fast
// path (lint.rego's plain_entries, lint.yaml's plainEntries), each of them
// different in one or two fields: names, versions, operators, weights,
// types, and keys that are missing or extra.
func plainEntryVariants() []any {
	block := func(name, version, operator, weight any) map[string]any {
		b := map[string]any{}
		for k, v := range map[string]any{"name": name, "version": version, "operator": operator, "weight": weight} {
			if v != nil {
				b[k] = v
			}
		}
		return b
	}
	entry := func(format, framework any) map[string]any {
		return map[string]any{"modelFormat": format, "modelFramework": framework, "modelArchitecture": "LlamaForCausalLM"}
	}
	names := []any{nil, "transformers", "Transformers", "TRANSFORMERS", "", "x.y-z_1", "tensor rt", 5}
	versions := []any{nil, "4.46.0", "v4.46", "4", "4.45.0.dev0", "4.45.0-rc.1", "4.45.0+b1", "4.45.0-rc-1", "4.45.dev0",
		"04.1", "", "V4.1", "123456789.1.1", "1234567890.1.1", "99999999999999999999.0.0", "4.45.0.", 4.4, []any{"4"}}
	operators := []any{nil, "Equal", "GreaterThan", "GreaterThanOrEqual", "LessThan", "equal", "", 1}
	format := block("safetensors", "1.0.0", nil, nil)
	var out []any
	for _, n := range names {
		for _, v := range versions {
			for _, op := range operators {
				out = append(out, entry(format, block(n, v, op, nil)))
			}
		}
	}
	for _, v := range versions {
		for _, op := range operators {
			out = append(out, entry(block("safetensors", v, op, nil), block("transformers", "4.46.0", nil, nil)))
		}
	}
	for _, w := range []any{1, -2, 1.5, "1", true} {
		out = append(out, entry(format, block("transformers", "4.46.0", "GreaterThan", w)))
		out = append(out, entry(block("safetensors", nil, nil, w), block("transformers", nil, nil, nil)))
	}
	framework := block("transformers", "4.46.0", nil, nil)
	for k, vs := range map[string][]any{
		"modelArchitecture": {5, true, "", `x"y`},
		"quantization":      {"fp8", 8, false},
		"autoSelect":        {true, false, "yes", 1},
		"priority":          {1, -3, 1.5, "1"},
		"name":              {"transformers", 1},
		"version":           {"1.0.0"},
		"runtime":           {"x"},
		"modelFormat":       {nil, "safetensors", map[string]any{}, []any{}},
		"modelFramework":    {nil, map[string]any{"name": "transformers", "extra": 1}},
	} {
		for _, v := range vs {
			e := entry(format, framework)
			if v == nil {
				delete(e, k)
			} else {
				e[k] = v
			}
			out = append(out, e)
		}
	}
	e := entry(format, framework)
	delete(e, "modelArchitecture")
	out = append(out, e, entry(block("Safetensors", nil, nil, nil), block("PyTorch", nil, nil, nil)), "safetensors", 5, []any{})
	return out
}

// TestPlainEntriesHaveNothingToFind checks lint's fast path: evaluate lint
// (both engines) and OMEVersionLint (its Rego and its CEL) give the same
// findings and violations on every variant when the rules read every entry,
// plain or not. The policies without the fast path are the embedded ones
// with plain_entries empty, plain_block and plain_version false for every
// block and version, and plainEntries false for every entry.
func TestPlainEntriesHaveNothingToFind(t *testing.T) {
	set, err := policyset.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	slow := new(policyset.Set)
	*slow = *set // the same release and releases, other files
	slow.Origin, slow.Files = "without plain entries", nil
	edits := 0
	for _, f := range set.Files {
		text, err := f.Source()
		if err != nil {
			t.Fatal(err)
		}
		switch f.Path {
		case "rego/lint.rego":
			for _, r := range [][2]string{
				{"plain_entries := {i |", "plain_entries := set() if true\nelse := {i |"},
				{`plain_block("entry", b) if regex.match(`, `plain_block("entry", b) if false` + "\n\n" + `_unused(b) if regex.match(`},
				{"plain_version(v) if {", "plain_version(v) if false\n\n_unused_version(v) if {"},
			} {
				if !strings.Contains(text, r[0]) {
					t.Fatalf("lint.rego: no %s", r[0])
				}
				text = strings.Replace(text, r[0], r[1], 1)
			}
			f = f.WithSource(text)
			edits++
		case "cel/lint.yaml":
			i := strings.Index(text, "  - name: plainEntries\n")
			j := strings.Index(text, "  # The entries that are objects, with their paths, but for the plain")
			if i < 0 || j < i {
				t.Fatal("lint.yaml: no plainEntries variable before mapEntries")
			}
			f = f.WithSource(text[:i] + "  - name: plainEntries\n    expression: variables.formatsList.map(e, false)\n" + text[j:])
			edits++
		}
		slow.Files = append(slow.Files, f)
	}
	if edits != 2 {
		t.Fatalf("found %d of lint.rego and lint.yaml", edits)
	}

	// The variants, one runtime each, read as evaluate lint reads them.
	variants := plainEntryVariants()
	var docs []string
	for i, e := range variants {
		b, err := yaml.Marshal(map[string]any{"apiVersion": "ome.io/v1beta1", "kind": "ClusterServingRuntime",
			"metadata": map[string]any{"name": fmt.Sprintf("r%d", i)}, "spec": map[string]any{"supportedModelFormats": []any{e}}})
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, string(b))
	}
	path := filepath.Join(t.TempDir(), "variants.yaml")
	if err := os.WriteFile(path, []byte(strings.Join(docs, "---\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	objs, err := input.Load([]string{path}, input.LoadOptions{Lenient: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != len(variants) {
		t.Fatalf("read %d runtimes of %d", len(objs), len(variants))
	}

	type engines struct {
		linter engine.Linter
		rego   *gatekeeperEval
		cel    *celEval
	}
	build := func(s *policyset.Set) engines {
		l, err := engine.NewLinter(engine.Both, s)
		if err != nil {
			t.Fatal(err)
		}
		tp := templateOf(t, s, "omeversionlint")
		return engines{l, templateEval(t, tp), newCELEval(t, tp.CEL)}
	}
	fast, full := build(set), build(slow)

	// Which variants the fast path takes, on each engine.
	tp := templateOf(t, set, "omeversionlint")
	plainRego := regoPlain(t, tp)
	plainCEL := celPlain(t, tp)

	params := map[string]any{"severities": []any{"error", "warning"}}
	plain := [2]int{}
	for i, o := range objs {
		e := variants[i]
		if plainRego(e) {
			plain[0]++
		}
		if plainCEL(o.Value) {
			plain[1]++
		}
		a, err := engine.Lint(fast.linter, []*objects.Object{o}, engine.LintOptions{})
		if err != nil {
			t.Fatal(err)
		}
		b, err := engine.Lint(full.linter, []*objects.Object{o}, engine.LintOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(a) != fmt.Sprint(b) {
			t.Errorf("evaluate lint on %v:\n  with plain entries:    %v\n  reading every entry:  %v", e, a, b)
		}
		ra, rb := fast.rego.review(t, DeepCopy(o.Value), nil, params), full.rego.review(t, DeepCopy(o.Value), nil, params)
		if fmt.Sprint(ra) != fmt.Sprint(rb) {
			t.Errorf("OMEVersionLint (Rego) on %v:\n  with plain entries:    %q\n  reading every entry:  %q", e, ra, rb)
		}
		ca, err := fast.cel.review(DeepCopy(o.Value), params)
		if err != nil {
			t.Fatalf("%v: %v", e, err)
		}
		cb, err := full.cel.review(DeepCopy(o.Value), params)
		if err != nil {
			t.Fatalf("%v: %v", e, err)
		}
		sort.Strings(ca)
		sort.Strings(cb)
		if fmt.Sprint(ca) != fmt.Sprint(cb) {
			t.Errorf("OMEVersionLint (CEL) on %v:\n  with plain entries:    %q\n  reading every entry:  %q", e, ca, cb)
		}
	}
	// The variants hold plain entries and entries that are not.
	for k, name := range []string{"lint.rego's plain_entries", "lint.yaml's plainEntries"} {
		if plain[k] < 20 || plain[k] > len(variants)/2 {
			t.Errorf("%s takes %d of %d variants", name, plain[k], len(variants))
		}
	}
	t.Logf("%d variants; plain: %d (Rego), %d (CEL)", len(variants), plain[0], plain[1])
}

// regoPlain is lint.rego's plain_entries, in the template's libs, on a
// runtime of one entry.
func regoPlain(t *testing.T, tp *Check) func(any) bool {
	t.Helper()
	opts := []func(*rego.Rego){rego.Query("0 in data.lib.ome.lint.plain_entries"), rego.Capabilities(ast.CapabilitiesForThisVersion())}
	for _, m := range tp.modules {
		opts = append(opts, rego.ParsedModule(m))
	}
	q, err := rego.New(opts...).PrepareForEval(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return func(e any) bool {
		// Gatekeeper's input: the template's lib.ome.given gives the
		// object under review to the lint rules.
		rs, err := q.Eval(context.Background(), rego.EvalInput(map[string]any{"review": map[string]any{"object": map[string]any{
			"kind": "ClusterServingRuntime", "spec": map[string]any{"supportedModelFormats": []any{e}}}}}))
		if err != nil {
			t.Fatal(err)
		}
		return len(rs) == 1 && rs[0].Expressions[0].Value == true
	}
}

// celPlain is lint.yaml's plainEntries on a runtime of one entry, as the
// template's CEL code has it.
func celPlain(t *testing.T, tp *Check) func(map[string]any) bool {
	t.Helper()
	var names []string
	for _, v := range tp.CEL.Variables {
		names = append(names, v.Name)
		if v.Name == "plainEntries" {
			break
		}
	}
	block := &CELBlock{Variables: tp.CEL.Variables[:len(names)]}
	c := newCELEval(t, block)
	return func(o map[string]any) bool {
		vars := map[string]any{"params": nil}
		act := map[string]any{"object": o, "variables": vars}
		for i, p := range c.vars {
			v, _, err := p.Eval(act)
			if err != nil {
				t.Fatalf("%s: %v", c.names[i], err)
			}
			vars[c.names[i]] = v
		}
		return fmt.Sprint(vars["plainEntries"]) == "[true]"
	}
}
