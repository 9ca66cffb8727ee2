package report

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
)

// Documents reads the data of a page that Write wrote and returns its
// documents as JSON text, keys in the order written: "match" (as evaluate
// match -o json prints it), "explain", "lint", "select" (null without -f),
// "probes", and the page's own "models", "runtimes", "probeModels",
// "engine" and "title". It is the page's decoding, in Go, for tests and
// tools.
func Documents(page []byte) (map[string]json.RawMessage, error) {
	var main, explain block
	if err := readBlock(page, "data", &main); err != nil {
		return nil, err
	}
	if err := readBlock(page, "data-explain", &explain); err != nil {
		return nil, err
	}
	names, docs, err := decodeBlocks(main, explain)
	if err != nil {
		return nil, err
	}
	out := make(map[string]json.RawMessage, len(names))
	for i, name := range names {
		out[name] = docs[i]
	}
	return out, nil
}

// decodeBlocks turns a page's two blocks back into its documents, named,
// in the order written, "explain" last.
func decodeBlocks(main, explain block) (names []string, docs []json.RawMessage, err error) {
	nodes := append(main.Nodes, explain.Nodes...)
	d := &decoder{shapes: main.Shapes, nodes: nodes, kids: make([][]int, len(nodes))}
	keys, refs, err := d.object(main.Root)
	if err != nil {
		return nil, nil, err
	}
	for k, key := range keys {
		var name string
		if err := json.Unmarshal(key, &name); err != nil {
			return nil, nil, err
		}
		var b bytes.Buffer
		if err := d.write(&b, refs[k], 0); err != nil {
			return nil, nil, err
		}
		names, docs = append(names, name), append(docs, b.Bytes())
	}
	var b bytes.Buffer
	if err := d.write(&b, explain.Root, 0); err != nil {
		return nil, nil, err
	}
	return append(names, "explain"), append(docs, b.Bytes()), nil
}

// block is one data element of the page (see table.encode).
type block struct {
	Shapes [][]json.RawMessage `json:"shapes"`
	Nodes  []json.RawMessage   `json:"nodes"`
	Root   int                 `json:"root"`
}

// readBlock decodes the data element of the id: base64, gzip, JSON.
func readBlock(page []byte, id string, b *block) error {
	open := `<script type="application/octet-stream" id="` + id + `">`
	i := bytes.Index(page, []byte(open))
	if i < 0 {
		return fmt.Errorf("report: no %s in the page", id)
	}
	rest := page[i+len(open):]
	j := bytes.Index(rest, []byte("</script>"))
	if j < 0 {
		return fmt.Errorf("report: %s is not closed", id)
	}
	z, err := base64.StdEncoding.DecodeString(string(bytes.TrimSpace(rest[:j])))
	if err != nil {
		return fmt.Errorf("report: %s: %w", id, err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(z))
	if err != nil {
		return fmt.Errorf("report: %s: %w", id, err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return fmt.Errorf("report: %s: %w", id, err)
	}
	if err := json.Unmarshal(raw, b); err != nil {
		return fmt.Errorf("report: %s: %w", id, err)
	}
	return nil
}

type decoder struct {
	shapes [][]json.RawMessage
	nodes  []json.RawMessage
	kids   [][]int
}

// composite returns the tag and children of an array or object node;
// ok is false for a primitive.
func (d *decoder) composite(r int) (tag int, kids []int, ok bool, err error) {
	if r < 0 || r >= len(d.nodes) {
		return 0, nil, false, fmt.Errorf("report: reference %d out of range", r)
	}
	n := d.nodes[r]
	if len(n) == 0 || n[0] != '[' {
		return 0, nil, false, nil
	}
	if d.kids[r] == nil {
		var all []int
		if err := json.Unmarshal(n, &all); err != nil || len(all) == 0 {
			return 0, nil, false, fmt.Errorf("report: bad node %d", r)
		}
		for k := 1; k < len(all); k++ {
			if all[k] < 0 { // a near reference, relative to r
				all[k] += r
			}
		}
		d.kids[r] = all
	}
	return d.kids[r][0], d.kids[r][1:], true, nil
}

func (d *decoder) object(r int) ([]json.RawMessage, []int, error) {
	tag, kids, ok, err := d.composite(r)
	if err != nil {
		return nil, nil, err
	}
	if !ok || tag < 1 || tag > len(d.shapes) || len(d.shapes[tag-1]) != len(kids) {
		return nil, nil, fmt.Errorf("report: node %d is not an object", r)
	}
	return d.shapes[tag-1], kids, nil
}

func (d *decoder) write(b *bytes.Buffer, r, depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("report: data nested too deeply")
	}
	tag, kids, ok, err := d.composite(r)
	if err != nil {
		return err
	}
	if !ok {
		b.Write(d.nodes[r])
		return nil
	}
	if tag == 0 {
		b.WriteByte('[')
		for i, k := range kids {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := d.write(b, k, depth+1); err != nil {
				return err
			}
		}
		b.WriteByte(']')
		return nil
	}
	keys, kids, err := d.object(r)
	if err != nil {
		return err
	}
	b.WriteByte('{')
	for i, k := range kids {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(keys[i])
		b.WriteByte(':')
		if err := d.write(b, k, depth+1); err != nil {
			return err
		}
	}
	b.WriteByte('}')
	return nil
}
