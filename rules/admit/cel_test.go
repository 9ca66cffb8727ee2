package admit

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"

	"github.com/ome-policy/evaluator/admission"
	"github.com/ome-policy/evaluator/builtins/cellib"
	"github.com/ome-policy/evaluator/internal/corpus"
	"github.com/ome-policy/evaluator/rules"
)

// teamStandInExprs call every function and method of the ome library that
// has a stand-in, on object.x and object.y, as a team's policy would: on
// omeVersion(...) itself, on a version bound by a macro, and on a list of
// versions a macro makes.
var teamStandInExprs = []string{
	`omeVersion(object.x).compareTo(omeVersion(object.y))`,
	`omeVersion(object.x).isEqualTo(omeVersion(object.y))`,
	`omeVersion(object.x) == omeVersion(object.y)`,
	`omeVersion(object.x) != omeVersion(object.y)`,
	`omeVersion(object.x).parts()`,
	`omeVersion(object.x).hasV()`,
	`omeVersion(object.x).hasSuffix()`,
	`omeVersion(object.x).major()`,
	`omeVersion(object.x).minor()`,
	`omeVersion(object.x).patch()`,
	`omeVersion(object.x).dev()`,
	`omeVersion(object.x).pre()`,
	`omeVersion(object.x).build()`,
	`string(omeVersion(object.x))`,
	`isOmeVersion(object.x)`,
	`omeVersionProblem(object.x)`,
	`omeQuote(object.x)`,
	`[object.x, object.y].map(s, omeVersion(s)).all(v, v.compareTo(omeVersion("4.40")) >= 0)`,
	`[omeVersion(object.x)].exists(v, v == omeVersion(object.y) || v.hasSuffix() && v.parts() == 3 && v.hasV())`,
	`[object.y].map(s, omeVersion(s))[0].compareTo(omeVersion(object.x)) < 0 || string([omeVersion(object.x)][0]) == object.y`,
	`!isOmeVersion(object.x) || omeVersion(object.x).compareTo(omeVersion(object.y)) >= 0`,
	// Literals, whose maps the translation makes.
	`[omeVersion(object.x).compareTo(omeVersion("v18446744073709551615.0.1-rc.1+b.2")), omeVersion(object.x).compareTo(omeVersion("4.40.1"))]`,
	`omeVersion("4.40.0.dev0").isEqualTo(omeVersion(object.x)) || omeVersion(object.x) == omeVersion("v1.2")`,
	`[string(omeVersion("v4.40")), string(omeVersion(object.x))]`,
	`omeVersion("1.2.3.a-b.c+d.e").dev() == omeVersion(object.x).dev() && omeVersion("1.2.3.a-b.c+d.e").build() != omeVersion(object.x).build()`,
	`[dyn(omeVersion("v1.2.3-rc.1.x").pre()), dyn(omeVersion("1.2").dev()), dyn(omeVersion("v1.2").hasV()), dyn(omeVersion("1.2.3+b").hasSuffix()), dyn(omeVersion("1").parts())]`,
	`omeVersion("1.0-rc1").hasV() || object.x == ""`,
}

// teamStandInPrograms are the programs of teamStandInExprs: with the ome
// library, and translated for Kubernetes' CEL and Kyverno's.
type teamStandInPrograms struct {
	lib, kubernetes, kyverno []cel.Program
}

