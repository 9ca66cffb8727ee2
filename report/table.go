package report

import (
	"bytes"
	"fmt"
	"strconv"
)

// table stores JSON documents with every distinct value kept once: the
// explanations of a catalog repeat the same checks, versions and texts
// thousands of times, and a table of them is a small fraction of the
// documents' size.
//
// A value is a reference: an index into nodes. A node is one of
//
//	a JSON string, number, true, false or null  the value itself, as the writer wrote it
//	[0, r1, r2, ...]                            an array of the values r1, r2, ...
//	[s, r1, r2, ...]                            an object: the keys of shapes[s-1], in order, with the values r1, r2, ...
//
// so that the page rebuilds each document exactly: the same values, the
// same keys in the same order. Strings and numbers are kept as the writer
// spelled them (JSON.parse reads them back), so nothing is re-encoded.
//
// In node i, a reference to a node less than nearRefs before it is written
// as the negative distance, -(i-r): a value's parts are mostly stored just
// before it, and the short numbers compress about a quarter better than
// the indexes (shared nodes keep their index, which repeats exactly).
type table struct {
	nodes  [][]byte
	index  map[string]int // a node's key (references as indexes) -> its index
	shapes [][]byte
	shape  map[string]int
	key    []byte
}

const nearRefs = 100

func newTable() *table {
	return &table{index: map[string]int{}, shape: map[string]int{}}
}

// add stores a primitive node, given as its JSON token, and returns its
// reference.
func (t *table) add(token []byte) int {
	if r, ok := t.index[string(token)]; ok {
		return r
	}
	r := len(t.nodes)
	n := bytes.Clone(token)
	t.nodes = append(t.nodes, n)
	t.index[string(n)] = r
	return r
}

// composite stores an array (tag 0) or object (tag s) node.
func (t *table) composite(tag int, refs []int) int {
	k := append(t.key[:0], '[')
	k = strconv.AppendInt(k, int64(tag), 10)
	for _, r := range refs {
		k = append(k, ',')
		k = strconv.AppendInt(k, int64(r), 10)
	}
	k = append(k, ']')
	t.key = k
	if r, ok := t.index[string(k)]; ok {
		return r
	}
	i := len(t.nodes)
	n := make([]byte, 0, len(k))
	n = append(n, '[')
	n = strconv.AppendInt(n, int64(tag), 10)
	for _, r := range refs {
		n = append(n, ',')
		if d := i - r; d > 0 && d < nearRefs {
			n = strconv.AppendInt(n, int64(-d), 10)
		} else {
			n = strconv.AppendInt(n, int64(r), 10)
		}
	}
	n = append(n, ']')
	t.nodes = append(t.nodes, n)
	t.index[string(k)] = i
	return i
}

// array stores an array of the values refs.
func (t *table) array(refs []int) int { return t.composite(0, refs) }

// object stores an object; keys are JSON string tokens, in order.
func (t *table) object(keys [][]byte, refs []int) int {
	k := []byte{'['}
	for i, key := range keys {
		if i > 0 {
			k = append(k, ',')
		}
		k = append(k, key...)
	}
	k = append(k, ']')
	s, ok := t.shape[string(k)]
	if !ok {
		s = len(t.shapes)
		t.shapes = append(t.shapes, k)
		t.shape[string(k)] = s
	}
	return t.composite(s+1, refs)
}

// intern stores a whole JSON document (as the output package writes it)
// and returns the reference of its value.
func (t *table) intern(doc []byte) (int, error) {
	p := &parser{t: t, b: doc}
	r, err := p.value(0)
	if err != nil {
		return 0, err
	}
	p.space()
	if p.i != len(p.b) {
		return 0, fmt.Errorf("report: data after the JSON value at byte %d", p.i)
	}
	return r, nil
}

// internElements stores the elements of the array under key in a
// document of the form {..., "key": [...], ...} and returns their
// references, storing neither the array nor the object around it. The
// other keys are read past (stored, but referred to by nothing: the
// writers' "omeVersion" and "errors": []).
func (t *table) internElements(doc []byte, key string) ([]int, error) {
	p := &parser{t: t, b: doc}
	expect := func(c byte) error {
		p.space()
		if p.i >= len(p.b) || p.b[p.i] != c {
			return p.fail(fmt.Sprintf("expected %c", c))
		}
		p.i++
		return nil
	}
	if err := expect('{'); err != nil {
		return nil, err
	}
	var refs []int
	found := false
	for first := true; ; first = false {
		p.space()
		if p.i < len(p.b) && p.b[p.i] == '}' && first {
			break
		}
		if !first {
			if p.i >= len(p.b) || p.b[p.i] != ',' {
				break
			}
			p.i++
			p.space()
		}
		if p.i >= len(p.b) || p.b[p.i] != '"' {
			return nil, p.fail("expected a key")
		}
		k, err := p.str()
		if err != nil {
			return nil, err
		}
		if err := expect(':'); err != nil {
			return nil, err
		}
		if string(k) != `"`+key+`"` {
			if _, err := p.value(1); err != nil {
				return nil, err
			}
			continue
		}
		found = true
		if refs, err = t.elements(p, expect); err != nil {
			return nil, err
		}
	}
	if err := expect('}'); err != nil {
		return nil, err
	}
	p.space()
	if p.i != len(p.b) {
		return nil, p.fail("data after the document")
	}
	if !found {
		return nil, fmt.Errorf("report: the document has no %q", key)
	}
	return refs, nil
}

