package cel

import (
	"bytes"
	"flag"
	"os"
	"testing"

	celast "github.com/google/cel-go/common/ast"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	"github.com/ome-policy/evaluator/policies/policyset"
)

var update = flag.Bool("update", false, "rewrite generated files (precompiled.bin)")

// The precompiled policies are the embedded ones as they are now, compiled
// from their text; `make celcache` rewrites them.
func TestPrecompiledCELIsCurrent(t *testing.T) {
	got, err := Precompile(testPolicies(t))
	require.NoError(t, err)
	if *update {
		require.NoError(t, os.WriteFile("precompiled.bin", got, 0o644))
		return
	}
	if !bytes.Equal(got, []byte(precompiledFile)) {
		t.Fatal("engine/cel/precompiled.bin is stale: run make celcache")
	}
}

// Every embedded policy file is in the cache whole, and each of its
// documents by its content; they give the same programs as compiling the
// text: the same variables and validations, read the same inputs, and
// answer the case files alike (TestCaseFilesOnEveryEngine runs on them).
func TestPrecompiledCELIsUsed(t *testing.T) {
	set := testPolicies(t)
	cache := precompiled()
	require.NotNil(t, cache, "precompiled.bin does not load")
	for _, f := range set.Sources(policyset.CEL, false) {
		require.NotNil(t, cache.fileDocs(source(t, f)), "%s is not in the cache", f.Path)
	}
	ps, err := compileAllPolicies(set)
	require.NoError(t, err)
	require.NotEmpty(t, ps.byName)
	for name, p := range ps.byName {
		require.NotNil(t, cache.docASTs(p.key), "policy %s has no precompiled expressions", name)
		// Planned on first use, every program plans.
		for i, prg := range p.vars {
			_, err := prg.(*lazyProgram).program()
			require.NoError(t, err, "%s variable %d", name, i)
		}
		for i, c := range p.checks {
			_, err := c.expr.(*lazyProgram).program()
			require.NoError(t, err, "%s validation %d", name, i)
			if c.msgExpr != nil {
				_, err := c.msgExpr.(*lazyProgram).program()
				require.NoError(t, err, "%s validation %d message", name, i)
			}
		}
	}
	fromText, err := compileWith(nil, set)
	require.NoError(t, err)
	for name, p := range ps.byName {
		q := fromText.byName[name]
		require.Equal(t, q.varNames, p.varNames, name)
		require.Equal(t, q.varReads, p.varReads, name)
		require.Equal(t, q.modelOnly, p.modelOnly, name)
		require.Equal(t, q.from.doc, p.from.doc, name)
		require.Equal(t, q.from.line, p.from.line, name)
		require.Equal(t, q.from.lines, p.from.lines, name)
		require.Equal(t, q.key, p.key, name)
		require.Len(t, p.checks, len(q.checks), name)
		for i := range p.checks {
			require.Equal(t, q.checks[i].reads, p.checks[i].reads, "%s validation %d", name, i)
			require.Equal(t, q.checks[i].line, p.checks[i].line, "%s validation %d", name, i)
		}
		// The cached expressions are those cel-go reads back from the
		// protobuf form of the checked ones.
		require.Len(t, p.checked, len(q.checked), name)
		for i := range p.checked {
			want, err := celast.ToProto(q.checked[i])
			require.NoError(t, err)
			got, err := celast.ToProto(p.checked[i])
			require.NoError(t, err)
			require.True(t, proto.Equal(want, got), "%s expression %d differs from its protobuf form", name, i)
		}
	}
}

// A file whose text differs still takes the cached expressions of each
// document whose content is unchanged.
func TestPrecompiledCELByDocument(t *testing.T) {
	set := testPolicies(t)
	var text string
	for _, f := range set.Sources(policyset.CEL, false) {
		if f.Path == "cel/match.yaml" {
			text = source(t, f)
		}
	}
	require.NotEmpty(t, text)
	edited := "# a comment the cache has not seen\n" + text
	cache := precompiled()
	require.Nil(t, cache.fileDocs(edited))
	ps, err := parsePolicies("edited.yaml", edited, nil)
	require.NoError(t, err)
	require.NotEmpty(t, ps)
	for _, p := range ps {
		require.NotNil(t, cache.docASTs(p.key), "policy %s", p.name)
		// Lines are those of the edited file.
		require.Equal(t, p.from.line, cachedLine(t, cache, p.key)+1, "policy %s", p.name)
	}
}

func cachedLine(t *testing.T, c *precompiledCache, key string) int {
	from, _, err := c.lookup(key).load()
	require.NoError(t, err)
	return from.line
}

// A damaged file is not used.
func TestPrecompiledCELDamaged(t *testing.T) {
	for _, file := range []string{"", "OMECEL2\n", precompiledFile[:len(precompiledFile)/2], precompiledFile + "x"} {
		if _, err := decodePrecompiled(file); err == nil {
			t.Errorf("a file of %d bytes was read", len(file))
		}
	}
}
