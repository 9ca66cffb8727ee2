package kyverno_test

import (
	"fmt"
	"path"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"gopkg.in/yaml.v3"

	"github.com/ome-policy/evaluator/admission"
	"github.com/ome-policy/evaluator/admission/kyverno"
	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/input"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/policies/policyset"
)

// lintFixtures are the lint fixtures the Kyverno lint policies are run on:
// every folder of testdata/lint and the lint objects of the suites (the
// repository's root is one folder up).
func lintFixtures(t *testing.T) []*objects.Object {
	t.Helper()
	roots := []string{"../../testdata/gatekeeper/lint-objects.yaml"}
	dirs, err := filepath.Glob("../../testdata/lint/*")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no lint fixture folder: %v", err)
	}
	roots = append(roots, dirs...)
	objs, err := input.Load(roots, input.LoadOptions{Lenient: true})
	if err != nil {
		t.Fatal(err)
	}
	var kept []*objects.Object
	for _, o := range objs {
		if o.IsModel() || o.IsRuntime() { // the kinds the policies review
			kept = append(kept, o)
		}
	}
	if len(kept) < 30 {
		t.Fatalf("%d lint fixtures", len(kept))
	}
	return kept
}

// kyvernoLintPolicy is one generated Kyverno lint ValidatingPolicy,
// compiled in CEL close to Kyverno's, evaluated as Kyverno evaluates it:
// each variable when first used, every validation in turn.
type kyvernoLintPolicy struct {
	names []string
	vars  map[string]cel.Program
	vals  []cel.Program
	msgs  []cel.Program
}

