package objects

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestApplied: the last object of each kind, namespace and name is left.
func TestApplied(t *testing.T) {
	refs := []Ref{{"A", "", "x"}, {"A", "n", "x"}, {"B", "", "x"}, {"A", "", "x"}, {"A", "n", "x"}, {"A", "", "x"}}
	require.Equal(t, []bool{false, false, true, false, true, true}, Applied(len(refs), func(i int) Ref { return refs[i] }))
}
