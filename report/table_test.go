package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// roundTrip stores docs in a table, as the page holds them, and reads
// them back with the page's Go decoder.
func roundTrip(t *testing.T, docs map[string]string) map[string]json.RawMessage {
	t.Helper()
	d := &data{t: newTable()}
	keys := make([]string, 0, len(docs))
	for k := range docs {
		keys = append(keys, k)
	}
	for _, k := range keys {
		require.NoError(t, d.putJSON(k, []byte(docs[k])))
	}
	pd := &pageData{t: d.t, mainRoot: d.t.object(d.keys, d.refs)}
	pd.split = len(d.t.nodes)
	explK, _ := json.Marshal("explanations")
	pd.explainRoot = d.t.object([][]byte{explK}, []int{d.t.array(nil)})
	main, err := encodeData(pd.t.encode(0, pd.split, pd.mainRoot, true))
	require.NoError(t, err)
	explain, err := encodeData(pd.t.encode(pd.split, len(pd.t.nodes), pd.explainRoot, false))
	require.NoError(t, err)
	page, err := render(main, explain, nil)
	require.NoError(t, err)
	got, err := Documents(page)
	require.NoError(t, err)
	return got
}

func TestTableKeepsEveryDocumentExactly(t *testing.T) {
	long := strings.Repeat(`{"a": [1, 2, {"b": "x"}], "c": "x"}, `, 300)
	for _, tc := range []struct {
		name string
		doc  string
	}{
		{"empty object", `{}`},
		{"empty array", `[]`},
		{"scalars", `[true, false, null, 0, -1, 2.5, 1e-7, -0.5E+3, ""]`},
		{"escapes as written", `["\u003cscript\u003e", "</script>", "\"quoted\"", "tab\there", "\u2028", "é", "\ud83d\ude00", "a\\b"]`},
		{"key order", `{"z": 1, "a": 2, "m": {"y": [], "b": {}}}`},
		{"same values shared", `[` + long + `{}]`},
		{"nested", `{"a": {"b": {"c": {"d": [[[["deep"]]]]}}}}`},
		{"many near and far references", `[` + strings.Repeat(`["a", "b", ["a", "b"]], `, 200) + `"end"]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := roundTrip(t, map[string]string{"doc": tc.doc, "other": `{"doc": ` + tc.doc + `}`})
			var want, back bytes.Buffer
			require.NoError(t, json.Compact(&want, []byte(tc.doc)))
			require.NoError(t, json.Compact(&back, got["doc"]))
			require.Equal(t, want.String(), back.String())
			require.Equal(t, `{"doc":`+want.String()+`}`, string(got["other"]))
		})
	}
}

func TestTableRefusesMalformedJSON(t *testing.T) {
	for _, doc := range []string{``, `{`, `[1,]`, `{"a" 1}`, `{"a": 1,}`, `[1] [2]`, `"unterminated`, `[01]`, `[1.]`, `[tru]`, "[\"a\nb\"]", strings.Repeat("[", 300) + strings.Repeat("]", 300)} {
		_, err := newTable().intern([]byte(doc))
		require.Error(t, err, "%q", doc)
	}
}

// The page's own script and style are allowed by hash, and nothing else:
// no network, no inline handler, no 'unsafe-inline'.
func TestContentSecurityPolicy(t *testing.T) {
	page, err := render([]byte("AAAA"), []byte("AAAA"), nil)
	require.NoError(t, err)
	csp := CSP()
	require.Contains(t, string(page), `<meta http-equiv="Content-Security-Policy" content="`+csp+`">`)
	for _, want := range []string{"default-src 'none'", "connect-src 'none'", "script-src '" + hash(pageJS) + "'", "style-src '" + hash(pageCSS) + "'", "base-uri 'none'", "form-action 'none'"} {
		require.Contains(t, csp, want)
	}
	require.NotContains(t, csp, "unsafe")
	require.Contains(t, string(page), "<script>"+pageJS+"</script>")
	require.Contains(t, string(page), "<style>"+pageCSS+"</style>")
	for _, s := range []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"} {
		require.NotContains(t, pageJS, s, "the page builds its DOM with textContent only")
	}
}
