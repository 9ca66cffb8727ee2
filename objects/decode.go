package objects

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	yaml2 "go.yaml.in/yaml/v2"
	"gopkg.in/yaml.v3"
)

// Bounds on input, so that no file can make the tool run out of memory or stack.
const (
	MaxInputBytes = 64 << 20  // bytes per file
	maxDocNodes   = 1_000_000 // nodes per document, counting every alias expansion
	maxNesting    = 100       // nested maps and lists
	// MaxDocBytes bounds the text of a document's scalars, counting every
	// alias expansion: what a file without aliases can hold at most. A
	// long string that many aliases repeat stays under maxDocNodes, yet
	// costs each reader of the document (Rego, a rule) its whole length
	// every time.
	MaxDocBytes = MaxInputBytes
)

func TooLargeError(name string) error {
	return &InputError{File: name, Msg: fmt.Sprintf("file is larger than %d MiB", MaxInputBytes>>20)}
}

var yamlErrLine = regexp.MustCompile(`(?s)^yaml: line (\d+): (.*)$`)

// isParserError reports whether a yaml.v3 message comes from its parser
// rather than its scanner: yaml.v3 gives the parser's lines counted from 0
// (and the scanner's from 1), so those need one added.
func isParserError(msg string) bool {
	for _, p := range []string{"did not find expected", "found undefined tag handle", "found duplicate %", "found incompatible YAML document"} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

// syntaxError is the InputError of a YAML syntax error of data: on the
// line where YAML's parser met the problem, and with the line where what
// it was reading starts when that is another.
//
// gopkg.in/yaml.v3 gives the line where what it was reading starts (a
// list, a quoted string...), or else the line of the problem; yaml.v2
// (linked in for client-go, and kubectl's parser) gives the line of the
// problem. Both count a parser's lines from 0 and a scanner's from 1.
// offset is the line of the file data starts after.
func syntaxError(file string, data []byte, err error, offset int) *InputError {
	ie := &InputError{File: file, Msg: strings.TrimPrefix(err.Error(), "yaml: ")}
	m := yamlErrLine.FindStringSubmatch(err.Error())
	if m == nil {
		return ie
	}
	ie.Line, _ = strconv.Atoi(m[1])
	ie.Msg = m[2]
	if isParserError(ie.Msg) {
		ie.Line++
	}
	if at := problemLine(data, ie.Msg); at > 0 && at != ie.Line {
		ie.Msg += fmt.Sprintf(" (while reading from line %d)", ie.Line+offset)
		ie.Line = at
	}
	ie.Line += offset
	return ie
}

// problemLine is the line where yaml.v2 meets the problem msg in data, or
// 0 when it meets another problem or none. It only parses: the documents
// are decoded into an empty struct, so no alias is expanded.
func problemLine(data []byte, msg string) int {
	dec := yaml2.NewDecoder(bytes.NewReader(data))
	for {
		var v struct{}
		err := dec.Decode(&v)
		var te *yaml2.TypeError
		switch {
		case err == nil || errors.As(err, &te):
			continue
		case err == io.EOF:
			return 0
		}
		m := yamlErrLine.FindStringSubmatch(err.Error())
		if m == nil || m[2] != msg {
			return 0
		}
		line, _ := strconv.Atoi(m[1])
		if isParserError(msg) {
			line++
		}
		return line
	}
}

// ErrStopDocuments ends EachDocumentAt early without an error.
var ErrStopDocuments = errors.New("stop")

// EachDocument calls fn for each YAML document of data in order, stopping at
// the first error.
func EachDocument(file string, data []byte, fn func(*yaml.Node) error) error {
	return EachDocumentAt(file, data, 0, fn)
}

// EachDocumentAt is EachDocument of data that starts after line offset of
// its file, which the lines of a syntax error count in.
func EachDocumentAt(file string, data []byte, offset int, fn func(*yaml.Node) error) error {
	if bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data) {
		return &InputError{File: file, Msg: "not a YAML or JSON file (binary data)"}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		doc := new(yaml.Node)
		err := dec.Decode(doc)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return syntaxError(file, data, err, offset)
		}
		if err := fn(doc); err != nil {
			if err == ErrStopDocuments {
				return nil
			}
			return err
		}
	}
}