// elements reads an array at p and returns the references of its elements.
func (t *table) elements(p *parser, expect func(byte) error) ([]int, error) {
	if err := expect('['); err != nil {
		return nil, err
	}
	refs := []int{}
	p.space()
	if p.i < len(p.b) && p.b[p.i] == ']' {
		p.i++
		return refs, nil
	}
	for {
		r, err := p.value(1)
		if err != nil {
			return nil, err
		}
		refs = append(refs, r)
		p.space()
		if p.i < len(p.b) && p.b[p.i] == ',' {
			p.i++
			continue
		}
		return refs, expect(']')
	}
}

// parser reads JSON as encoding/json and the output package write it.
type parser struct {
	t *table
	b []byte
	i int
}

func (p *parser) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) fail(what string) error {
	return fmt.Errorf("report: malformed JSON at byte %d: %s", p.i, what)
}

const maxDepth = 200

func (p *parser) value(depth int) (int, error) {
	if depth > maxDepth {
		return 0, p.fail("nested too deeply")
	}
	p.space()
	if p.i >= len(p.b) {
		return 0, p.fail("unexpected end")
	}
	switch c := p.b[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		s, err := p.str()
		if err != nil {
			return 0, err
		}
		return p.t.add(s), nil
	default:
		start := p.i
		for p.i < len(p.b) {
			c := p.b[p.i]
			if c == ',' || c == ']' || c == '}' || c == ' ' || c == '\n' || c == '\t' || c == '\r' {
				break
			}
			p.i++
		}
		lit := p.b[start:p.i]
		if len(lit) == 0 || !validLiteral(lit) {
			p.i = start
			return 0, p.fail("not a JSON value")
		}
		return p.t.add(lit), nil
	}
}

// validLiteral accepts true, false, null and JSON numbers.
func validLiteral(b []byte) bool {
	switch string(b) {
	case "true", "false", "null":
		return true
	}
	i := 0
	if b[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(b) && b[i] == '0' {
		i++
	} else if digits() == 0 {
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(b)
}

// str returns the string token at p.i, quotes included, unchanged.
func (p *parser) str() ([]byte, error) {
	start := p.i
	p.i++
	for p.i < len(p.b) {
		switch c := p.b[p.i]; {
		case c == '\\':
			p.i += 2
		case c == '"':
			p.i++
			return p.b[start:p.i], nil
		case c < 0x20:
			return nil, p.fail("control character in a string")
		default:
			p.i++
		}
	}
	p.i = start
	return nil, p.fail("unterminated string")
}

func (p *parser) array(depth int) (int, error) {
	p.i++
	var refs []int
	p.space()
	if p.i < len(p.b) && p.b[p.i] == ']' {
		p.i++
		return p.t.array(nil), nil
	}
	for {
		r, err := p.value(depth + 1)
		if err != nil {
			return 0, err
		}
		refs = append(refs, r)
		p.space()
		if p.i >= len(p.b) {
			return 0, p.fail("unterminated array")
		}
		switch p.b[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			return p.t.array(refs), nil
		default:
			return 0, p.fail("expected , or ]")
		}
	}
}

func (p *parser) object(depth int) (int, error) {
	p.i++
	var keys [][]byte
	var refs []int
	p.space()
	if p.i < len(p.b) && p.b[p.i] == '}' {
		p.i++
		return p.t.object(nil, nil), nil
	}
	for {
		p.space()
		if p.i >= len(p.b) || p.b[p.i] != '"' {
			return 0, p.fail("expected a key")
		}
		k, err := p.str()
		if err != nil {
			return 0, err
		}
		p.space()
		if p.i >= len(p.b) || p.b[p.i] != ':' {
			return 0, p.fail("expected :")
		}
		p.i++
		r, err := p.value(depth + 1)
		if err != nil {
			return 0, err
		}
		keys = append(keys, k)
		refs = append(refs, r)
		p.space()
		if p.i >= len(p.b) {
			return 0, p.fail("unterminated object")
		}
		switch p.b[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			return p.t.object(keys, refs), nil
		default:
			return 0, p.fail("expected , or }")
		}
	}
}

// encode writes nodes[from:to] as one JSON object: {"nodes": [...],
// "root": r}, with "shapes": [...] (all of them) first when withShapes.
// The page reads the blocks in order and appends their nodes.
func (t *table) encode(from, to, root int, withShapes bool) []byte {
	size := 64
	for _, n := range t.nodes[from:to] {
		size += len(n) + 1
	}
	if withShapes {
		for _, s := range t.shapes {
			size += len(s) + 1
		}
	}
	b := make([]byte, 0, size)
	b = append(b, '{')
	if withShapes {
		b = append(b, `"shapes":[`...)
		for i, s := range t.shapes {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, s...)
		}
		b = append(b, `],`...)
	}
	b = append(b, `"nodes":[`...)
	for i, n := range t.nodes[from:to] {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, n...)
	}
	b = append(b, `],"root":`...)
	b = strconv.AppendInt(b, int64(root), 10)
	return append(b, '}')
}
