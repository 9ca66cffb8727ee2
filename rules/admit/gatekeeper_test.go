package admit

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ome-policy/evaluator/admission"
	"github.com/ome-policy/evaluator/input"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/policies/policyset"
	"github.com/ome-policy/evaluator/rules"
)

// The suite of a rule over OME's decisions is made with them: without
// them the bundle is not written, where a suite without its cases would
// pass unseen.
func TestDecisionSuiteNeedsTheDecisions(t *testing.T) {
	all, err := policyset.Embedded()
	require.NoError(t, err)
	set, err := all.ForRelease(all.Newest())
	require.NoError(t, err)
	team, err := rules.Load([]string{"../../examples/company-rules"}, nil)
	require.NoError(t, err)
	checks, err := admission.Checks(set)
	require.NoError(t, err)
	var selection *admission.Check
	for _, c := range checks {
		if c.Kind == admission.SelectionKind {
			selection = c
		}
	}
	compiled, err := Compile(team, []string{TargetGatekeeper}, nil, set.Release, "evaluate gatekeeper --rules", selection)
	require.NoError(t, err)
	compiled.Decide = func([]*objects.Object) (map[*objects.Object]map[string]any, error) {
		return nil, errors.New("no decisions here")
	}
	objs, err := input.Load([]string{"../../testdata/rules/prod.yaml"}, input.LoadOptions{})
	require.NoError(t, err)
	require.ErrorContains(t, compiled.Judge(objs, set.Release), "no decisions here")
}
