package admission

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/ome-policy/evaluator/builtins"
	"github.com/ome-policy/evaluator/builtins/regolib"
	"github.com/ome-policy/evaluator/internal/corpus"
)

// probeModule evaluates every function of a library on the strings of the
// input: ns is "ome" for the Go builtins and "data.lib.ome" for the stand-in.
// Undefined results become null so that both sides have the same shape.
func probeModule(ns string) string {
	return strings.ReplaceAll(`package probe

versions := [version(s) | some s in input.versions]

version(s) := {
	"is_valid": NS.version.is_valid(s),
	"parse": parse(s),
	"has_suffix": has_suffix(s),
	"parts": parts(s),
	"has_v": has_v(s),
}

parse(s) := x if x := NS.version.parse(s)
else := null

has_suffix(s) := x if x := NS.version.has_suffix(s)
else := null

parts(s) := x if x := NS.version.parts(s)
else := null

has_v(s) := x if x := NS.version.has_v(s)
else := null

version_pairs := [[equal(p[0], p[1]), compare(p[0], p[1])] | some p in input.version_pairs]

equal(a, b) := x if x := NS.version.equal(a, b)
else := null

compare(a, b) := x if x := NS.version.compare(a, b)
else := null

sizes := [size(s) | some s in input.sizes]

size(s) := x if x := NS.size.parse(s)
else := null

size_pairs := [size_compare(p[0], p[1]) | some p in input.size_pairs]

size_compare(a, b) := x if x := NS.size.compare(a, b)
else := null

floats := [is_float(s) | some s in input.sizes]

is_float(s) if NS.go.is_float(s)
else := false

# What OME reads of a URL: the error, the scheme, and whether there is a
# host (the stand-in keeps the host as written).
urls := [url(s) | some s in input.urls]

url(s) := [u.error, u.scheme, u.host != ""] if u := NS.go.parse_url(s)
else := null
`, "NS", ns)
}

// problemModule asks the stand-in why each string does not parse.
const problemModule = `package problems

problems := [data.lib.ome.version.problem(s) | some s in input.versions]
`

type probe struct {
	builtin, standIn rego.PreparedEvalQuery
	problems         rego.PreparedEvalQuery
}

