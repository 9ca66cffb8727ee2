package diff

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ome-policy/evaluator/engine"
)

func TestDigest(t *testing.T) {
	check := func(name string, passed bool, rule string) engine.Check {
		return engine.Check{Check: name, Passed: passed, Rule: rule}
	}
	explanation := func(compatible bool, reasonRule string, checks ...engine.Check) engine.Explanation {
		return engine.Explanation{Compatible: compatible, ReasonRule: reasonRule,
			Entries: []engine.EntryExplanation{{Checks: checks}}}
	}
	const pipelines, versions, label = "does not compare diffusion pipelines", "parses only versions of three numbers, without a v: model 4.51", "gives the model's label alone as its reason"
	for _, tc := range []struct {
		name      string
		b, a      engine.Explanation
		want      string
		downgrade bool // from v0.1.5 to v0.1.4
	}{
		{"a check the old release passes by its rule", explanation(true, label, check("pipeline", true, pipelines)),
			explanation(false, "", check("pipeline", false, "")), "v0.1.4 " + pipelines, false},
		{"a check the old release fails by its rule", explanation(false, label, check("pipeline", true, ""), check("framework", false, versions)),
			explanation(true, "", check("pipeline", true, ""), check("framework", true, "")), "v0.1.4 " + versions, false},
		{"a downgrade names the older release's rule too", explanation(true, "", check("framework", true, "")),
			explanation(false, label, check("framework", false, versions)), "v0.1.4 " + versions, true},
		{"a check that moved by no release's rule", explanation(true, "", check("size", true, "")),
			explanation(false, "", check("size", false, "")), "", false},
		{"the same verdict: the rule for the reason", explanation(false, label, check("format", false, "")),
			explanation(false, "", check("format", false, "")), "v0.1.4 " + label, false},
		{"the same verdict and reason rules", explanation(false, "", check("format", false, "")),
			explanation(false, "", check("format", false, "")), "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before, after := "v0.1.4", "v0.1.5"
			if tc.downgrade {
				before, after = after, before
			}
			require.Equal(t, tc.want, Digest(before, tc.b, after, tc.a))
		})
	}
}