// DecodeValue turns one YAML node into a normalised value and the positions
// of its parts, keyed by field path under prefix ("" for a root):
// int64, float64, bool, string, []any, map[string]any, or nil for null.
// Mapping keys must be strings; null values are dropped from mappings (a
// field set to null is unset), except inside diffusionPipeline.additionalComponents,
// where a component given as null is present but empty. Merge keys are
// applied and aliases expanded, within the node and depth bounds.
func DecodeValue(file string, n *yaml.Node, prefix string) (any, Positions, error) {
	if n == nil {
		return nil, Positions{}, nil
	}
	if n.Kind == yaml.DocumentNode {
		if len(n.Content) == 0 {
			return nil, Positions{}, nil
		}
		n = n.Content[0]
	}
	// Measure first: an alias bomb is refused before anything is built, and
	// the decoding below may then recurse without limits of its own.
	m := &nodeMeasurer{file: file}
	if _, _, alias, err := m.tree(n, 0); err != nil {
		return nil, Positions{}, err
	} else if alias {
		m.seen = map[*yaml.Node]nodeMeasure{}
		if _, err := m.walk(n, 0); err != nil {
			return nil, Positions{}, err
		}
	}
	d := &yamlDecoder{file: file}
	v, err := d.decode(n, prefix, nil)
	if err != nil {
		return nil, Positions{}, err
	}
	return v, d.pos.done(), nil
}

type nodeMeasure struct {
	size, height int
	bytes        int // the text of the scalars under the node
	done         bool
}

// nodeMeasurer counts the nodes a document expands to and how deep it nests,
// remembering each node's result so that aliases cost nothing to nodeMeasure.
type nodeMeasurer struct {
	file string
	seen map[*yaml.Node]nodeMeasure
}

func (m *nodeMeasurer) walk(n *yaml.Node, depth int) (nodeMeasure, error) {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		r, err := m.walk(n.Alias, depth)
		r.size++
		return r, err
	}
	if r, ok := m.seen[n]; ok {
		// A node still being measured is its own ancestor: an alias cycle,
		// which would nest without end.
		if !r.done || depth+r.height > maxNesting {
			return nodeMeasure{}, m.tooDeep(n)
		}
		return r, nil
	}
	nested := 0
	if n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode {
		nested = 1
		if depth+1 > maxNesting {
			return nodeMeasure{}, m.tooDeep(n)
		}
	}
	m.seen[n] = nodeMeasure{}
	r := nodeMeasure{size: 1, done: true}
	if n.Kind == yaml.ScalarNode {
		r.bytes = len(n.Value)
	}
	for _, c := range n.Content {
		cr, err := m.walk(c, depth+nested)
		if err != nil {
			return nodeMeasure{}, err
		}
		r.size += cr.size
		r.bytes += cr.bytes
		if r.size > maxDocNodes {
			return nodeMeasure{}, &InputError{File: m.file, Line: n.Line,
				Msg: fmt.Sprintf("document expands to more than %d nodes (YAML alias bomb?)", maxDocNodes)}
		}
		if r.bytes > MaxDocBytes {
			return nodeMeasure{}, &InputError{File: m.file, Line: n.Line,
				Msg: fmt.Sprintf("document expands to more than %d MiB of text, its aliases repeating what they name (YAML alias bomb?)", MaxDocBytes>>20)}
		}
		r.height = max(r.height, cr.height)
	}
	r.height += nested
	m.seen[n] = r
	return r, nil
}

// tree measures n as walk does while it finds no alias, without
// remembering nodes: without aliases a document is a tree, each node met
// once, so walk would find the same sizes and the same first error. It
// stops at the first alias (alias true), for walk to measure the document
// again.
func (m *nodeMeasurer) tree(n *yaml.Node, depth int) (size, height int, alias bool, err error) {
	if n.Kind == yaml.AliasNode {
		return 0, 0, true, nil
	}
	nested := 0
	if n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode {
		nested = 1
		if depth+1 > maxNesting {
			return 0, 0, false, m.tooDeep(n)
		}
	}
	size = 1
	for _, c := range n.Content {
		s, h, alias, err := m.tree(c, depth+nested)
		if err != nil || alias {
			return 0, 0, alias, err
		}
		size += s
		if size > maxDocNodes {
			return 0, 0, false, &InputError{File: m.file, Line: n.Line,
				Msg: fmt.Sprintf("document expands to more than %d nodes (YAML alias bomb?)", maxDocNodes)}
		}
		height = max(height, h)
	}
	return size, height + nested, false, nil
}