func newKyvernoLintPolicy(t *testing.T, file string, data []byte) *kyvernoLintPolicy {
	t.Helper()
	var doc struct {
		Kind string `yaml:"kind"`
		Spec struct {
			Variables []struct {
				Name       string `yaml:"name"`
				Expression string `yaml:"expression"`
			} `yaml:"variables"`
			Validations []struct {
				Expression        string `yaml:"expression"`
				MessageExpression string `yaml:"messageExpression"`
			} `yaml:"validations"`
		} `yaml:"spec"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	if doc.Kind != "ValidatingPolicy" || len(doc.Spec.Validations) == 0 {
		t.Fatalf("%s: a %s with %d validations", file, doc.Kind, len(doc.Spec.Validations))
	}
	opts := []cel.EnvOption{cel.Variable("object", cel.DynType)}
	for _, v := range doc.Spec.Variables {
		opts = append(opts, cel.Variable("variables."+v.Name, cel.DynType))
	}
	env := kyvernoCEL(t, opts...)
	compile := func(what, expr string) cel.Program {
		ast, iss := env.Compile(expr)
		if iss.Err() != nil {
			t.Fatalf("%s: %s: %v", file, what, iss.Err())
		}
		prg, err := env.Program(ast)
		if err != nil {
			t.Fatalf("%s: %s: %v", file, what, err)
		}
		return prg
	}
	p := &kyvernoLintPolicy{vars: map[string]cel.Program{}}
	for _, v := range doc.Spec.Variables {
		p.names = append(p.names, v.Name)
		p.vars[v.Name] = compile("variable "+v.Name, v.Expression)
	}
	for i, v := range doc.Spec.Validations {
		p.vals = append(p.vals, compile(fmt.Sprintf("validation %d", i), v.Expression))
		p.msgs = append(p.msgs, compile(fmt.Sprintf("message %d", i), v.MessageExpression))
	}
	return p
}

// review gives the messages of the failing validations, in order (Kyverno
// refuses with the first).
func (p *kyvernoLintPolicy) review(object map[string]any) ([]string, error) {
	act := map[string]any{"object": object}
	cache := map[string]ref.Val{}
	for _, name := range p.names {
		prog := p.vars[name]
		act["variables."+name] = func() ref.Val {
			if got, ok := cache[name]; ok {
				return got
			}
			out, _, err := prog.Eval(act)
			if err != nil {
				out = types.WrapErr(fmt.Errorf("variable %s: %w", name, err))
			}
			cache[name] = out
			return out
		}
	}
	var msgs []string
	for i, v := range p.vals {
		out, _, err := v.Eval(act)
		if err != nil {
			return nil, fmt.Errorf("validation %d: %w", i, err)
		}
		if out.Value() == true {
			continue
		}
		msg, _, err := p.msgs[i].Eval(act)
		if err != nil {
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
		s, _ := msg.Value().(string)
		msgs = append(msgs, s)
	}
	return msgs, nil
}

// omeVersionLintRefuses is what OMEVersionLint refuses of one object at
// severity, as src/omeversionlint.rego states it, from `evaluate lint`'s
// findings on the object alone: the single-object rules of errors and
// warnings, less a model's missing framework, a model's missing format
// when OME reads its files, and name-case but for well-known names; each
// "[rule] field: message", sorted; past 32, the first 31 and how many
// more there are.
func omeVersionLintRefuses(findings []engine.Finding, o *objects.Object, severity string) []string {
	rules := map[string]bool{
		"invalid-version": true, "empty-version": true, "unknown-operator": true, "missing-format": true,
		"missing-framework": true, "incomplete-size-range": true, "ordering-operator-with-suffix": true,
		"operator-without-version": true, "ignored-field": true, "unknown-deployment-mode": true, "name-case": true,
		"unparsed-size": true, "zero-weight": true, "implicit-autoselect": true,
	}
	readsFiles := true
	if meta, ok := o.Value["metadata"].(map[string]any); ok {
		if ann, ok := meta["annotations"].(map[string]any); ok && ann["ome.oracle.com/skip-config-parsing"] == "true" {
			readsFiles = false
		}
	}
	var out []string
	for _, f := range findings {
		if !rules[f.Rule] || f.Severity != severity ||
			o.IsModel() && (f.Rule == "missing-framework" || f.Rule == "missing-format" && readsFiles) ||
			f.Rule == "name-case" && !strings.Contains(f.Message, "is not how the well-known") {
			continue
		}
		out = append(out, "["+f.Rule+"] "+f.Field+": "+f.Message)
	}
	sort.Strings(out)
	if len(out) > 32 {
		out = append(out[:31], fmt.Sprintf("[more-findings] object: %d more lint findings; run evaluate lint on the object to see them all (first 31 shown)", len(out)-31))
	}
	return out
}

// TestKyvernoLintAgrees evaluates every release's Kyverno lint policies
// (one per severity, as `evaluate kyverno` writes them), in CEL close to
// Kyverno's, on every lint fixture: each object is refused with exactly
// the messages that OMEVersionLint gives of `evaluate lint`'s findings on
// it alone, on either engine, the first of which is Kyverno's, and
// passes when there are none; and the policy's .kyverno-test, made of the
// fixtures, expects what the policy gives.
func TestKyvernoLintAgrees(t *testing.T) {
	all, err := policyset.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	fixtures := lintFixtures(t)
	for _, r := range all.Releases() {
		t.Run(r, func(t *testing.T) {
			set, err := all.ForRelease(r)
			if err != nil {
				t.Fatal(err)
			}
			linters := map[string]engine.Linter{}
			for _, name := range []string{engine.CEL, engine.Rego} {
				if linters[name], err = engine.NewLinter(name, set); err != nil {
					t.Fatal(err)
				}
			}
			// The bundle with the fixtures in its Tests, as the CLI lints them.
			linted, err := admission.LintEach(linters[engine.Rego], fixtures)
			if err != nil {
				t.Fatal(err)
			}
			b, err := kyverno.Generate(admission.Options{Policies: set, Lint: linted})
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range kyverno.Severities {
				name := "ome-version-lint-" + s.Severity
				file := path.Join(name, name+".yaml")
				if _, ok := b[file]; !ok {
					t.Fatalf("the bundle has no %s", file)
				}
				policy := newKyvernoLintPolicy(t, file, b[file])
				refused, failures := 0, 0
				for _, o := range fixtures {
					got, err := policy.review(admission.DeepCopy(o.Value))
					if err != nil {
						t.Errorf("%s: %s: %v", name, o.Ref(), err)
						continue
					}
					if len(got) > 0 {
						refused++
					}
					for _, e := range []string{engine.CEL, engine.Rego} {
						findings, err := engine.Lint(linters[e], []*objects.Object{o}, engine.LintOptions{})
						if err != nil {
							t.Fatalf("%s: lint %s: %v", e, o.Ref(), err)
						}
						want := omeVersionLintRefuses(findings, o, s.Severity)
						if !reflect.DeepEqual(got, want) && (len(got) > 0 || len(want) > 0) {
							if failures++; failures <= 10 {
								t.Errorf("%s: %s:\n got: %q\nwant: %q (evaluate lint, %s)", name, o.Ref(), got, want, e)
							}
						}
					}
				}
				kyvernoTestsAgree(t, b, name, policy)
				if refused == 0 || refused == len(fixtures) {
					t.Errorf("%s refuses %d of %d fixtures", name, refused, len(fixtures))
				}
				t.Logf("%s refuses %d of %d fixtures", name, refused, len(fixtures))
			}
		})
	}
}

// kyvernoTestsAgree holds the .kyverno-test of a lint policy to what the
// policy gives in process: each resource fails when the policy refuses
// it, with its first message (Kyverno's) in the result's comment, and
// passes otherwise.
func kyvernoTestsAgree(t *testing.T, b admission.Bundle, name string, policy *kyvernoLintPolicy) {
	t.Helper()
	dir := path.Join(name, ".kyverno-test")
	dec := yaml.NewDecoder(strings.NewReader(string(b[path.Join(dir, "kyverno-test.yaml")])))
	n := 0
	for {
		var doc yaml.Node
		if err := dec.Decode(&doc); err != nil {
			break
		}
		var test struct {
			Resources []string `yaml:"resources"`
			Results   []struct {
				Result string `yaml:"result"`
			} `yaml:"results"`
		}
		if err := doc.Decode(&test); err != nil || len(test.Resources) != 1 {
			t.Fatalf("%s: a Test of resources %v: %v", dir, test.Resources, err)
		}
		var results *yaml.Node
		for i := 0; i+1 < len(doc.Content[0].Content); i += 2 {
			if doc.Content[0].Content[i].Value == "results" {
				results = doc.Content[0].Content[i+1]
			}
		}
		var objs []map[string]any
		rd := yaml.NewDecoder(strings.NewReader(string(b[path.Join(dir, test.Resources[0])])))
		for {
			var o map[string]any
			if err := rd.Decode(&o); err != nil {
				break
			}
			objs = append(objs, o)
		}
		if results == nil || len(objs) != len(test.Results) {
			t.Fatalf("%s: %s: %d resources, %d results", dir, test.Resources[0], len(objs), len(test.Results))
		}
		for i, o := range objs {
			n++
			got, err := policy.review(admission.DeepCopy(o))
			if err != nil {
				t.Errorf("%s: %s #%d: %v", dir, test.Resources[0], i, err)
				continue
			}
			want := "pass"
			if len(got) > 0 {
				want = "fail: # " + got[0]
			}
			have := test.Results[i].Result
			if have == "fail" {
				have += ": " + results.Content[i].HeadComment
			}
			if have != want {
				t.Errorf("%s: %s #%d: the Test says %q; the policy gives %q", dir, test.Resources[0], i, have, want)
			}
		}
	}
	if n == 0 {
		t.Errorf("%s: no result", dir)
	}
}

// kyvernoCEL is a CEL environment close to Kyverno's (its pkg/cel/compiler:
// homogeneous literals, optional types, the bindings, lists v3, math, sets,
// strings v2 and regex extensions), with vars, as package admission's tests
// build it for the selection policy.
func kyvernoCEL(t testing.TB, vars ...cel.EnvOption) *cel.Env {
	t.Helper()
	opts := append(admission.KyvernoEnvOptions(), vars...)
	env, err := cel.NewEnv(opts...)
	if err != nil {
		t.Fatal(err)
	}
	return env
}
