package rego

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ome-policy/evaluator/policies/policyset"
)

// The embedded policies skip the compiler's checkOnlyStages when a command
// compiles them: every package a command queries passes those checks, and
// the queries give the same answers with the checks as without.
func TestEmbeddedPoliciesPassEveryCheck(t *testing.T) {
	set, err := policyset.Embedded()
	require.NoError(t, err)
	require.True(t, set.IsEmbedded())
	for _, pkgs := range [][]string{{"ome.match"}, {"ome.select", "ome.match"}, {"ome.lint", "ome.match"}, {"ome.explain", "ome.match"}} {
		mods, err := modulesOf(set, pkgs...)
		require.NoError(t, err)
		c := newCompiler()
		c.Compile(mods)
		require.False(t, c.Failed(), "%v: %v", pkgs, c.Errors)
	}
	// A copy of the embedded set, as a folder's would be, goes through
	// every stage.
	copied := &policyset.Set{Origin: set.Origin, Files: set.Files}
	require.False(t, copied.IsEmbedded())
	checked, err := New(copied)
	require.NoError(t, err)
	skipped, err := New(set)
	require.NoError(t, err)
	require.Equal(t, checked.modelFields, skipped.modelFields)
	require.Equal(t, checked.tables, skipped.tables)
}