func newProbe(t testing.TB) *probe {
	t.Helper()
	ctx := context.Background()
	query := "x := {\"versions\": data.probe.versions, \"version_pairs\": data.probe.version_pairs, \"sizes\": data.probe.sizes, \"size_pairs\": data.probe.size_pairs, \"floats\": data.probe.floats, \"urls\": data.probe.urls}"
	opts := []func(*rego.Rego){rego.Query(query), rego.Module("probe.rego", probeModule("ome"))}
	opts = append(opts, regolib.Options()...)
	b, err := rego.New(opts...).PrepareForEval(ctx)
	if err != nil {
		t.Fatal(err)
	}
	libOpts := []func(*rego.Rego){rego.Query(query), rego.Module("probe.rego", probeModule("data.lib.ome"))}
	for _, m := range Lib() {
		libOpts = append(libOpts, rego.Module(m.Path, m.Text))
	}
	s, err := rego.New(libOpts...).PrepareForEval(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pOpts := []func(*rego.Rego){rego.Query("x := data.problems.problems"), rego.Module("problems.rego", problemModule)}
	for _, m := range Lib() {
		pOpts = append(pOpts, rego.Module(m.Path, m.Text))
	}
	p, err := rego.New(pOpts...).PrepareForEval(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return &probe{builtin: b, standIn: s, problems: p}
}

type probeInput struct {
	versions     []string
	versionPairs [][2]string
	sizes        []string
	sizePairs    [][2]string
	urls         []string
}

func (in probeInput) value() ast.Value {
	strs := func(l []string) *ast.Term {
		terms := make([]*ast.Term, len(l))
		for i, s := range l {
			terms[i] = ast.StringTerm(s)
		}
		return ast.ArrayTerm(terms...)
	}
	pairs := func(l [][2]string) *ast.Term {
		terms := make([]*ast.Term, len(l))
		for i, p := range l {
			terms[i] = ast.ArrayTerm(ast.StringTerm(p[0]), ast.StringTerm(p[1]))
		}
		return ast.ArrayTerm(terms...)
	}
	return ast.NewObject(
		ast.Item(ast.StringTerm("versions"), strs(in.versions)),
		ast.Item(ast.StringTerm("version_pairs"), pairs(in.versionPairs)),
		ast.Item(ast.StringTerm("sizes"), strs(in.sizes)),
		ast.Item(ast.StringTerm("size_pairs"), pairs(in.sizePairs)),
		ast.Item(ast.StringTerm("urls"), strs(in.urls)),
	)
}

func evalValue(q rego.PreparedEvalQuery, in ast.Value) (ast.Value, error) {
	rs, err := q.Eval(context.Background(), rego.EvalParsedInput(in))
	if err != nil {
		return nil, err
	}
	if len(rs) != 1 {
		return nil, errors.New("no result")
	}
	return ast.InterfaceToValue(rs[0].Bindings["x"])
}

// check evaluates in with the Go builtins and with the stand-in, and
// returns one line per input on which they differ.
func (p *probe) check(in probeInput) ([]string, error) {
	iv := in.value()
	want, err := evalValue(p.builtin, iv)
	if err != nil {
		return nil, fmt.Errorf("builtins: %w", err)
	}
	got, err := evalValue(p.standIn, iv)
	if err != nil {
		return nil, fmt.Errorf("stand-in: %w", err)
	}
	var diffs []string
	cmp := func(key string, label func(i int) string) {
		w := want.(ast.Object).Get(ast.StringTerm(key)).Value.(*ast.Array)
		g := got.(ast.Object).Get(ast.StringTerm(key)).Value.(*ast.Array)
		for i := 0; i < w.Len(); i++ {
			if ast.Compare(w.Elem(i).Value, g.Elem(i).Value) != 0 {
				diffs = append(diffs, fmt.Sprintf("%s %s: builtin %v, stand-in %v", key, label(i), w.Elem(i), g.Elem(i)))
			}
		}
	}
	cmp("versions", func(i int) string { return fmt.Sprintf("%q", in.versions[i]) })
	cmp("version_pairs", func(i int) string { return fmt.Sprintf("%q, %q", in.versionPairs[i][0], in.versionPairs[i][1]) })
	cmp("sizes", func(i int) string { return fmt.Sprintf("%q", in.sizes[i]) })
	cmp("size_pairs", func(i int) string { return fmt.Sprintf("%q, %q", in.sizePairs[i][0], in.sizePairs[i][1]) })
	cmp("floats", func(i int) string { return fmt.Sprintf("%q", in.sizes[i]) })
	// An IP literal's address is checked by a pattern in the stand-in (see
	// lib/go.rego): both refuse it, in words that may differ.
	w := want.(ast.Object).Get(ast.StringTerm("urls")).Value.(*ast.Array)
	g := got.(ast.Object).Get(ast.StringTerm("urls")).Value.(*ast.Array)
	for i, u := range in.urls {
		wu, gu := w.Elem(i).Value, g.Elem(i).Value
		if corpus.IPLiteral(u) {
			refused := func(v ast.Value) bool { return v.(*ast.Array).Elem(0).Value.Compare(ast.String("")) != 0 }
			if refused(wu) != refused(gu) {
				diffs = append(diffs, fmt.Sprintf("urls %q: builtin %v, stand-in %v", u, wu, gu))
			}
			continue
		}
		if ast.Compare(wu, gu) != 0 {
			diffs = append(diffs, fmt.Sprintf("urls %q: builtin %v, stand-in %v", u, wu, gu))
		}
	}

	probs, err := evalValue(p.problems, iv)
	if err != nil {
		return nil, fmt.Errorf("stand-in problem: %w", err)
	}
	arr := probs.(*ast.Array)
	for i, s := range in.versions {
		wantProblem := ""
		if _, err := builtins.Parse(s); err != nil {
			var pe *builtins.ParseError
			if !errors.As(err, &pe) {
				return nil, err
			}
			wantProblem = pe.Reason
		}
		if g := string(arr.Elem(i).Value.(ast.String)); g != wantProblem {
			diffs = append(diffs, fmt.Sprintf("problem %q: parser %q, stand-in %q", s, wantProblem, g))
		}
	}
	return diffs, nil
}

// TestStandInEqualsBuiltins runs every function of the stand-in and of the
// Go builtins on the version and size strings of testdata/ and the
// Gatekeeper samples, and on a generated corpus of 100,000 version strings,
// 30,000 sizes (valid, near-valid and hostile; each also as a float) and
// 30,000 URLs, and on pairs of them.
func TestStandInEqualsBuiltins(t *testing.T) {
	p := newProbe(t)
	repo := corpus.RepoStrings(repoRoot, "testdata", "policies/gatekeeper")
	versions := append(append([]string(nil), repo...), corpus.Versions(100_000)...)
	sizes := append(append([]string(nil), repo...), corpus.Sizes(30_000)...)
	vpairs := corpus.VersionPairs(30_000, versions)
	spairs := corpus.SizePairs(30_000, sizes)
	urls := corpus.URLs(30_000)
	if testing.Short() {
		versions, sizes, vpairs, spairs, urls = versions[:5000], sizes[:3000], vpairs[:3000], spairs[:3000], urls[:3000]
	}
	t.Logf("%d version strings (%d from the repository), %d sizes, %d version pairs, %d size pairs", len(versions), len(repo), len(sizes), len(vpairs), len(spairs))
	const batch = 2500
	var batches []probeInput
	for i := 0; i < max(len(versions), len(sizes), len(vpairs), len(spairs), len(urls)); i += batch {
		batches = append(batches, probeInput{
			versions:     window(versions, i, batch),
			versionPairs: window(vpairs, i, batch),
			sizes:        window(sizes, i, batch),
			sizePairs:    window(spairs, i, batch),
			urls:         window(urls, i, batch),
		})
	}
	// Prepared queries are safe for concurrent use: one worker per CPU.
	results := make([][]string, len(batches))
	errs := make([]error, len(batches))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i], errs[i] = p.check(batches[i])
			}
		}()
	}
	for i := range batches {
		next <- i
	}
	close(next)
	wg.Wait()
	failures := 0
	for i := range batches {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		for _, d := range results[i] {
			if failures++; failures <= 50 {
				t.Error(d)
			}
		}
	}
	if failures > 50 {
		t.Errorf("... and %d more differences", failures-50)
	}
}

func window[T any](l []T, from, n int) []T {
	if from >= len(l) {
		return nil
	}
	return l[from:min(from+n, len(l))]
}

// FuzzStandIn compares the stand-in with the builtins on any two strings:
// each as a version, a size, a float and a URL, and the two as a pair of
// each.
//
//	go test ./admission -run '^$' -fuzz FuzzStandIn
func FuzzStandIn(f *testing.F) {
	for i, s := range append(corpus.Versions(200), corpus.SizeSeeds...) {
		f.Add(s, corpus.SizeSeeds[i%len(corpus.SizeSeeds)])
	}
	p := newProbe(f)
	f.Fuzz(func(t *testing.T, a, b string) {
		// Gatekeeper's input is JSON, which cannot carry invalid UTF-8.
		if !utf8.ValidString(a) || !utf8.ValidString(b) {
			t.Skip()
		}
		diffs, err := p.check(probeInput{
			versions:     []string{a, b},
			versionPairs: [][2]string{{a, b}},
			sizes:        []string{a, b},
			sizePairs:    [][2]string{{a, b}},
			urls:         []string{a, b},
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range diffs {
			t.Error(d)
		}
	})
}
