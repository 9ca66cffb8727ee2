package admission

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"testing"
	"unicode/utf8"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/ext"

	"github.com/ome-policy/evaluator/builtins"
	"github.com/ome-policy/evaluator/internal/corpus"
)

// kubernetesCEL is an environment close to the CEL of Kubernetes and
// Gatekeeper: the standard library, optional types, and the strings and
// lists extensions. The real one is checked by gator verify.
func kubernetesCEL(t testing.TB, vars ...cel.EnvOption) *cel.Env {
	t.Helper()
	opts := append([]cel.EnvOption{cel.OptionalTypes(), ext.Strings(), ext.Lists()}, vars...)
	env, err := cel.NewEnv(opts...)
	if err != nil {
		t.Fatal(err)
	}
	return env
}

// TestPlainCELVersionStandIns checks the plain-CEL stand-ins of
// isOmeVersion, omeVersionProblem, hasSuffix and parts against the Go
// parser on the repository's strings and the generated corpus.
func TestPlainCELVersionStandIns(t *testing.T) {
	if _, err := regexp.Compile(VersionPattern()); err != nil {
		t.Fatal(err)
	}
	env := kubernetesCEL(t, cel.Variable("x", cel.StringType))
	valid := corpus.Program(t, env, celIsValid("x"))
	problem := corpus.Program(t, env, celProblem("x"))
	suffix := corpus.Program(t, env, celHasSuffix("x"))
	parts := corpus.Program(t, env, celParts("x"))
	strs := append(corpus.RepoStrings(repoRoot, "testdata", "policies/gatekeeper"), corpus.Versions(100_000)...)
	if testing.Short() {
		strs = strs[:3000]
	}
	failures := 0
	fail := func(format string, args ...any) {
		if failures++; failures <= 30 {
			t.Errorf(format, args...)
		}
	}
	quick := regexp.MustCompile(WellFormedVersionPattern())
	quickMatches := 0
	for _, s := range strs {
		if !utf8.ValidString(s) {
			continue
		}
		in := map[string]any{"x": s}
		v, err := builtins.Parse(s)
		wantProblem := ""
		var pe *builtins.ParseError
		if errors.As(err, &pe) {
			wantProblem = pe.Reason
		}
		if quick.MatchString(s) {
			quickMatches++
			if wantProblem != "" {
				fail("WellFormedVersionPattern matches %q, which does not parse: %s", s, wantProblem)
			}
		}
		if got, _, err := valid.Eval(in); err != nil || got.Value() != (wantProblem == "") {
			fail("isOmeVersion(%q) = %v, %v; want %v", s, got, err, wantProblem == "")
		}
		if got, _, err := problem.Eval(in); err != nil || got.Value() != wantProblem {
			fail("omeVersionProblem(%q) = %v, %v; want %q", s, got, err, wantProblem)
		}
		if wantProblem != "" {
			continue
		}
		if got, _, err := suffix.Eval(in); err != nil || got.Value() != v.HasSuffix() {
			fail("hasSuffix(%q) = %v, %v", s, got, err)
		}
		if got, _, err := parts.Eval(in); err != nil || fmt.Sprint(got.Value()) != strconv.Itoa(v.Parts) {
			fail("parts(%q) = %v, %v", s, got, err)
		}
	}
	if failures > 30 {
		t.Errorf("... %d failures in all", failures)
	}
	if quickMatches == 0 {
		t.Error("WellFormedVersionPattern matches no string of the corpus")
	}
}

// TestPlainCELQuote checks the plain-CEL %q on every character class the
// quoting treats differently, and on the corpus.
func TestPlainCELQuote(t *testing.T) {
	env := kubernetesCEL(t, cel.Variable("x", cel.StringType))
	quote := corpus.Program(t, env, celQuote("x"))
	in := []string{"", "a", `\`, `"`, "\a\b\f\n\r\t\v", "\x00\x1f\x7f", "\u0080\u009f\u00a0\u00ad", "é", "\u200b\u2028\ufeff",
		"\U0001F642", "\U000E0001", "\U0010FFFF", "\uE000", "a b", "٣", "x y\u3000z"}
	for _, s := range append(in, corpus.Versions(5000)...) {
		if !utf8.ValidString(s) {
			continue
		}
		got, _, err := quote.Eval(map[string]any{"x": s})
		if err != nil || got.Value() != strconv.Quote(s) {
			t.Errorf("quote(%q) = %v, %v; want %s", s, got, err, strconv.Quote(s))
		}
	}
}

// celEval evaluates a template's K8sNativeValidation code on an object, as
// a ValidatingAdmissionPolicy does: the variables in order (each sees the
// ones before it as variables.NAME), then every validation; it returns
// the messages of those that fail.
type celEval struct {
	vars  []cel.Program
	names []string
	vals  []celValidationProgram
}

type celValidationProgram struct{ check, message cel.Program }

func newCELEval(t testing.TB, block *CELBlock, opts ...cel.ProgramOption) *celEval {
	t.Helper()
	env := kubernetesCEL(t, cel.Variable("object", cel.DynType), cel.Variable("variables", cel.MapType(cel.StringType, cel.DynType)))
	e := &celEval{}
	for _, v := range block.Variables {
		e.vars = append(e.vars, corpus.Program(t, env, v.Expression, opts...))
		e.names = append(e.names, v.Name)
	}
	for _, v := range block.Validations {
		e.vals = append(e.vals, celValidationProgram{corpus.Program(t, env, v.Expression, opts...), corpus.Program(t, env, v.MessageExpression, opts...)})
	}
	return e
}

func (e *celEval) review(object map[string]any, params map[string]any) ([]string, error) {
	vars := map[string]any{"params": nil}
	if params != nil {
		vars["params"] = params
	}
	act := map[string]any{"object": object, "variables": vars}
	for i, p := range e.vars {
		v, _, err := p.Eval(act)
		if err != nil {
			return nil, fmt.Errorf("variable %s: %w", e.names[i], err)
		}
		vars[e.names[i]] = v
	}
	return e.validate(act, nil, nil)
}

// validate evaluates the block's validations on act and gives the messages
// of those that fail. Each evaluation's details go to seen, when it is not
// nil; varErr, when it is not nil, gives the first error of a variable
// evaluated during a validation, which stops the review.
func (e *celEval) validate(act map[string]any, seen func(*cel.EvalDetails), varErr func() error) ([]string, error) {
	eval := func(p cel.Program) (ref.Val, error) {
		v, det, err := p.Eval(act)
		if seen != nil {
			seen(det)
		}
		if varErr != nil {
			if verr := varErr(); verr != nil {
				return nil, verr
			}
		}
		return v, err
	}
	var msgs []string
	for i, v := range e.vals {
		ok, err := eval(v.check)
		if err != nil {
			return nil, fmt.Errorf("validation %d: %w", i, err)
		}
		if ok.Value() == true {
			continue
		}
		m, err := eval(v.message)
		if err != nil {
			return nil, fmt.Errorf("validation %d message: %w", i, err)
		}
		msgs = append(msgs, m.Value().(string))
	}
	return msgs, nil
}

// repoRoot is the repository's root, from this package's folder.
const repoRoot = ".."
