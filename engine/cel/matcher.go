// Package cel is the CEL engine: it compiles the CEL policies of a policy
// set (policies/cel, or a folder given with --policies; the embedded ones
// start from precompiled.bin) with the ome.* library of builtins, and
// evaluates them as the matcher, selector, linter and explainer, and as the
// runner of CEL policy cases.
//
// It owns the policy format (kind CELPolicy: inputs, variables, validations
// with message expressions), what each expression reads (reads.go), and the
// batch and memo machinery that matches many models against the same
// runtimes (batch.go). The rules themselves are in the policies; this
// package knows none of them, and nothing of Rego or of the engine package
// that chooses between engines.
package cel

import (
	"fmt"
	"slices"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/ome-policy/evaluator/engine/answer"
	"github.com/ome-policy/evaluator/policies/policyset"
)

// Matcher evaluates the CEL policies "entry" (once per entry) and
// "runtime" (once per pair, with the entry results).
type Matcher struct {
	entry, runtime *policy
	// noReasons: MatchModel leaves a runtime's reason out (WithoutReasons).
	noReasons bool
}

// WithoutReasons is m for a caller that reads of a verdict only whether
// the runtime accepts the model (OME's decisions): MatchModel then leaves
// out the reason of a runtime that does not, "" in its verdict, and
// evaluates no messageExpression of the runtime policy. That text (every
// entry's differences, joined) is most of what a batch spends on a
// runtime. Whether the runtime is compatible, and each entry's result,
// are the same; Match still gives the reason.
func (m *Matcher) WithoutReasons() *Matcher {
	c := *m
	c.noReasons = true
	return &c
}

// compiledPolicies is every CEL policy of a set, compiled, by name, with the
// matcher built from its "entry" and "runtime" policies.
type compiledPolicies struct {
	byName  map[string]*policy
	matcher *Matcher
}

// compileAllPolicies compiles every CEL policy of set. Every policy may
// call omeVerdict(modelSpec, runtimeSpec, classes), which runs the "entry"
// and "runtime" policies of the same set.
func compileAllPolicies(set *policyset.Set) (*compiledPolicies, error) {
	return compilePolicies(set)
}

// compilePolicies compiles the named CEL policies of set, with "entry" and
// "runtime" always (every name when none is given), so that a command
// compiles what it runs and no more: parsing CEL is what a short run
// spends most of its time on.
func compilePolicies(set *policyset.Set, names ...string) (*compiledPolicies, error) {
	return compileWith(precompiled(), set, names...)
}

// compileWith is compilePolicies with the given precompiled cache (nil:
// compile every policy from its text).
func compileWith(cache *precompiledCache, set *policyset.Set, names ...string) (*compiledPolicies, error) {
	if len(names) > 0 {
		names = append(names, "entry", "runtime")
	}
	m := &Matcher{}
	verdict := cel.Function("omeVerdict",
		cel.Overload("ome_verdict_dyn_dyn_list_string", []*cel.Type{cel.DynType, cel.DynType, cel.ListType(cel.StringType)},
			cel.MapType(cel.StringType, cel.DynType),
			cel.FunctionBinding(m.omeVerdict)))
	byName := map[string]*policy{}
	for _, f := range set.Sources(policyset.CEL, false) {
		text, err := f.Source()
		if err != nil {
			return nil, err
		}
		ps, err := parsePoliciesWith(cache, set.Where(f), text, names, verdict)
		if err != nil {
			return nil, err
		}
		for _, p := range ps {
			if prev, dup := byName[p.name]; dup {
				return nil, fmt.Errorf("%s: CEL policy %s is also defined in %s", p.source, p.name, prev.source)
			}
			byName[p.name] = p
		}
	}
	for _, need := range []struct {
		name   string
		inputs []string
		into   **policy
	}{
		{"entry", []string{"model", "entry"}, &m.entry},
		{"runtime", []string{"model", "runtime", "entries", "acceleratorClasses"}, &m.runtime},
	} {
		p, err := policyWithInputs(set, byName, need.name, need.inputs)
		if err != nil {
			return nil, err
		}
		*need.into = p
	}
	return &compiledPolicies{byName: byName, matcher: m}, nil
}

// policyWithInputs finds a policy that the engine relies on and checks
// that it declares the inputs the engine gives it.
func policyWithInputs(set *policyset.Set, byName map[string]*policy, name string, inputs []string) (*policy, error) {
	p, ok := byName[name]
	if !ok {
		return nil, fmt.Errorf("policies %s: no CEL policy named %q", set.Origin, name)
	}
	for _, in := range inputs {
		if !slices.Contains(p.inputs, in) {
			return nil, fmt.Errorf("%s: CEL policy %s must declare the input %q", p.source, p.name, in)
		}
	}
	return p, nil
}

// New compiles the CEL match policies of set.
func New(set *policyset.Set) (*Matcher, error) {
	ps, err := compilePolicies(set, "entry", "runtime")
	if err != nil {
		return nil, err
	}
	return ps.matcher, nil
}

