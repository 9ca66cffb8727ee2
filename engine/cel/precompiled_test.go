package cel

import (
	"bytes"
	"flag"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite generated files (precompiled.gob.gz)")

// The precompiled expressions are those of the embedded policies as they
// are now; `make celcache` rewrites them.
func TestPrecompiledCELIsCurrent(t *testing.T) {
	got, err := Precompile(testPolicies(t))
	require.NoError(t, err)
	if *update {
		require.NoError(t, os.WriteFile("precompiled.gob.gz", got, 0o644))
		return
	}
	if !bytes.Equal(got, precompiledFile) {
		t.Fatal("engine/cel/precompiled.gob.gz is stale: run make celcache")
	}
}

// Every embedded policy document finds its precompiled expressions, and
// they give the same programs as compiling the text: the same variables
// and validations, read the same inputs, and answer the case files alike
// (TestCaseFilesOnEveryEngine runs on them).
func TestPrecompiledCELIsUsed(t *testing.T) {
	set := testPolicies(t)
	ps, err := compileAllPolicies(set)
	require.NoError(t, err)
	require.NotEmpty(t, ps.byName)
	for name, p := range ps.byName {
		require.NotNil(t, precompiledASTs(p.key), "policy %s has no precompiled expressions", name)
	}
	// The same documents compiled from their text, as a folder's would be
	// if they differed.
	saved := precompiledIndex
	precompiledIndex = func() map[string][][]byte { return nil }
	defer func() { precompiledIndex = saved }()
	fromText, err := compileAllPolicies(set)
	require.NoError(t, err)
	for name, p := range ps.byName {
		q := fromText.byName[name]
		require.Equal(t, q.varNames, p.varNames, name)
		require.Equal(t, q.varReads, p.varReads, name)
		require.Equal(t, q.modelOnly, p.modelOnly, name)
		require.Len(t, p.checks, len(q.checks), name)
		for i := range p.checks {
			require.Equal(t, q.checks[i].reads, p.checks[i].reads, "%s validation %d", name, i)
		}
	}
}
