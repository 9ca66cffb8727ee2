package admit

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ome-policy/evaluator/input"
	"github.com/ome-policy/evaluator/policies/policyset"
	"github.com/ome-policy/evaluator/rules"
)

// The cases of a team's suites are the objects of --lint that admission
// sees, as lint decides them: an object OME's CRD refuses (a version as a
// YAML number, on which the rule's isOmeVersion would fail) is none, nor
// is the earlier of an object given twice.
func TestJudgeTakesWhatAdmissionSees(t *testing.T) {
	all, err := policyset.Embedded()
	require.NoError(t, err)
	set, err := all.ForRelease(all.Newest())
	require.NoError(t, err)
	team, err := rules.Load([]string{"../../testdata/rules/corpus/cel-compareto/rules"}, nil)
	require.NoError(t, err)
	compiled, err := Compile(team, []string{TargetGatekeeper}, nil, set.Release, "evaluate gatekeeper --rules", nil)
	require.NoError(t, err)
	objs, err := input.Load([]string{
		"../../testdata/lint/bad/non-string-version.yaml",
		"../../testdata/lint/bad/duplicate-name.yaml",
		"../../testdata/rules/corpus/cel-compareto/objects.yaml",
	}, input.LoadOptions{Lenient: true})
	require.NoError(t, err)
	_, problems, err := team.CheckAll(objs[:1], nil)
	require.NoError(t, err)
	require.ErrorContains(t, problems, "no such overload", "the rule fails on the number, as lint says")

	require.NoError(t, compiled.Judge(objs, set.Release))
	twice, lint := 0, 0
	for _, c := range compiled.Cases {
		if c.Rule == "" {
			lint++
		}
		require.NotEqual(t, "unquoted-version", c.Object.Name, "OME's CRD refuses it: no case")
		if c.Object.Name == "twice" {
			twice++
			require.Equal(t, 11, c.Object.Line, "the later of the two, which apply keeps")
		}
	}
	require.Equal(t, 1, twice)
	require.Len(t, compiled.Lint, lint, "a case of each object of --lint that admission sees")
}
