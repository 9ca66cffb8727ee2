package policyset

import (
	"slices"
	"strings"
)

// What the generated admission policies (Gatekeeper's ConstraintTemplates,
// the ValidatingAdmissionPolicies, and any other generator's) say of the
// OME release whose rules they hold, so that two bundles of two releases
// never look the same in a cluster.

// ReleaseAnnotation is the annotation by which a generated admission
// policy names the OME release it states: ome.io/release: v0.1.4.
const ReleaseAnnotation = "ome.io/release"

// WebhookChecks says what OME's admission webhook checks in s's release,
// in OME's order, one phrase each, as releases.yaml states it (webhook:);
// nil when it does not.
func (s *Set) WebhookChecks() []string {
	for _, r := range s.releases {
		if r.name == s.Release {
			return slices.Clone(r.webhook)
		}
	}
	return nil
}

// WebhookSummary is one sentence of what OME's admission webhook checks in
// s's release ("OME v0.1.4's admission webhook checks, in this order: ...;
// ...."), for a generated policy's description; without WebhookChecks, it
// names the release alone.
func (s *Set) WebhookSummary() string {
	checks := s.WebhookChecks()
	if len(checks) == 0 {
		return "It refuses what OME " + s.Release + "'s admission webhook refuses."
	}
	return "OME " + s.Release + "'s admission webhook checks, in this order: " + strings.Join(checks, "; ") + "."
}