func newTeamStandInPrograms(t testing.TB, exprs []string) *teamStandInPrograms {
	t.Helper()
	env := func(opts ...cel.EnvOption) *cel.Env {
		e, err := cel.NewEnv(opts...)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	lib := env(append(rules.KubernetesEnvOptions(), cellib.Library())...)
	k8s := env(rules.KubernetesEnvOptions()...)
	kyv := env(append(admission.KyvernoEnvOptions(), cel.Variable("object", cel.DynType), cel.Variable("variables", cel.MapType(cel.StringType, cel.DynType)))...)
	tr, err := NewTeamTranslator(nil)
	if err != nil {
		t.Fatal(err)
	}
	p := &teamStandInPrograms{}
	for _, e := range exprs {
		out, err := tr.Translate(e, false)
		if err != nil {
			t.Fatalf("%s: %v", e, err)
		}
		if strings.Contains(out, "ome") && !strings.Contains(out, "OME version") {
			t.Fatalf("%s: the translation still calls the library: %s", e, out)
		}
		p.lib = append(p.lib, corpus.Program(t, lib, e))
		p.kubernetes = append(p.kubernetes, corpus.Program(t, k8s, out))
		p.kyverno = append(p.kyverno, corpus.Program(t, kyv, out))
	}
	return p
}

// canonicalValue writes a CEL value with its type, lists element by
// element, so that a list(string) and a list(dyn) of the same strings
// read the same.
func canonicalValue(v ref.Val) string {
	if l, ok := v.(traits.Lister); ok {
		var parts []string
		for it := l.Iterator(); it.HasNext() == types.True; {
			parts = append(parts, canonicalValue(it.Next()))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return fmt.Sprintf("%s(%v)", v.Type().TypeName(), v.Value())
}

// check runs every expression on x and y and gives the differences:
// where the library fails, each stand-in must fail; elsewhere it must give
// the library's value. It counts the evaluations that gave a value and
// those that failed.
func (p *teamStandInPrograms) check(exprs []string, x, y string, values, failures *int) []string {
	in := map[string]any{"object": map[string]any{"x": x, "y": y}, "variables": map[string]any{}}
	var diffs []string
	for i, e := range exprs {
		want, _, werr := p.lib[i].Eval(in)
		for target, prg := range map[string]cel.Program{"Kubernetes": p.kubernetes[i], "Kyverno": p.kyverno[i]} {
			got, _, gerr := prg.Eval(in)
			switch {
			case werr != nil && gerr == nil:
				diffs = append(diffs, fmt.Sprintf("%s, x=%q y=%q: the library fails (%v), the %s stand-in gives %s", e, x, y, werr, target, canonicalValue(got)))
			case werr == nil && gerr != nil:
				diffs = append(diffs, fmt.Sprintf("%s, x=%q y=%q: the library gives %s, the %s stand-in fails: %v", e, x, y, canonicalValue(want), target, gerr))
			case werr == nil && canonicalValue(want) != canonicalValue(got):
				diffs = append(diffs, fmt.Sprintf("%s, x=%q y=%q: the library gives %s, the %s stand-in %s", e, x, y, canonicalValue(want), target, canonicalValue(got)))
			}
		}
		if werr != nil {
			*failures++
		} else {
			*values++
		}
	}
	return diffs
}

// teamVersionPairs are pairs that the generated strs may hold too
// rarely: versions that differ only in the patch, or in the last digit
// of a number, at the top of 64 bits, with and without v, with fewer
// parts, with each suffix, and versions beside strings that are none.
var teamVersionPairs = [][2]string{
	{"4.40.1", "4.40.2"}, {"4.40.2", "4.40.1"}, {"4.40.9", "4.40.10"}, {"4.40.10", "4.40.9"}, {"1.2.3", "1.2.3"},
	{"1.2.0", "1.2"}, {"v1.2", "1.2.0"}, {"1", "1.0.1"}, {"1.0.1", "1"}, {"0.0.1", "0.0.0"}, {"0.0.0", "0.0.1"},
	{"18446744073709551615.0.0", "18446744073709551614.0.0"}, {"1.18446744073709551615.1", "1.18446744073709551615.0"},
	{"1.2.18446744073709551615", "1.2.18446744073709551614"}, {"1.2.3.dev0", "1.2.3"}, {"1.2.3-rc.1", "1.2.3-rc.2"},
	{"1.2.3+b.1", "1.2.3+b.1"}, {"1.2.3.a-b.c+d.e", "v1.2.3.a-b.c+d.e"}, {"1.2.3-a-b", "1.2.3-a-b"}, {"1.2.3+a+b", "1.2.3+a-b"},
	{"4.40", "4.40.0.dev0"}, {"v4.41", "4.40.99"}, {"", "1.0"}, {"1.0", ""}, {"1.0-rc1", "1.0.0"}, {"01.0", "1.0"},
	{"1.2.3.", "1.2.3"}, {"1.2.3-", "1.2.3"}, {"1..2", "1.2"}, {"18446744073709551616", "1"}, {"V1.2", "v1.2"}, {"latest", "4.40"},
	{"1.2.3.dév", "1.2.3.dév"}, {" 1.2", "1.2"},
}

// TestTeamStandInsAgreeWithTheLibrary holds the stand-ins of a team's
// rules (TeamTranslator), in Kubernetes' CEL and in Kyverno's, to the ome
// library on the version strings of the repository, the generated strs
// (valid versions, near misses, hostile strings) and pairs of them.
func TestTeamStandInsAgreeWithTheLibrary(t *testing.T) {
	p := newTeamStandInPrograms(t, teamStandInExprs)
	strs := append(corpus.RepoStrings(repoRoot, "testdata"), corpus.Versions(20_000)...)
	pairs := append(append([][2]string(nil), teamVersionPairs...), corpus.VersionPairs(6_000, strs)...)
	if testing.Short() {
		pairs = pairs[:2000]
	}
	// Programs are safe for concurrent use: one worker per CPU.
	type outcome struct {
		diffs            []string
		values, failures int
	}
	results := make([]outcome, len(pairs))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if utf8.ValidString(pairs[i][0]) && utf8.ValidString(pairs[i][1]) {
					r := &results[i]
					r.diffs = p.check(teamStandInExprs, pairs[i][0], pairs[i][1], &r.values, &r.failures)
				}
			}
		}()
	}
	for i := range pairs {
		next <- i
	}
	close(next)
	wg.Wait()
	values, failures, diffs := 0, 0, 0
	for _, r := range results {
		values, failures = values+r.values, failures+r.failures
		for _, d := range r.diffs {
			if diffs++; diffs <= 30 {
				t.Error(d)
			}
		}
	}
	if diffs > 30 {
		t.Errorf("... %d differences in all", diffs)
	}
	t.Logf("%d pairs: %d evaluations gave a value, %d failed on both sides", len(pairs), values, failures)
	if values < len(pairs) || failures < len(pairs) {
		t.Errorf("%d values and %d failures: the strs must give both, many times", values, failures)
	}
}

