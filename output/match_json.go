package output

import (
	"encoding/json"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/results"
)

// matchJSON writes {"results": [...]}, one result at a time, so memory does
// not grow with the number of pairs. Each result is written as
// json.MarshalIndent(result, "  ", "  ") writes it (empty lists as []), by
// hand: the document is the largest output the tool makes (13,662 pairs
// for OME's catalog), and reflection and re-indenting were most of the time
// spent writing it. TestMatchJSONIsEncodingJSON holds the two together.
//
// A model's results are written together, in one Write (one system call
// per model, not per pair), and a command that stops at an error stops
// between models. The summary (pairs left out for scope, input errors)
// follows the results.
type matchJSON struct {
	w     io.Writer
	count int
	buf   []byte
	// cluster is the cluster of a fleet's results, as JSON at a
	// result's depth (fleet.go); nil for one run.
	cluster []byte
}

func (m *matchJSON) Begin(_, _ []*objects.Object) error {
	_, err := io.WriteString(m.w, "{\"results\": [")
	return err
}

func (m *matchJSON) Model(_ engine.Ref, results []engine.Result) error {
	b := m.buf[:0]
	for _, r := range results {
		b = appendResult(b, r, m.count > 0)
		if m.cluster != nil {
			b = append(append(append(b[:len(b)-4], ",\n    \"cluster\": "...), m.cluster...), "\n  }"...)
		}
		m.count++
	}
	m.buf = b
	_, err := m.w.Write(b)
	return err
}

// appendResult writes one result, after a comma when it is not the first.
func appendResult(b []byte, r engine.Result, comma bool) []byte {
	if comma {
		b = append(b, ',')
	}
	b = append(b, "\n  {\n    \"model\": "...)
	b = appendRef(b, r.Model)
	b = append(b, ",\n    \"runtime\": "...)
	b = appendRef(b, r.Runtime)
	b = append(b, ",\n    \"compatible\": "...)
	b = strconv.AppendBool(b, r.Compatible)
	b = append(b, ",\n    \"reason\": "...)
	b = appendJSONString(b, r.Reason)
	b = append(b, ",\n    \"entries\": ["...)
	for i, e := range r.Entries {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n      {\n        \"index\": "...)
		b = strconv.AppendInt(b, int64(e.Index), 10)
		b = append(b, ",\n        \"matched\": "...)
		b = strconv.AppendBool(b, e.Matched)
		b = append(b, ",\n        \"differences\": ["...)
		for j, d := range e.Differences {
			if j > 0 {
				b = append(b, ',')
			}
			b = append(b, "\n          "...)
			b = appendJSONString(b, d)
		}
		if len(e.Differences) > 0 {
			b = append(b, "\n        "...)
		}
		b = append(b, "]\n      }"...)
	}
	if len(r.Entries) > 0 {
		b = append(b, "\n    "...)
	}
	return append(b, "]\n  }"...)
}

// End closes the results and writes the summary's fields after them.
func (m *matchJSON) End(s results.MatchSummary) error {
	b := m.buf[:0]
	if m.count > 0 {
		b = append(b, '\n')
	}
	b = append(b, "],\n\"omeVersion\": "...)
	b = appendJSONString(b, s.OMEVersion)
	b = append(b, ",\n\"leftOut\": "...)
	b = strconv.AppendInt(b, int64(s.LeftOut), 10)
	b = append(b, ",\n\"errors\": "...)
	if s.Problems == nil {
		s.Problems = []results.Problem{}
	}
	errs, err := json.MarshalIndent(s.Problems, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, errs...)
	if len(s.Clusters) > 0 {
		clusters, err := json.MarshalIndent(s.Clusters, "", "  ")
		if err != nil {
			return err
		}
		b = append(append(b, ",\n\"clusters\": "...), clusters...)
	}
	b = append(b, "}\n"...)
	_, err = m.w.Write(b)
	return err
}

// appendRef writes an object reference at the depth of a result's field.
func appendRef(b []byte, r engine.Ref) []byte {
	b = append(b, "{\n      \"kind\": "...)
	b = appendJSONString(b, r.Kind)
	b = append(b, ",\n      \"namespace\": "...)
	b = appendJSONString(b, r.Namespace)
	b = append(b, ",\n      \"name\": "...)
	b = appendJSONString(b, r.Name)
	return append(b, "\n    }"...)
}

// plainASCII holds the bytes that appendJSONString copies as they are: the
// ASCII characters but the control characters, '"', '\\', '<', '>' and
// '&'. One lookup a byte, where the switch below takes a comparison per
// case; nearly every byte of a result is one of these.
var plainASCII = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = true
	}
	for _, c := range `"\<>&` {
		t[c] = false
	}
	return t
}()

// appendJSONString quotes s as encoding/json does by default: '"', '\\'
// and the control characters escaped (\n, \r, \t, \b and \f by name), the
// HTML characters <, > and & as \u003c, \u003e and \u0026, U+2028 and
// U+2029 as \u2028 and \u2029, and each byte of invalid UTF-8 as \ufffd.
func appendJSONString(b []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	b = append(b, '"')
	done := 0 // s[:done] is written
	for i := 0; i < len(s); {
		c := s[i]
		if plainASCII[c] {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			var esc string
			switch {
			case c == '"':
				esc = `\"`
			case c == '\\':
				esc = `\\`
			case c == '\n':
				esc = `\n`
			case c == '\r':
				esc = `\r`
			case c == '\t':
				esc = `\t`
			case c == '\b':
				esc = `\b`
			case c == '\f':
				esc = `\f`
			default: // the other control characters, '<', '>' and '&'
				b = append(b, s[done:i]...)
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
				i++
				done = i
				continue
			}
			b = append(b, s[done:i]...)
			b = append(b, esc...)
			i++
			done = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[done:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[done:i]...)
			b = append(b, `\u202`...)
			b = append(b, hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		done = i
	}
	b = append(b, s[done:]...)
	return append(b, '"')
}