func (m *nodeMeasurer) tooDeep(n *yaml.Node) error {
	return &InputError{File: m.file, Line: n.Line, Msg: fmt.Sprintf("nesting deeper than %d levels", maxNesting)}
}

type yamlDecoder struct {
	file string
	pos  posBuilder
}

func (d *yamlDecoder) fail(n *yaml.Node, path, msg string) error {
	return &InputError{File: d.file, Line: n.Line, Field: path, Msg: msg}
}

// decode converts n, recording positions under path; key is n's key when n
// is a mapping value.
func (d *yamlDecoder) decode(n *yaml.Node, path string, key *yaml.Node) (any, error) {
	if n.Kind == yaml.AliasNode {
		if n.Alias == nil {
			return nil, d.fail(n, path, "unknown alias *"+n.Value)
		}
		n = n.Alias
	}
	p := Pos{Line: n.Line, Column: n.Column}
	if key != nil && n.Kind != yaml.ScalarNode {
		p.Line, p.Column = key.Line, key.Column
	}
	switch n.Kind {
	case yaml.ScalarNode:
		v, err := scalarValue(n)
		if err != nil {
			return nil, d.fail(n, path, err.Error())
		}
		if _, isString := v.(string); !isString && v != nil {
			p.Raw = n.Value
		}
		d.pos.add(path, p)
		return v, nil
	case yaml.SequenceNode:
		d.pos.add(path, p)
		out := make([]any, 0, len(n.Content))
		for i, c := range n.Content {
			v, err := d.decode(c, IndexPath(path, i), nil)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.MappingNode:
		d.pos.add(path, p)
		return d.mapping(n, path)
	}
	return nil, d.fail(n, path, "unexpected YAML node")
}

func (d *yamlDecoder) mapping(n *yaml.Node, path string) (map[string]any, error) {
	out := make(map[string]any, len(n.Content)/2)
	return out, d.fill(out, nil, n, path)
}

// fill adds the pairs of mapping n to out, skipping keys already taken, then
// its merge sources (<<) in order: so explicit keys win over merged ones, and
// earlier merge sources over later ones, as YAML's merge key specifies.
// taken is nil for the mapping itself (none is taken before its own keys,
// which are told apart as duplicates), and for its merge sources the keys
// met before.
func (d *yamlDecoder) fill(out map[string]any, taken map[string]bool, n *yaml.Node, path string) error {
	// In OME an additional component given as null is still "set".
	components := path == "diffusionPipeline.additionalComponents" ||
		strings.HasSuffix(path, ".diffusionPipeline.additionalComponents")
	lines := newKeyLines(len(n.Content) / 2) // to report duplicates
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.AliasNode && k.Alias != nil {
			k = k.Alias
		}
		if k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
			merges = append(merges, v)
			continue
		}
		name, err := d.key(k, path)
		if err != nil {
			return err
		}
		cp := JoinPath(path, name)
		if line, dup := lines.find(name); dup {
			return d.fail(k, cp, fmt.Sprintf("duplicate key (first at line %d)", line))
		}
		lines.add(name, k.Line)
		if taken != nil {
			if taken[name] {
				continue
			}
			taken[name] = true
		}
		val, err := d.decode(v, cp, k)
		if err != nil {
			return err
		}
		if val == nil {
			if !components {
				d.pos.dropLast(cp)
				continue
			}
			val = map[string]any{}
		}
		out[name] = val
	}
	if len(merges) > 0 && taken == nil {
		taken = make(map[string]bool, len(lines.keys))
		for _, k := range lines.keys {
			taken[k.name] = true
		}
	}
	for _, m := range merges {
		if m.Kind == yaml.AliasNode && m.Alias != nil {
			m = m.Alias
		}
		sources := []*yaml.Node{m}
		if m.Kind == yaml.SequenceNode {
			sources = m.Content
		}
		for _, s := range sources {
			if s.Kind == yaml.AliasNode && s.Alias != nil {
				s = s.Alias
			}
			if s.Kind != yaml.MappingNode {
				return d.fail(s, path, "a merge key (<<) needs an object or a list of objects")
			}
			if err := d.fill(out, taken, s, path); err != nil {
				return err
			}
		}
	}
	return nil
}

