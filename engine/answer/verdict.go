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

import "strings"

// EntryResult is the verdict on one entry of spec.supportedModelFormats.
type EntryResult struct {
	Index       int      `json:"index" yaml:"index"`
	Matched     bool     `json:"matched" yaml:"matched"`
	Differences []string `json:"differences" yaml:"differences"`
}

// Details are the entries' differences as OME's reason gives them when no
// entry matches (since v0.1.5): each entry's joined with ", ", the
// entries' with "; ", and "no supported formats defined" without entries.
func Details(entries []EntryResult) string {
	if len(entries) == 0 {
		return "no supported formats defined"
	}
	texts := make([]string, len(entries))
	for i, e := range entries {
		texts[i] = strings.Join(e.Differences, ", ")
	}
	return strings.Join(texts, "; ")
}

// Verdict is the policies' answer for one model spec and one runtime spec.
type Verdict struct {
	Compatible bool          `json:"compatible" yaml:"compatible"`
	Reason     string        `json:"reason" yaml:"reason"`
	Entries    []EntryResult `json:"entries" yaml:"entries"`
}
