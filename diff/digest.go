package diff

import (
	"fmt"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/objects"
)

// Digest says in one line which rule moved a pair's verdict from one OME
// release to another, from the two releases' explanations of the pair
// (engine.Explainer): the first check, entry by entry, that passes on one
// release and fails on the other and that a rule of one of them decided
// ("v0.1.4 does not compare diffusion pipelines"); else, when the pair is
// not compatible on either, the rule one release has for its reason. ""
// when the explanations tell neither.
func Digest(before string, b engine.Explanation, after string, a engine.Explanation) string {
	if len(b.Entries) == len(a.Entries) {
		for i := range b.Entries {
			cb, ca := b.Entries[i].Checks, a.Entries[i].Checks
			for j := range min(len(cb), len(ca)) {
				if cb[j].Passed == ca[j].Passed {
					continue
				}
				if cb[j].Rule != "" {
					return before + " " + cb[j].Rule
				}
				if ca[j].Rule != "" {
					return after + " " + ca[j].Rule
				}
			}
		}
	}
	if !b.Compatible && !a.Compatible {
		return reasonDigest(before, b.ReasonRule, after, a.ReasonRule)
	}
	return ""
}

// reasonDigest names the release whose rule for its reason differs from
// the other's ("" when they have the same).
func reasonDigest(before, b, after, a string) string {
	switch {
	case b == a:
		return ""
	case b != "":
		return before + " " + b
	}
	return after + " " + a
}

// ruleFinder finds the rules that moved an upgrade's pairs.
type ruleFinder struct {
	c *computation
	// reasonRules are each release's rule for its reason, the same for
	// every pair (the explain policies' contract), asked of the first
	// reworded pair; nil until then.
	reasonRules *[2]string
}

// explain explains the pair on both sides.
func (f *ruleFinder) explain(model, runtime *objects.Object) (b, a engine.Explanation, err error) {
	if b, err = f.c.before.X.Explain(model, runtime); err != nil {
		return b, a, err
	}
	a, err = f.c.after.X.Explain(model, runtime)
	return b, a, err
}

// rule is the digest of a pair whose verdict moved.
func (f *ruleFinder) rule(model, runtime *objects.Object) (string, error) {
	b, a, err := f.explain(model, runtime)
	if err != nil {
		return "", err
	}
	f.learn(b, a)
	return Digest(f.c.before.Release, b, f.c.after.Release, a), nil
}

func (f *ruleFinder) learn(b, a engine.Explanation) {
	if f.reasonRules == nil {
		f.reasonRules = &[2]string{b.ReasonRule, a.ReasonRule}
	}
}

// reworded is the digest of a pair not compatible on either side whose
// reason moved: the releases' rules for their reasons when they differ,
// without explaining the pair again (an upgrade can reword every pair),
// else what its explanations tell.
func (f *ruleFinder) reworded(model, runtime *objects.Object) (string, error) {
	if f.reasonRules == nil {
		b, a, err := f.explain(model, runtime)
		if err != nil {
			return "", err
		}
		f.learn(b, a)
		if d := reasonDigest(f.c.before.Release, b.ReasonRule, f.c.after.Release, a.ReasonRule); d != "" {
			return d, nil
		}
		return Digest(f.c.before.Release, b, f.c.after.Release, a), nil
	}
	if d := reasonDigest(f.c.before.Release, f.reasonRules[0], f.c.after.Release, f.reasonRules[1]); d != "" {
		return d, nil
	}
	return f.rule(model, runtime)
}

// rules fills in the Rule of every change of an upgrade's report: each
// pair's from the releases' explanations, and each InferenceService's
// from the pair of its model and the runtime selected before or after,
// when that pair's verdict moved.
func (c *computation) rules() error {
	if c.before.X == nil || c.after.X == nil {
		return nil
	}
	f := &ruleFinder{c: c}
	moved := map[[2]objects.Ref]string{}
	for i := range c.report.Models {
		m := &c.report.Models[i]
		model := c.models.byRef[m.Model].new
		for _, l := range [][]RuntimeChange{m.Gained, m.Lost, m.Reworded} {
			for j := range l {
				runtime := c.runtimes.byRef[l[j].Runtime].new
				var err error
				if l[j].Reason != "" && l[j].ReasonBefore != "" {
					l[j].Rule, err = f.reworded(model, runtime)
				} else {
					l[j].Rule, err = f.rule(model, runtime)
					moved[[2]objects.Ref{m.Model, l[j].Runtime}] = l[j].Rule
				}
				if err != nil {
					return err
				}
			}
		}
	}
	for i := range c.report.InferenceServices {
		sc := &c.report.InferenceServices[i]
		if !bySelection(sc.Before) || !bySelection(sc.After) {
			// A check of the webhook's own refused it: the rule is that
			// check, when one release has it and the other passes it.
			sc.Rule = checkDigest(c.before.Release, sc.Before, c.after.Release, sc.After)
			continue
		}
		name := ModelName(c.services.byRef[sc.InferenceService].new)
		models := []objects.Ref{
			{Kind: objects.KindBaseModel, Namespace: sc.InferenceService.Namespace, Name: name},
			{Kind: objects.KindClusterBaseModel, Name: name},
		}
		for _, sel := range []*Selection{sc.Before, sc.After} {
			if sel == nil || sel.Runtime == nil || sc.Rule != "" {
				continue
			}
			for _, m := range models {
				if r := moved[[2]objects.Ref{m, *sel.Runtime}]; r != "" {
					sc.Rule = r
					break
				}
			}
		}
		if sc.Rule == "" {
			sc.Rule = exclusionDigest(c.before.Release, sc.Before, c.after.Release, sc.After)
		}
	}
	return nil
}

// exclusionDigest names why one release excludes the runtime that the
// other selects for an InferenceService, when no pair's verdict moved (a
// check of the runtime against the InferenceService, such as its
// deployment mode): "v1.2.2 excludes vllm: runtime engine deployment mode
// ..."; "" when neither does.
func exclusionDigest(before string, b *Selection, after string, a *Selection) string {
	for _, s := range []struct {
		release        string
		selects, skips *Selection
	}{{after, b, a}, {before, a, b}} {
		if s.selects == nil || s.skips == nil || s.selects.Runtime == nil {
			continue
		}
		if why := s.skips.excluded[*s.selects.Runtime]; why != "" {
			return fmt.Sprintf("%s excludes %s: %s", s.release, s.selects.Runtime.Name, why)
		}
	}
	return ""
}

// checkDigest names the webhook check that refuses an InferenceService on
// one release and not on the other ("v1.2.2 checks runtime-revision"); ""
// when both refuse it by the same check.
func checkDigest(before string, b *Selection, after string, a *Selection) string {
	check := func(s *Selection) string {
		if s == nil || bySelection(s) {
			return ""
		}
		return s.Check
	}
	switch cb, ca := check(b), check(a); {
	case cb == ca:
		return ""
	case ca != "":
		return after + " checks " + ca
	default:
		return before + " checks " + cb
	}
}

// bySelection says whether a decision is selection's: admitted, or refused
// because selection found no runtime.
func bySelection(s *Selection) bool {
	return s == nil || s.Admitted || s.Check == noRuntimeCheck
}

// noRuntimeCheck is the webhook's check that refuses when selection finds
// no runtime (engine.Decision.Check).
const noRuntimeCheck = "no-runtime"
