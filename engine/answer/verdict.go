// Package answer holds what the policies decide, as Go values: the verdict
// on a model and a runtime, lint findings, explanations and the webhook's
// decision on an InferenceService. Both engines fill these types from their
// policies' output (plain values, decoded here, with their shape checked),
// and every command prints them.
//
// It owns the answers' shapes and the Go-side completion of lint findings
// (file, line, order, and the API server's own check against OME's CRDs).
// It evaluates no policy and knows neither engine.
package answer

// EntryResult is the verdict on one entry of spec.supportedModelFormats.
type EntryResult struct {
	Index       int      `json:"index" yaml:"index"`
	Matched     bool     `json:"matched" yaml:"matched"`
	Differences []string `json:"differences" yaml:"differences"`
}

// Verdict is the policies' answer for one model spec and one runtime spec.
type Verdict struct {
	Compatible bool          `json:"compatible" yaml:"compatible"`
	Reason     string        `json:"reason" yaml:"reason"`
	Entries    []EntryResult `json:"entries" yaml:"entries"`
}
