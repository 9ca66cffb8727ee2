// Package gatekeeper writes the Gatekeeper bundle (policies/gatekeeper):
// per check of admission, the ConstraintTemplate (templates.go) with its
// sample constraints (samples.go) and its gator suite (suites.go), and
// Gatekeeper's sync config with the kustomization that installs them
// (kustomize.go).
//
// It imports admission (the checks, the suite inputs, the YAML helpers),
// engine (the lint severities), policies/policyset and cases; no other
// target.
package gatekeeper

import "github.com/ome-policy/evaluator/admission"

// Generate makes the Gatekeeper bundle of opts' release from its checks,
// relative to its folder (policies/gatekeeper): per template,
// template.yaml, the sample constraints under samples/ with the objects
// of the suite's cases, and suite.yaml for `gator verify`; sync.yaml and
// kustomization.yaml.
func Generate(opts admission.Options, checks []*admission.Check) (admission.Bundle, error) {
	gk := templateFiles(checks)
	gk.Add("", sampleConstraints(opts.Policies, opts.Exempt))
	selection, err := selectionSuite(opts.SelectionCases, opts.Policies.Release, opts.Exempt)
	if err != nil {
		return nil, err
	}
	gk.Add("", selection)
	gk.Add("", lintSuite(opts.Lint, opts.Exempt))
	gk.Add("", opts.Extra.Gatekeeper.Files)
	gk.Add("", installFiles(opts.Extra.Gatekeeper))
	return gk, nil
}

// ExemptCases are cases with no violation expected of an object that
// the exemptions leave alone: its constraint's match skips it.
func ExemptCases(cases []admission.SuiteCase, exempt admission.Exemptions) []admission.SuiteCase {
	for i, c := range cases {
		if exempt.Exempt(c.Object) {
			cases[i].Messages = nil
		}
	}
	return cases
}

// Owned are the folders of the bundle that are generated whole, those of
// more (such as rules/admit's) among them: writing the bundle removes what
// they hold that it no longer has (admission.Bundle.Sync).
func Owned(more ...string) []string {
	return append([]string{"omeruntimeselection", "omeversionlint"}, more...)
}
