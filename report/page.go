// Package report writes `evaluate report`: one self-contained HTML page
// that shows the compatibility of every model with every runtime as a
// matrix, each pair's explanation, the lint and cross-check findings and
// the webhook's decision on InferenceServices.
//
// It owns the page (page.html, page.css and page.js, embedded), the
// encoding of its data and the page's Content-Security-Policy. The data
// is the JSON that evaluate match, explain, lint --cross-check and select
// print, written by the command's own output package, stored as a table of
// distinct values (see table), gzipped and base64-encoded; the page reads
// it back with the browser's DecompressionStream. It evaluates nothing
// itself: the engine does.
package report

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"fmt"
	"io"
	"strings"
)

var (
	//go:embed page.html
	pageHTML string
	//go:embed page.css
	pageCSS string
	//go:embed page.js
	pageJS string
)

// Write evaluates in and writes the page to w.
func Write(w io.Writer, in Input) (Summary, error) {
	t, root, sum, err := compute(in)
	if err != nil {
		return sum, err
	}
	data, err := encodeData(t.encode(root))
	if err != nil {
		return sum, err
	}
	sum.DataBytes = len(data)
	page, err := render(data)
	if err != nil {
		return sum, err
	}
	_, err = w.Write(page)
	return sum, err
}

// encodeData gzips and base64-encodes the data document: base64 has no
// character that HTML or a script element's end could read.
func encodeData(doc []byte) ([]byte, error) {
	var z bytes.Buffer
	gw, err := gzip.NewWriterLevel(&z, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := gw.Write(doc); err != nil {
		return nil, err
	}
	if err := gw.Close(); err != nil {
		return nil, err
	}
	out := make([]byte, base64.StdEncoding.EncodedLen(z.Len()))
	base64.StdEncoding.Encode(out, z.Bytes())
	return out, nil
}

// CSP is the page's Content-Security-Policy: nothing may be fetched or
// connected to, and only the page's own script and style (by hash) run,
// so no inline event handler or injected element does.
func CSP() string {
	return "default-src 'none'; script-src '" + hash(pageJS) + "'; style-src '" + hash(pageCSS) +
		"'; img-src data:; connect-src 'none'; base-uri 'none'; form-action 'none'"
}

func hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}

// render puts the style, script and data into the page.
func render(data []byte) ([]byte, error) {
	for name, s := range map[string]string{"page.css": pageCSS, "page.js": pageJS} {
		l := strings.ToLower(s)
		if strings.Contains(l, "</style") || strings.Contains(l, "</script") || strings.Contains(l, "<!--") {
			return nil, fmt.Errorf("report: %s holds text that would end its element", name)
		}
	}
	parts := strings.SplitN(pageHTML, "{{DATA}}", 2)
	if len(parts) != 2 {
		return nil, fmt.Errorf("report: page.html has no {{DATA}}")
	}
	r := strings.NewReplacer("{{CSP}}", CSP(), "{{STYLE}}", pageCSS, "{{SCRIPT}}", pageJS)
	var b bytes.Buffer
	b.Grow(len(pageHTML) + len(pageCSS) + len(pageJS) + len(data) + 256)
	b.WriteString(r.Replace(parts[0]))
	b.Write(data)
	b.WriteString(r.Replace(parts[1]))
	return b.Bytes(), nil
}