// keyLines are the keys of a mapping met so far, each with its line. A
// mapping of an object has a few keys, which a scan finds sooner than a map
// that would be made for each; past manyKeys, they are also in a map.
type keyLines struct {
	keys   []keyLine
	byName map[string]int // index in keys, once there are manyKeys
}

type keyLine struct {
	name string
	line int
}

const manyKeys = 16

func newKeyLines(pairs int) keyLines {
	return keyLines{keys: make([]keyLine, 0, min(pairs, manyKeys))}
}

func (kl *keyLines) find(name string) (int, bool) {
	if kl.byName != nil {
		i, ok := kl.byName[name]
		if !ok {
			return 0, false
		}
		return kl.keys[i].line, true
	}
	for _, k := range kl.keys {
		if k.name == name {
			return k.line, true
		}
	}
	return 0, false
}

func (kl *keyLines) add(name string, line int) {
	kl.keys = append(kl.keys, keyLine{name, line})
	switch {
	case kl.byName != nil:
		kl.byName[name] = len(kl.keys) - 1
	case len(kl.keys) == manyKeys:
		kl.byName = make(map[string]int, 2*manyKeys)
		for i, k := range kl.keys {
			kl.byName[k.name] = i
		}
	}
}

func (d *yamlDecoder) key(k *yaml.Node, path string) (string, error) {
	if k.Kind != yaml.ScalarNode {
		return "", d.fail(k, path, "mapping keys must be strings, got "+map[yaml.Kind]string{
			yaml.MappingNode: "an object", yaml.SequenceNode: "a list"}[k.Kind])
	}
	v, err := scalarValue(k)
	if err != nil {
		return "", d.fail(k, path, err.Error())
	}
	s, ok := v.(string)
	if !ok {
		return "", d.fail(k, path, fmt.Sprintf("mapping keys must be strings, got %s; quote it: %s",
			DescribeValue(v, k.Value), strconv.Quote(k.Value)))
	}
	return s, nil
}

// scalar converts a scalar node: null, bool, int (int64; float64 past the
// int64 range), float; everything else, timestamps included, stays its text.
func scalarValue(n *yaml.Node) (any, error) {
	switch tag := n.ShortTag(); tag {
	case "!!null":
		return nil, nil
	case "!!bool", "!!int", "!!float":
		if v, ok := plainScalar(tag, n.Value); ok {
			return v, nil
		}
		return decodedScalar(n)
	}
	return n.Value, nil
}

// plainScalar reads the usual forms of a bool and an int directly: true,
// false, and a decimal int of up to 18 digits, maybe after "-", without a
// "+", a leading zero or "_". They come
// out as decodedScalar makes them (TestPlainScalarIsDecoded), without a
// yaml.v3 decoder per scalar, which took a sixth of the time a catalog
// took to load. ok is false for any other text.
func plainScalar(tag, text string) (any, bool) {
	switch tag {
	case "!!bool":
		switch text {
		case "true":
			return true, true
		case "false":
			return false, true
		}
	case "!!int":
		digits := strings.TrimPrefix(text, "-")
		if digits == "" || len(digits) > 18 || (digits[0] == '0' && len(digits) > 1) {
			return nil, false
		}
		for i := 0; i < len(digits); i++ {
			if digits[i] < '0' || digits[i] > '9' {
				return nil, false
			}
		}
		v, err := strconv.ParseInt(text, 10, 64)
		return v, err == nil
	}
	return nil, false
}

// decodedScalar converts a bool, int or float scalar with yaml.v3's decoder.
func decodedScalar(n *yaml.Node) (any, error) {
	var v any
	if err := n.Decode(&v); err != nil {
		return nil, errors.New(strings.TrimPrefix(err.Error(), "yaml: "))
	}
	switch x := v.(type) {
	case int:
		return int64(x), nil
	case int64:
		return x, nil
	case uint64:
		return float64(x), nil
	case float64, bool:
		return x, nil
	}
	return nil, fmt.Errorf("cannot read %s %q", n.ShortTag(), n.Value)
}
