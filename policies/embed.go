// Package policies holds the rules as data: the CEL and Rego sources that
// the engine compiles, their unit tests, and the OPA capabilities file that
// declares the Go builtins they call. The files are embedded in the binary;
// `evaluate --policies DIR` reads a folder of the same layout instead.
package policies

import "embed"

// FS is the embedded policy tree: cel/*.yaml, rego/*.rego and
// capabilities.json.
//
//go:embed cel rego capabilities.json
var FS embed.FS
