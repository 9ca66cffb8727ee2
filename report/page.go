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
	"encoding/json"
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
	pd, sum, err := compute(in)
	if err != nil {
		return sum, err
	}
	data, err := encodeData(pd.t.encode(0, pd.split, pd.mainRoot, true))
	if err != nil {
		return sum, err
	}
	explain, err := encodeData(pd.t.encode(pd.split, len(pd.t.nodes), pd.explainRoot, false))
	if err != nil {
		return sum, err
	}
	sum.DataBytes = len(data) + len(explain)
	page, err := render(data, explain, nil)
	if err != nil {
		return sum, err
	}
	_, err = w.Write(page)
	return sum, err
}

// WriteJSON evaluates in and writes, as one JSON document, what the page
// is built from: the documents that Documents reads back from a page
// (match, lint, select, probes, models, runtimes, probeModels, engine,
// omeVersion, title, and explain), in the order the page holds them.
func WriteJSON(w io.Writer, in Input) (Summary, error) {
	pd, sum, err := compute(in)
	if err != nil {
		return sum, err
	}
	var main, explain block
	if err := json.Unmarshal(pd.t.encode(0, pd.split, pd.mainRoot, true), &main); err != nil {
		return sum, err
	}
	if err := json.Unmarshal(pd.t.encode(pd.split, len(pd.t.nodes), pd.explainRoot, false), &explain); err != nil {
		return sum, err
	}
	names, docs, err := decodeBlocks(main, explain)
	if err != nil {
		return sum, err
	}
	var b bytes.Buffer
	b.WriteString("{")
	for i, name := range names {
		if i > 0 {
			b.WriteString(",")
		}
		k, _ := json.Marshal(name)
		b.Write(k)
		b.WriteString(":")
		b.Write(docs[i])
	}
	b.WriteString("}")
	var out bytes.Buffer
	if err := json.Indent(&out, b.Bytes(), "", "  "); err != nil {
		return sum, err
	}
	out.WriteString("\n")
	_, err = w.Write(out.Bytes())
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

// render puts the style, script and data into the page; fleet, when not
// nil, is the block of a fleet's clusters (fleet.go).
func render(data, explain, fleet []byte) ([]byte, error) {
	for name, s := range map[string]string{"page.css": pageCSS, "page.js": pageJS} {
		l := strings.ToLower(s)
		if strings.Contains(l, "</style") || strings.Contains(l, "</script") || strings.Contains(l, "<!--") {
			return nil, fmt.Errorf("report: %s holds text that would end its element", name)
		}
	}
	// A fleet's page has the clusters' list and their data (fleet.go); a
	// page of one cluster has neither.
	clusters := ""
	if fleet != nil {
		clusters = "\n  <section id=\"clusters\" aria-label=\"Clusters\" hidden></section>"
	}
	r := strings.NewReplacer("{{CSP}}", CSP(), "{{STYLE}}", pageCSS, "{{SCRIPT}}", pageJS, "{{CLUSTERS}}", clusters)
	if strings.Index(pageHTML, "{{EXPLAIN}}") < strings.Index(pageHTML, "{{DATA}}") {
		return nil, fmt.Errorf("report: page.html has {{EXPLAIN}} before {{DATA}}")
	}
	var b bytes.Buffer
	b.Grow(len(pageHTML) + len(pageCSS) + len(pageJS) + len(data) + len(explain) + len(fleet) + 256)
	rest := pageHTML
	for _, part := range []struct {
		mark string
		data []byte
	}{{"{{DATA}}", data}, {"{{EXPLAIN}}", explain}, {"{{FLEET}}", fleet}} {
		before, after, found := strings.Cut(rest, part.mark)
		if !found {
			return nil, fmt.Errorf("report: page.html has no %s", part.mark)
		}
		b.WriteString(r.Replace(before))
		if part.mark == "{{FLEET}}" && len(fleet) > 0 {
			b.WriteString("\n<!-- The clusters of a fleet's page, each one's data: read once the page is interactive. -->\n<script type=\"application/octet-stream\" id=\"data-fleet\">")
			b.Write(fleet)
			b.WriteString("</script>")
		} else {
			b.Write(part.data)
		}
		rest = after
	}
	b.WriteString(r.Replace(rest))
	return b.Bytes(), nil
}
