package runner

import (
	"fmt"
	"os"
	"slices"
	"sync"

	"github.com/ome-policy/evaluator/policies"
	"github.com/ome-policy/evaluator/policies/policyset"
	"github.com/ome-policy/evaluator/rules"
)

// ReleaseEnv names the OME release when Policies.Release is empty.
const ReleaseEnv = "EVALUATE_OME_VERSION"

// Policies are the policies a run applies: loaded from Dir (the built-in
// ones when empty), for the OME release Release names (else $ReleaseEnv,
// else the newest the policies state). For is safe for concurrent use: a
// command asks more than once, from more than one goroutine.
type Policies struct {
	Dir     string
	Release string

	mu     sync.Mutex
	loaded *policyset.Set            // what All gave
	chosen map[string]*policyset.Set // what For gave, by engine name
}

// For are the policies of the chosen release for the engine named (cel or
// rego: that engine's files only; both or "": every file).
func (p *Policies) For(engineName string) (*policyset.Set, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if set := p.chosen[engineName]; set != nil {
		return set, nil
	}
	set, err := p.all()
	if err != nil {
		return nil, err
	}
	r, err := p.Chosen(set)
	if err != nil {
		return nil, err
	}
	if set, err = set.Only(engineName).ForRelease(r); err != nil {
		return nil, err
	}
	if p.chosen == nil {
		p.chosen = map[string]*policyset.Set{}
	}
	p.chosen[engineName] = set
	return set, nil
}

// All are the policies as loaded: the newest release's, with what every
// other release changes. A folder's Rego may call no builtin the rules'
// sandbox refuses (rules.PolicySandboxProblems). They are read and checked
// once, however often a command asks.
func (p *Policies) All() (*policyset.Set, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.all()
}

// all is All, with p.mu held.
func (p *Policies) all() (*policyset.Set, error) {
	if p.loaded != nil {
		return p.loaded, nil
	}
	var set *policyset.Set
	var err error
	if p.Dir == "" {
		set, err = policyset.Embedded()
	} else if set, err = policyset.LoadDir(p.Dir); err == nil {
		if probs := rules.PolicySandboxProblems(set.Texts(policyset.Rego)); len(probs) > 0 {
			err = probs
		}
	}
	if err != nil {
		return nil, err
	}
	p.loaded = set
	return set, nil
}

// Chosen is the OME release the run applies, of those set states:
// Release, else $ReleaseEnv, else the newest.
func (p *Policies) Chosen(set *policyset.Set) (string, error) {
	r, from := p.Release, "--ome-version"
	if r == "" {
		r, from = os.Getenv(ReleaseEnv), ReleaseEnv
	}
	if r == "" {
		return set.Newest(), nil
	}
	return KnownRelease(set, r, from)
}

// KnownRelease is the release r names ("0.1.4" names v0.1.4); one that set
// does not state is an error said of from (the flag or variable that gave
// it).
func KnownRelease(set *policyset.Set, r, from string) (string, error) {
	name, ok := policies.NormalizeRelease(r)
	if !ok || !slices.Contains(set.Releases(), name) {
		return "", fmt.Errorf("%s: %w", from, &policyset.UnknownReleaseError{Release: r, Known: set.Releases()})
	}
	return name, nil
}
