package engine

import (
	"fmt"
)

// celMatcher evaluates the CEL policies "entry" (once per entry) and
// "runtime" (once per pair, with the entry results).
type celMatcher struct {
	entry, runtime *celPolicy
}

// compileCELPolicies compiles every CEL policy of set, by name.
func compileCELPolicies(set *PolicySet) (map[string]*celPolicy, error) {
	byName := map[string]*celPolicy{}
	for _, f := range set.Sources(CEL, false) {
		ps, err := parseCELPolicies(set.Where(f), f.Text)
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
	return byName, nil
}

// NewCEL compiles the CEL policies of set.
func NewCEL(set *PolicySet) (Matcher, error) {
	byName, err := compileCELPolicies(set)
	if err != nil {
		return nil, err
	}
	m := &celMatcher{}
	for _, need := range []struct {
		name   string
		inputs []string
		into   **celPolicy
	}{
		{"entry", []string{"model", "entry"}, &m.entry},
		{"runtime", []string{"model", "runtime", "entries"}, &m.runtime},
	} {
		p, ok := byName[need.name]
		if !ok {
			return nil, fmt.Errorf("policies %s: no CEL policy named %q", set.Origin, need.name)
		}
		for _, in := range need.inputs {
			if !contains(p.inputs, in) {
				return nil, fmt.Errorf("%s: CEL policy %s must declare the input %q", p.source, p.name, in)
			}
		}
		*need.into = p
	}
	return m, nil
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
	formats, _ := runtime["supportedModelFormats"].([]any)
	v := Verdict{Entries: make([]EntryResult, 0, len(formats))}
	entries := make([]any, 0, len(formats))
	for i, e := range formats {
		entry, _ := e.(map[string]any)
		if entry == nil {
			entry = map[string]any{}
		}
		diffs, err := m.entry.eval(map[string]any{"model": model, "entry": entry})
		if err != nil {
			return Verdict{}, fmt.Errorf("entry %d: %w", i, err)
		}
		if diffs == nil {
			diffs = []string{}
		}
		v.Entries = append(v.Entries, EntryResult{Index: i, Matched: len(diffs) == 0, Differences: diffs})
		entries = append(entries, map[string]any{"matched": len(diffs) == 0, "differences": diffs})
	}
	failures, err := m.runtime.eval(map[string]any{"model": model, "runtime": runtime, "entries": entries})
	if err != nil {
		return Verdict{}, err
	}
	v.Compatible = len(failures) == 0
	if !v.Compatible {
		v.Reason = failures[0]
	}
	return v, nil
}
