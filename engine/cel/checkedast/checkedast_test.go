package checkedast

import (
	"bytes"
	"testing"

	"github.com/google/cel-go/cel"
	celast "github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/ext"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"
)

// expressions cover every kind of expression and literal value the encoder
// writes, most kinds of type, macros and optional entries.
var expressions = []string{
	`model.spec.versions.exists(v, v == "1.0")`,
	`{"a": 1, ?"b": optional.none()}`,
	`[1, ?optional.of(2)].size() == int(2u)`,
	`has(model.spec) && !has(runtime.disabled)`,
	`{"a": 1}.transformMap(k, v, k + string(v)).size() == 1 && [3].all(i, v, v > i)`,
	`[b"x", bytes("y")].size() > 0 ? 2.5 : double(1)`,
	`model.name != null && type(model) == map`,
	`duration("1s") < duration("2s") && timestamp("2025-01-31T12:00:00Z") > timestamp("2025-01-01T00:00:00Z")`,
	`[1, 2].all(i, i > 0) ? "all" : "some"`,
	`model.?spec.?name.orValue("none")`,
	`cel.bind(x, [1, 2, 3], x.filter(i, i % 2 == 1).size())`,
	`google.protobuf.Int64Value{value: 5} == 5 && google.protobuf.Duration{seconds: 1} == duration("1s")`,
	`dyn(google.protobuf.Any{}) != null && model.x == google.protobuf.Value{string_value: "v"}`,
}

func checked(t *testing.T) []*celast.AST {
	t.Helper()
	env, err := cel.NewEnv(cel.OptionalTypes(), ext.Strings(), ext.Bindings(), ext.TwoVarComprehensions(),
		cel.Variable("model", cel.DynType), cel.Variable("runtime", cel.DynType))
	require.NoError(t, err)
	var out []*celast.AST
	for _, e := range expressions {
		a, iss := env.Compile(e)
		require.NoError(t, iss.Err(), e)
		out = append(out, a.NativeRep())
	}
	return out
}

func testFiles(t *testing.T) []File {
	asts := checked(t)
	return []File{
		{Text: "first file", Docs: []*Doc{{
			Key: "key-1", Name: "one", APIVersion: "policy.ome.io/v1alpha1", Kind: "CELPolicy", Evaluation: "all",
			Inputs: []string{"model", "runtime"}, Line: 3,
			Variables:   []Variable{{Name: "v", Expression: expressions[0], Line: 7}},
			Validations: []Validation{{Expression: expressions[1], Message: "m", MessageExpression: "", Line: 9}},
			ASTs:        asts[:len(asts)/2],
		}}},
		{Text: "second file", Docs: []*Doc{
			{Key: "key-2", Name: "two", Evaluation: "first", Line: 1, ASTs: asts[len(asts)/2:]},
			{Key: "key-3", Name: "three", Line: 20},
		}},
	}
}

// What Encode writes, Decode reads back: each file's documents by its
// text, each document by its key, with its content, lines and
// expressions, which are those of the protobuf form.
func TestRoundTrip(t *testing.T) {
	files := testFiles(t)
	b, err := Encode(files)
	require.NoError(t, err)
	again, err := Encode(testFiles(t))
	require.NoError(t, err)
	require.True(t, bytes.Equal(b, again), "the same documents encode to other bytes")

	c, err := Decode(string(b))
	require.NoError(t, err)
	require.Nil(t, c.FileDocs("a file it has not seen"))
	require.Nil(t, c.Lookup("no such key"))
	for _, f := range files {
		docs := c.FileDocs(f.Text)
		require.Len(t, docs, len(f.Docs))
		for i, want := range f.Docs {
			require.Equal(t, want.Name, docs[i].Name)
			require.Same(t, docs[i], c.Lookup(want.Key))
			got, err := docs[i].Doc()
			require.NoError(t, err)
			require.Len(t, got.ASTs, len(want.ASTs))
			for j := range want.ASTs {
				wp, err := celast.ToProto(want.ASTs[j])
				require.NoError(t, err)
				gp, err := celast.ToProto(got.ASTs[j])
				require.NoError(t, err)
				require.True(t, proto.Equal(wp, gp), "%s expression %d", want.Name, j)
			}
			require.Len(t, c.DocASTs(want.Key), len(want.ASTs))
			w, g := *want, *got
			w.ASTs, g.ASTs = nil, nil
			require.Equal(t, w, g)
		}
	}
}

// A nil Cache (a file that could not be read) has no document.
func TestNilCache(t *testing.T) {
	var c *Cache
	require.Nil(t, c.FileDocs("text"))
	require.Nil(t, c.Lookup("key"))
	require.Nil(t, c.DocASTs("key"))
}

// A damaged file is refused, never misread.
func TestDamaged(t *testing.T) {
	b, err := Encode(testFiles(t))
	require.NoError(t, err)
	file := string(b)
	for _, damaged := range []string{"", Magic, "OMECEL0\n" + file[len(Magic):], file[:len(file)/2], file + "x"} {
		if _, err := Decode(damaged); err == nil {
			t.Errorf("a file of %d bytes was read", len(damaged))
		}
	}
}
