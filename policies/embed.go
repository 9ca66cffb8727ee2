// Package policies holds the rules as data: the CEL and Rego sources that
// the engine compiles, their unit tests, the OPA capabilities file that
// declares the Go builtins they call, and the generated bundles
// (gatekeeper/, kubernetes/) with the hand-written parts the generator reads. The files are embedded in the binary;
// `evaluate --policies DIR` reads a folder of the same layout instead.
package policies

import "embed"

// FS is the embedded policy tree: cel/*.yaml, rego/*.rego,
// capabilities.json, lint-rules.yaml (the lint rules' ids, severities
// and descriptions), releases.yaml (the OME releases the rules state,
// newest first) and releases/ (what each older release changes).
//
//go:embed cel rego capabilities.json lint-rules.yaml releases.yaml releases
var FS embed.FS

// Gatekeeper holds what the admission-bundle compiler (admission) reads
// besides the policies: gatekeeper/lib/*.rego, the plain-Rego stand-in for
// the Go builtins, and gatekeeper/src, the templates' entry points.
//
//go:embed gatekeeper/lib/*.rego gatekeeper/src
var Gatekeeper embed.FS
