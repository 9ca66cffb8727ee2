package main

import (
	"bytes"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// bare writes, byte for byte, what `evaluate match -o json` writes on the
// README's examples (testdata/golden/match-json.stdout), and on a catalog
// runtime whose entries and texts are long.
func TestBareIsEvaluateMatch(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run([]string{"../../testdata/examples/models"}, []string{"../../testdata/examples/runtimes"}, &out))
	want, err := os.ReadFile("../../testdata/golden/match-json.stdout")
	require.NoError(t, err)
	require.Equal(t, string(want), out.String())

	out.Reset()
	require.NoError(t, run([]string{"../../testdata/examples/models"}, nil, &out))
	require.Equal(t, "{\"results\": [],\n\"omeVersion\": \"v1.2.2\",\n\"leftOut\": 0,\n\"errors\": []}\n", out.String())
}

func TestAppendString(t *testing.T) {
	for s, want := range map[string]string{
		"":                `""`,
		"a <b> & \"c\"\\": `"a \u003cb\u003e \u0026 \"c\"\\"`,
		"\n\r\t\b\f\x01":  `"\n\r\t\b\f\u0001"`,
		"\u2028\u2029 é":  `"\u2028\u2029 é"`,
		"bad \xff utf-8":  `"bad \ufffd utf-8"`,
	} {
		require.Equal(t, want, string(appendString(nil, s)), "%q", s)
	}
}

// Of the objects of one kind, namespace and name, bare keeps the last, in
// its place, as kubectl apply and evaluate do.
func TestAppliedKeepsTheLast(t *testing.T) {
	o := func(kind, ns, name, tag string) object {
		return object{kind: kind, ns: ns, name: name, spec: map[string]any{"tag": tag}}
	}
	tags := func(objs []object) (out []string) {
		for _, x := range objs {
			out = append(out, x.spec["tag"].(string))
		}
		return out
	}
	for _, tc := range []struct {
		name string
		in   []object
		want []string
	}{
		{"none", nil, nil},
		{"distinct", []object{o("ServingRuntime", "a", "x", "1"), o("ServingRuntime", "b", "x", "2"), o("ClusterServingRuntime", "", "x", "3")}, []string{"1", "2", "3"}},
		{"given twice", []object{o("ClusterServingRuntime", "", "x", "1"), o("ClusterServingRuntime", "", "y", "2"), o("ClusterServingRuntime", "", "x", "3")}, []string{"2", "3"}},
		{"three times", []object{o("BaseModel", "a", "m", "1"), o("BaseModel", "a", "m", "2"), o("BaseModel", "a", "m", "3")}, []string{"3"}},
	} {
		t.Run(tc.name, func(t *testing.T) { require.Equal(t, tc.want, tags(applied(tc.in))) })
	}
}