// omeVerdict(modelSpec, runtimeSpec, classes) runs the match policies and
// returns {compatible, reason, score, autoSelect, details}, details being
// the entries' differences as OME's reason gives them since v0.1.5
// (entries.Details), whatever the release's reason says.
func (m *Matcher) omeVerdict(args ...ref.Val) ref.Val {
	if len(args) != 3 {
		return types.NewErr("omeVerdict: want 3 arguments, got %d", len(args))
	}
	var in [3]any
	for i, a := range args {
		v, err := toNative(a)
		if err != nil {
			return types.NewErr("omeVerdict: %v", err)
		}
		in[i] = v
	}
	model, _ := in[0].(map[string]any)
	runtime, _ := in[1].(map[string]any)
	list, _ := in[2].([]any)
	classes := make([]string, 0, len(list))
	for _, c := range list {
		s, _ := c.(string)
		classes = append(classes, s)
	}
	v, sel, err := m.verdict(model, runtime, classes, true)
	if err != nil {
		return types.NewErr("omeVerdict: %v", err)
	}
	return types.DefaultTypeAdapter.NativeToValue(map[string]any{
		"compatible": v.Compatible, "reason": v.Reason, "score": sel.Score, "autoSelect": sel.AutoSelect,
		"details": answer.Details(v.Entries),
	})
}

// Name is the engine's name, as --engine takes it.
const Name = "cel"

// Name returns "cel".
func (m *Matcher) Name() string { return Name }

func (m *Matcher) Match(model, runtime map[string]any) (answer.Verdict, error) {
	v, _, err := m.verdict(model, runtime, nil, false)
	return v, err
}

// Selection is what selection needs to know of a runtime beyond its
// verdict: its score for the model and whether any entry has autoSelect.
type Selection struct {
	Score      int64
	AutoSelect bool
}

// verdict evaluates the entry policy on each entry, then the runtime policy.
// classes are the accelerator classes an InferenceService asks for. With
// scores, it also evaluates the score variables for selection.
func (m *Matcher) verdict(model, runtime map[string]any, classes []string, scores bool) (answer.Verdict, Selection, error) {
	formats, _ := runtime["supportedModelFormats"].([]any)
	v := answer.Verdict{Entries: make([]answer.EntryResult, 0, len(formats))}
	entries := make([]any, 0, len(formats))
	for i, e := range formats {
		entry, _ := e.(map[string]any)
		if entry == nil {
			entry = map[string]any{}
		}
		act := m.entry.activation(map[string]any{"model": model, "entry": entry})
		diffs, err := m.entry.run(act)
		if err != nil {
			return answer.Verdict{}, Selection{}, fmt.Errorf("entry %d: %w", i, err)
		}
		if diffs == nil {
			diffs = []string{}
		}
		v.Entries = append(v.Entries, answer.EntryResult{Index: i, Matched: len(diffs) == 0, Differences: diffs})
		result := map[string]any{"matched": len(diffs) == 0, "differences": diffs}
		if scores {
			score, err := act.variable("score")
			if err != nil {
				return answer.Verdict{}, Selection{}, fmt.Errorf("entry %d: %w", i, err)
			}
			result["score"] = score
		}
		entries = append(entries, result)
	}
	if classes == nil {
		classes = []string{}
	}
	act := m.runtime.activation(map[string]any{"model": model, "runtime": runtime, "entries": entries, "acceleratorClasses": classes})
	failures, err := m.runtime.run(act)
	if err != nil {
		return answer.Verdict{}, Selection{}, err
	}
	v.Compatible = len(failures) == 0
	if !v.Compatible {
		v.Reason = failures[0]
	}
	var sel Selection
	if scores {
		score, err := act.variable("score")
		if err != nil {
			return answer.Verdict{}, Selection{}, err
		}
		auto, err := act.variable("autoSelect")
		if err != nil {
			return answer.Verdict{}, Selection{}, err
		}
		s, ok1 := score.(types.Int)
		a, ok2 := auto.(types.Bool)
		if !ok1 || !ok2 {
			return answer.Verdict{}, Selection{}, fmt.Errorf("%s: CEL policy runtime: score must be an int and autoSelect a bool, got %v and %v", m.runtime.source, score, auto)
		}
		sel = Selection{Score: int64(s), AutoSelect: bool(a)}
	}
	return v, sel, nil
}

// toCEL converts a normalised value (as Load makes them) into CEL values
// once, so that evaluations read fields without converting them again.
func toCEL(v any) ref.Val {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[ref.Val]ref.Val, len(x))
		for k, e := range x {
			m[types.String(k)] = toCEL(e)
		}
		return types.NewRefValMap(types.DefaultTypeAdapter, m)
	case []any:
		l := make([]ref.Val, len(x))
		for i, e := range x {
			l[i] = toCEL(e)
		}
		return types.NewRefValList(types.DefaultTypeAdapter, l)
	case []string:
		l := make([]ref.Val, len(x))
		for i, e := range x {
			l[i] = types.String(e)
		}
		return types.NewRefValList(types.DefaultTypeAdapter, l)
	}
	return types.DefaultTypeAdapter.NativeToValue(v)
}
