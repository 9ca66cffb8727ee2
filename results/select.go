package results

import "github.com/ome-policy/evaluator/engine"

// SelectResult is one InferenceService and OME's webhook decision on it.
type SelectResult struct {
	InferenceService engine.Ref `json:"inferenceService" yaml:"inferenceService"`
	engine.Decision  `yaml:",inline"`
	// Rules are the findings of a team's own rules (--rules) on the
	// InferenceService, apart from OME's verdict: an error is a refusal by
	// the policy engine that enforces the rule. Absent without --rules.
	Rules []engine.Finding `json:"rules,omitempty" yaml:"rules,omitempty"`
	// Cluster is the cluster of a fleet the InferenceService is in
	// (cluster.go); nil for one run.
	Cluster *Cluster `json:"cluster,omitempty" yaml:"cluster,omitempty"`
}

// ObjectViolations is one object of `evaluate gatekeeper violations`: the
// violations an OMEVersionLint constraint gives it (none: [], not null).
type ObjectViolations struct {
	Object     engine.Ref `json:"object"`
	File       string     `json:"file"`
	Line       int        `json:"line"`
	Violations []string   `json:"violations"`
}
