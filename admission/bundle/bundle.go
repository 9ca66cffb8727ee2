// Package bundle makes the bundles of `evaluate gatekeeper`, one release's
// Gatekeeper bundle and ValidatingAdmissionPolicies, from one compile of
// its checks. It is the orchestration above the targets: it imports
// admission, admission/gatekeeper and admission/vap; nothing of the
// module but cmd/ imports it. (The Kyverno bundle, `evaluate kyverno`,
// is admission/kyverno.Generate.)
package bundle

import (
	"github.com/ome-policy/evaluator/admission"
	"github.com/ome-policy/evaluator/admission/gatekeeper"
	"github.com/ome-policy/evaluator/admission/vap"
)

// Bundles are what Generate makes: the Gatekeeper bundle and, for
// clusters without Gatekeeper, the ValidatingAdmissionPolicies.
type Bundles struct {
	// Gatekeeper is relative to its folder (policies/gatekeeper): per
	// template, template.yaml, the sample constraints under samples/ with
	// the objects of the suite's cases, and suite.yaml for `gator
	// verify`; sync.yaml and kustomization.yaml (gatekeeper.Generate).
	Gatekeeper admission.Bundle
	// Native is relative to its folder (policies/kubernetes):
	// ome-version-lint.yaml and kustomization.yaml (vap.Generate).
	Native admission.Bundle
}

// Generate makes the bundles, each artefact in one pass: the checks from
// the policies, then the templates, the samples, the suites from the
// cases and the lint findings, the ValidatingAdmissionPolicies from the
// checks, and what installs them.
func Generate(opts admission.Options) (Bundles, error) {
	checks, err := admission.Checks(opts.Policies)
	if err != nil {
		return Bundles{}, err
	}
	gk, err := gatekeeper.Generate(opts, checks)
	if err != nil {
		return Bundles{}, err
	}
	native, err := vap.Generate(checks, opts.Extra.Native, opts.Exempt)
	if err != nil {
		return Bundles{}, err
	}
	return Bundles{Gatekeeper: gk, Native: native}, nil
}
