package output

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/results"
)

// Strings that encoding/json escapes, and some it does not.
var jsonSamples = []string{
	"", "plain", `quote " and \ backslash`, "line\nfeed\r\ttab\b\f", "\x00\x01\x1f\x7f",
	"<script>alert('x')</script> & more", "\u2028\u2029", "é ü 漢字 🙂", "\xff\xfe bad utf-8 \xc3",
	"format name mismatch (model=safetensors, runtime=pytorch)", "a\u00a0b",
}

func randomString(r *rand.Rand) string {
	if r.Intn(3) == 0 {
		return jsonSamples[r.Intn(len(jsonSamples))]
	}
	var b strings.Builder
	for range r.Intn(12) {
		switch r.Intn(4) {
		case 0:
			b.WriteByte(byte(r.Intn(256)))
		case 1:
			b.WriteRune(rune(r.Intn(0x2100)))
		default:
			b.WriteByte(byte('a' + r.Intn(26)))
		}
	}
	return b.String()
}

// The hand-written writer gives what json.MarshalIndent gives, result by
// result, on random results full of strings that need escaping.
func TestMatchJSONIsEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for round := range 300 {
		rs := make([]engine.Result, r.Intn(4))
		for i := range rs {
			res := engine.Result{
				Model:   engine.Ref{Kind: randomString(r), Namespace: randomString(r), Name: randomString(r)},
				Runtime: engine.Ref{Kind: randomString(r), Name: randomString(r)},
			}
			res.Compatible = r.Intn(2) == 0
			res.Reason = randomString(r)
			if r.Intn(5) > 0 {
				res.Entries = make([]engine.EntryResult, r.Intn(3))
			}
			for j := range res.Entries {
				res.Entries[j] = engine.EntryResult{Index: j, Matched: r.Intn(2) == 0}
				for range r.Intn(3) {
					res.Entries[j].Differences = append(res.Entries[j].Differences, randomString(r))
				}
			}
			rs[i] = res
		}
		summary := results.MatchSummary{OMEVersion: randomString(r), LeftOut: r.Intn(3)}
		for range r.Intn(3) {
			summary.Problems = append(summary.Problems, results.Problem{File: randomString(r), Line: r.Intn(9), Field: randomString(r), Message: randomString(r)})
		}
		var got bytes.Buffer
		w := &matchJSON{w: &got}
		require.NoError(t, w.Begin(nil, nil))
		// The results of one model, or of two.
		cut := r.Intn(len(rs) + 1)
		require.NoError(t, w.Model(engine.Ref{}, rs[:cut]))
		require.NoError(t, w.Model(engine.Ref{}, rs[cut:]))
		require.NoError(t, w.End(summary))

		var want bytes.Buffer
		want.WriteString("{\"results\": [")
		for i, res := range rs {
			b, err := json.MarshalIndent(normalise(res), "  ", "  ")
			require.NoError(t, err)
			if i > 0 {
				want.WriteString(",")
			}
			want.WriteString("\n  ")
			want.Write(b)
		}
		if len(rs) > 0 {
			want.WriteString("\n")
		}
		want.WriteString("],\n\"omeVersion\": ")
		v, err := json.Marshal(summary.OMEVersion)
		require.NoError(t, err)
		want.Write(v)
		want.WriteString(",\n\"leftOut\": ")
		want.WriteString(strconv.Itoa(summary.LeftOut))
		want.WriteString(",\n\"errors\": ")
		if summary.Problems == nil {
			summary.Problems = []results.Problem{}
		}
		b, err := json.MarshalIndent(summary.Problems, "", "  ")
		require.NoError(t, err)
		want.Write(b)
		want.WriteString("}\n")
		require.Equal(t, want.String(), got.String(), "round %d", round)
		require.True(t, json.Valid(got.Bytes()))
		var doc struct {
			Results []engine.Result `json:"results"`
			results.MatchSummary
		}
		require.NoError(t, json.Unmarshal(got.Bytes(), &doc))
		require.Len(t, doc.Results, len(rs))
		require.Equal(t, summary.LeftOut, doc.LeftOut)
	}
}

func TestAppendJSONString(t *testing.T) {
	for _, s := range jsonSamples {
		want, err := json.Marshal(s)
		require.NoError(t, err)
		require.Equal(t, string(want), string(appendJSONString(nil, s)), "%q", s)
	}
	for i := range 0x3000 {
		s := "x" + string(rune(i)) + "y"
		if !utf8.ValidString(s) {
			continue
		}
		want, _ := json.Marshal(s)
		require.Equal(t, string(want), string(appendJSONString(nil, s)), "%U", i)
	}
}

func FuzzAppendJSONString(f *testing.F) {
	for _, s := range jsonSamples {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendJSONString(nil, s); !bytes.Equal(want, got) {
			t.Fatalf("%q: encoding/json gives %s, appendJSONString %s", s, want, got)
		}
	})
}

// BenchmarkAppendJSONString quotes a typical reason: a long line of plain
// ASCII, as nearly every string of a match result is.
func BenchmarkAppendJSONString(b *testing.B) {
	s := "model format 'mt:safetensors:1.0.0:LlamaForCausalLM:transformers:4.45.0' not in supported formats: " +
		"architecture mismatch (model=LlamaForCausalLM, runtime=MistralForCausalLM), " +
		"framework version mismatch (model=4.45.0, runtime=4.46.0)"
	b.SetBytes(int64(len(s)))
	var buf []byte
	for b.Loop() {
		buf = appendJSONString(buf[:0], s)
	}
}
