// Package admission is the shared part of the admission-bundle compiler:
// what the Gatekeeper bundle (admission/gatekeeper), the
// ValidatingAdmissionPolicies (admission/vap) and the Kyverno bundle
// (admission/kyverno) are made of. It owns the intermediate form, Check:
// one admission check of an OME release (runtime selection, version lint),
// compiled from the policies once; the Rego translation (admission/rewrite:
// the policies rewritten to run without this project's Go builtins, on the
// plain-Rego stand-in of policies/gatekeeper/lib, which
// equivalence_test.go and plan_equivalence_test.go prove equal to the
// builtins); the CEL translation (celgen.go for the CEL of Gatekeeper and
// Kubernetes, kyvernocel.go and kyvernoselect.go for Kyverno's); the lint
// code every CEL target holds (LintCode) and the violations it gives
// (LintViolations); the suite inputs (ProjectCases, ProjectLintObjects,
// SelectionCases); Bundle, the YAML node helpers and the kustomizations.
//
// It imports admission/rewrite, engine (the engine API, the lint
// findings), policies/policyset, cases, objects, policies and the module's
// root package, never a target: the targets import it, and
// admission/bundle generates them together.
package admission
