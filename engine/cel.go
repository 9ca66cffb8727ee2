package engine

import (
	"fmt"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// celMatcher evaluates the CEL policies "entry" (once per entry) and
// "runtime" (once per pair, with the entry results).
type celMatcher struct {
	entry, runtime *celPolicy
}

// celPolicies is every CEL policy of a set, compiled, by name, with the
// matcher built from its "entry" and "runtime" policies.
type celPolicies struct {
	byName  map[string]*celPolicy
	matcher *celMatcher
}

// compileCELPolicies compiles every CEL policy of set. Every policy may
// call omeVerdict(modelSpec, runtimeSpec, classes), which runs the "entry"
// and "runtime" policies of the same set.
func compileCELPolicies(set *PolicySet) (*celPolicies, error) {
	return celPoliciesFor(set)
}

// celPoliciesFor compiles the named CEL policies of set, with "entry" and
// "runtime" always (every name when none is given), so that a command
// compiles what it runs and no more: parsing CEL is what a short run
// spends most of its time on.
func celPoliciesFor(set *PolicySet, names ...string) (*celPolicies, error) {
	if len(names) > 0 {
		names = append(names, "entry", "runtime")
	}
	m := &celMatcher{}
	verdict := cel.Function("omeVerdict",
		cel.Overload("ome_verdict_dyn_dyn_list_string", []*cel.Type{cel.DynType, cel.DynType, cel.ListType(cel.StringType)},
			cel.MapType(cel.StringType, cel.DynType),
			cel.FunctionBinding(m.omeVerdict)))
	byName := map[string]*celPolicy{}
	for _, f := range set.Sources(CEL, false) {
		ps, err := parseCELPoliciesWith(set.Where(f), f.Text, names, verdict)
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
		into   **celPolicy
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
	return &celPolicies{byName: byName, matcher: m}, nil
}

// policyWithInputs finds a policy that the engine relies on and checks
// that it declares the inputs the engine gives it.
func policyWithInputs(set *PolicySet, byName map[string]*celPolicy, name string, inputs []string) (*celPolicy, error) {
	p, ok := byName[name]
	if !ok {
		return nil, fmt.Errorf("policies %s: no CEL policy named %q", set.Origin, name)
	}
	for _, in := range inputs {
		if !contains(p.inputs, in) {
			return nil, fmt.Errorf("%s: CEL policy %s must declare the input %q", p.source, p.name, in)
		}
	}
	return p, nil
}

// NewCEL compiles the CEL match policies of set.
func NewCEL(set *PolicySet) (Matcher, error) {
	ps, err := celPoliciesFor(set, "entry", "runtime")
	if err != nil {
		return nil, err
	}
	return ps.matcher, nil
}

// omeVerdict(modelSpec, runtimeSpec, classes) runs the match policies and
// returns {compatible, reason, score, autoSelect}.
func (m *celMatcher) omeVerdict(args ...ref.Val) ref.Val {
	if len(args) != 3 {
		return types.NewErr("omeVerdict: want 3 arguments, got %d", len(args))
	}
	var in [3]any
	for i, a := range args {
		v, err := celNative(a)
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
	})
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (m *celMatcher) Name() string { return CEL }

func (m *celMatcher) Match(model, runtime map[string]any) (Verdict, error) {
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
func (m *celMatcher) verdict(model, runtime map[string]any, classes []string, scores bool) (Verdict, Selection, error) {
	formats, _ := runtime["supportedModelFormats"].([]any)
	v := Verdict{Entries: make([]EntryResult, 0, len(formats))}
	entries := make([]any, 0, len(formats))
	for i, e := range formats {
		entry, _ := e.(map[string]any)
		if entry == nil {
			entry = map[string]any{}
		}
		act := m.entry.activation(map[string]any{"model": model, "entry": entry})
		diffs, err := m.entry.run(act)
		if err != nil {
			return Verdict{}, Selection{}, fmt.Errorf("entry %d: %w", i, err)
		}
		if diffs == nil {
			diffs = []string{}
		}
		v.Entries = append(v.Entries, EntryResult{Index: i, Matched: len(diffs) == 0, Differences: diffs})
		result := map[string]any{"matched": len(diffs) == 0, "differences": diffs}
		if scores {
			score, err := act.variable("score")
			if err != nil {
				return Verdict{}, Selection{}, fmt.Errorf("entry %d: %w", i, err)
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
		return Verdict{}, Selection{}, err
	}
	v.Compatible = len(failures) == 0
	if !v.Compatible {
		v.Reason = failures[0]
	}
	var sel Selection
	if scores {
		score, err := act.variable("score")
		if err != nil {
			return Verdict{}, Selection{}, err
		}
		auto, err := act.variable("autoSelect")
		if err != nil {
			return Verdict{}, Selection{}, err
		}
		s, ok1 := score.(types.Int)
		a, ok2 := auto.(types.Bool)
		if !ok1 || !ok2 {
			return Verdict{}, Selection{}, fmt.Errorf("%s: CEL policy runtime: score must be an int and autoSelect a bool, got %v and %v", m.runtime.source, score, auto)
		}
		sel = Selection{Score: int64(s), AutoSelect: bool(a)}
	}
	return v, sel, nil
}

// celValue converts a normalised value (as Load makes them) into CEL values
// once, so that evaluations read fields without converting them again.
func celValue(v any) ref.Val {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[ref.Val]ref.Val, len(x))
		for k, e := range x {
			m[types.String(k)] = celValue(e)
		}
		return types.NewRefValMap(types.DefaultTypeAdapter, m)
	case []any:
		l := make([]ref.Val, len(x))
		for i, e := range x {
			l[i] = celValue(e)
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