// FuzzTeamStandIns holds the stand-ins of a team's rules to the library on
// any two strings.
//
//	go test ./admission -run '^$' -fuzz FuzzTeamStandIns
func FuzzTeamStandIns(f *testing.F) {
	for _, p := range teamVersionPairs {
		f.Add(p[0], p[1])
	}
	for _, p := range corpus.VersionPairs(200, corpus.Versions(200)) {
		f.Add(p[0], p[1])
	}
	p := newTeamStandInPrograms(f, teamStandInExprs)
	f.Fuzz(func(t *testing.T, x, y string) {
		// An object under admission is JSON, which cannot carry invalid UTF-8.
		if !utf8.ValidString(x) || !utf8.ValidString(y) {
			t.Skip()
		}
		var values, failures int
		for _, d := range p.check(teamStandInExprs, x, y, &values, &failures) {
			t.Error(d)
		}
	})
}

// Every overload of the ome library is either called by
// teamStandInExprs, whose stand-ins TestTeamStandInsAgreeWithTheLibrary
// holds to the library, or refused by name with the reason
// (noStandIn): a function added to the library cannot reach a team's
// rules without one or the other.
func TestEveryLibraryFunctionHasAStandInOrIsRefused(t *testing.T) {
	env, err := cel.NewEnv(append(rules.KubernetesEnvOptions(), cellib.Library())...)
	if err != nil {
		t.Fatal(err)
	}
	called := map[string]bool{}
	for _, e := range teamStandInExprs {
		a, iss := env.Compile(e)
		if iss.Err() != nil {
			t.Fatal(iss.Err())
		}
		for _, ref := range a.NativeRep().ReferenceMap() {
			for _, id := range ref.OverloadIDs {
				called[id] = true
			}
		}
	}
	tr, err := NewTeamTranslator(nil)
	if err != nil {
		t.Fatal(err)
	}
	overloads := 0
	for name, fn := range env.Functions() {
		for _, o := range fn.OverloadDecls() {
			id := o.ID()
			if !omeOverload([]string{id}) {
				continue
			}
			overloads++
			if called[id] {
				if _, refused := noStandIn[name]; refused {
					t.Errorf("%s (%s) has a stand-in and a refusal", name, id)
				}
				continue
			}
			why, refused := noStandIn[name]
			if !refused || why == "" {
				t.Errorf("%s (%s): no expression of teamStandInExprs calls it, and no refusal says why it has no stand-in", name, id)
				continue
			}
			args := []string{`"1B"`, `"2B"`}[:len(o.ArgTypes())]
			_, err := tr.Translate("dyn("+name+"("+strings.Join(args, ", ")+")) != null", false)
			var missing *admission.NoStandIn
			if !errors.As(err, &missing) || missing.Name != name || missing.Why != why {
				t.Errorf("%s: translating a call gives %v, not its refusal", name, err)
			}
		}
	}
	if overloads < 20 {
		t.Errorf("%d overloads of the library: fewer than it has", overloads)
	}
}

// repoRoot is the repository's root, from this package's folder.
const repoRoot = "../.."
