package objects

import (
	"maps"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestApplied: the last object of each kind, namespace and name is left.
func TestApplied(t *testing.T) {
	refs := []Ref{{"A", "", "x"}, {"A", "n", "x"}, {"B", "", "x"}, {"A", "", "x"}, {"A", "n", "x"}, {"A", "", "x"}}
	require.Equal(t, []bool{false, false, true, false, true, true}, Applied(len(refs), func(i int) Ref { return refs[i] }))
}

// TestPositions: a field's position by its path, the later of two of a
// path, a null field taken back, and a parent's line for a field absent.
func TestPositions(t *testing.T) {
	var b posBuilder
	b.add("", Pos{Line: 1, Column: 1})
	b.add("spec", Pos{Line: 3, Column: 1})
	b.add("spec.version", Pos{Line: 4, Column: 12, Raw: "1.0"})
	b.add("spec.list", Pos{Line: 5, Column: 3})
	b.add("spec.list[0]", Pos{Line: 6, Column: 5})
	b.add("spec.list[0].name", Pos{Line: 6, Column: 11})
	b.add("spec.list[1]", Pos{Line: 7, Column: 5})
	b.add("spec.version", Pos{Line: 8, Column: 12, Raw: "2"})
	b.add("spec.gone", Pos{Line: 9, Column: 3})
	b.dropLast("spec.other")
	b.dropLast("spec.gone")
	pos := b.done()

	require.Equal(t, 7, pos.Len())
	for _, tc := range []struct {
		path  string
		want  Pos
		found bool
		line  int
	}{
		{path: "", want: Pos{Line: 1, Column: 1}, found: true, line: 1},
		{path: "spec.version", want: Pos{Line: 8, Column: 12, Raw: "2"}, found: true, line: 8},
		{path: "spec.list[0].name", want: Pos{Line: 6, Column: 11}, found: true, line: 6},
		{path: "spec.gone", line: 3},
		{path: "spec.list[0].absent", line: 6},
		{path: "status", line: 1},
	} {
		got, found := pos.Lookup(tc.path)
		require.Equal(t, tc.found, found, tc.path)
		require.Equal(t, tc.want, got, tc.path)
		require.Equal(t, tc.line, LineAt(pos, tc.path, 99), tc.path)
	}
	require.Equal(t, 99, LineAt(Positions{}, "spec", 99), "no position: the default")

	item0 := map[string]Pos{"": {Line: 6, Column: 5}, "name": {Line: 6, Column: 11}}
	require.Equal(t, item0, maps.Collect(SubPos(pos, "spec.list[0]").All()))
	var packed posBuilder
	for path, p := range item0 {
		packed.add(path, p)
	}
	require.Equal(t, item0, maps.Collect(packed.done().All()))
	items := SplitPos(pos, "spec.list")
	require.Len(t, items, 2)
	require.Equal(t, item0, maps.Collect(items[0].All()))
	require.Equal(t, map[string]Pos{"": {Line: 7, Column: 5}}, maps.Collect(items[1].All()))
}
