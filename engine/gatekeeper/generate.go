package gatekeeper

import (
	"github.com/ome-policy/evaluator/cases"
	"github.com/ome-policy/evaluator/engine/policyset"
)

// Options are the inputs of Generate; each artefact reads the ones it is
// made of, once.
type Options struct {
	// Policies are the Rego and CEL policies the templates are made of.
	Policies *policyset.Set
	// SelectionCases become the default test of OMERuntimeSelection's
	// suite (the project's are evaluator.SuiteCaseFiles, which cover every
	// step and message of OME's webhook and what each release decides
	// otherwise; ProjectCases reads those that hold for a release).
	SelectionCases []cases.Case
	// Lint are the objects of OMEVersionLint's suite, with what
	// `evaluate lint` finds in each alone (LintEach; the project uses
	// testdata/lint).
	Lint []ObjectFindings
}

// Bundles are what Generate makes: the Gatekeeper bundle and, for
// clusters without Gatekeeper, the ValidatingAdmissionPolicies.
type Bundles struct {
	// Gatekeeper is relative to its folder (policies/gatekeeper): per
	// template, template.yaml (templates.go), the sample constraints under
	// samples/ (samples.go) with the objects of the suite's cases, and
	// suite.yaml for `gator verify` (suites.go); sync.yaml and
	// kustomization.yaml (kustomize.go).
	Gatekeeper Bundle
	// Native is relative to its folder (policies/kubernetes):
	// ome-version-lint.yaml and kustomization.yaml (vap.go).
	Native Bundle
}

// Generate makes the bundles, each artefact in one pass: the templates
// from the policies, the samples, the suites from the cases and the lint
// findings, the ValidatingAdmissionPolicies from the templates, and what
// installs them.
func Generate(opts Options) (Bundles, error) {
	templates, err := Templates(opts.Policies)
	if err != nil {
		return Bundles{}, err
	}
	gk := templateFiles(templates)
	gk.add("", sampleConstraints(opts.Policies))
	selection, err := selectionSuite(opts.SelectionCases, opts.Policies.Release)
	if err != nil {
		return Bundles{}, err
	}
	gk.add("", selection)
	gk.add("", lintSuite(opts.Lint))
	gk.add("", installFiles())
	native, err := NativePolicies(templates)
	if err != nil {
		return Bundles{}, err
	}
	return Bundles{Gatekeeper: gk, Native: native}, nil
}
