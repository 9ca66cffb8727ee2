package diff

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/objects"
)

func TestRuleChanges(t *testing.T) {
	rt := objects.Ref{Kind: "ClusterServingRuntime", Name: "vllm"}
	finding := func(rule, severity, msg string, line int) engine.Finding {
		return engine.Finding{Rule: rule, Severity: severity, Object: rt, Field: "spec", File: "rt.yaml", Line: line, Message: msg}
	}
	size := finding("company.size", engine.SeverityError, "no modelSizeRange", 5)
	floor := finding("company.floor", engine.SeverityWarning, "transformers 4.39", 9)
	tests := []struct {
		name     string
		old, new []engine.Finding
		want     []string // change rule regression
	}{
		{name: "none on either side", want: []string{}},
		{name: "the same on both sides, at other lines", old: []engine.Finding{size}, new: []engine.Finding{finding("company.size", engine.SeverityError, "no modelSizeRange", 12)}, want: []string{}},
		{name: "an error made is a regression", new: []engine.Finding{size}, want: []string{"fires company.size true"}},
		{name: "a warning made is none", new: []engine.Finding{floor}, want: []string{"fires company.floor false"}},
		{name: "cleared", old: []engine.Finding{size, floor}, want: []string{"stops company.size false", "stops company.floor false"}},
		{name: "another message is one made and one cleared", old: []engine.Finding{size}, new: []engine.Finding{finding("company.size", engine.SeverityError, "modelSizeRange is empty", 5)},
			want: []string{"fires company.size true", "stops company.size false"}},
		{name: "twice where it was once", old: []engine.Finding{size}, new: []engine.Finding{size, size}, want: []string{"fires company.size true"}},
		{name: "made first, each in file and line order", old: []engine.Finding{floor}, new: []engine.Finding{size},
			want: []string{"fires company.size true", "stops company.floor false"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := []string{}
			for _, rc := range RuleChanges(tt.old, tt.new) {
				got = append(got, fmt.Sprint(rc.Change, " ", rc.Rule, " ", rc.Regression))
			}
			require.Equal(t, tt.want, got)
		})
	}
	require.NotNil(t, RuleChanges(nil, nil), "empty, not nil: the rules ran")
}
