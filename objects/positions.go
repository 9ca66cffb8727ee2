package objects

import (
	"iter"
	"slices"
	"strconv"
	"strings"
)

// Pos is where a value sits in its file. For a collection inside a mapping it
// is the position of its key, which is where a reader looks for it.
type Pos struct {
	Line, Column int
	// Raw is the source text of a scalar that YAML read as a number or a
	// boolean ("1.0" for an unquoted float), which messages quote as
	// written; "" for strings, maps and lists.
	Raw string
}

// Positions is where each part of a decoded document sits, by field path
// ("spec.modelFormat.version", "" for the document itself).
//
// A command that holds a cluster's objects holds their positions too (a
// team's rules over OME's decisions name the field of a finding), so they
// are packed: every path and raw text of a document in one string, and the
// entries, sorted by path, hold offsets into it and no pointer. A field
// costs its path's bytes and 24 more, and nothing for the collector to
// scan; a map of path strings cost about four times that.
type Positions struct {
	text    string
	entries []posEntry
}

// posEntry is one field: text[start:mid] is its path and text[mid:end]
// its raw text.
type posEntry struct {
	start, mid, end uint32
	line, column    int32
}

// Lookup is the position of the field at path, if it was recorded.
func (p Positions) Lookup(path string) (Pos, bool) {
	i, found := slices.BinarySearchFunc(p.entries, path, func(e posEntry, path string) int {
		return strings.Compare(p.text[e.start:e.mid], path)
	})
	if !found {
		return Pos{}, false
	}
	return p.pos(p.entries[i]), true
}

// At is the position of the field at path; the zero Pos when none was
// recorded.
func (p Positions) At(path string) Pos {
	pos, _ := p.Lookup(path)
	return pos
}

// Len is the number of fields recorded.
func (p Positions) Len() int { return len(p.entries) }

// All gives each recorded field's path and position, in the order of the
// paths.
func (p Positions) All() iter.Seq2[string, Pos] {
	return func(yield func(string, Pos) bool) {
		for _, e := range p.entries {
			if !yield(p.text[e.start:e.mid], p.pos(e)) {
				return
			}
		}
	}
}

func (p Positions) pos(e posEntry) Pos {
	return Pos{Line: int(e.line), Column: int(e.column), Raw: p.text[e.mid:e.end]}
}

// posBuilder gathers a document's positions as it is decoded, and packs
// them (done).
type posBuilder struct {
	text    []byte
	entries []posEntry
}

// add records the position of the field at path; a later add of the same
// path replaces it.
func (b *posBuilder) add(path string, pos Pos) {
	e := posEntry{start: uint32(len(b.text)), line: int32(pos.Line), column: int32(pos.Column)}
	b.text = append(b.text, path...)
	e.mid = uint32(len(b.text))
	b.text = append(b.text, pos.Raw...)
	e.end = uint32(len(b.text))
	b.entries = append(b.entries, e)
}

// dropLast takes back the field added last, if its path is path.
func (b *posBuilder) dropLast(path string) {
	if n := len(b.entries); n > 0 {
		if e := b.entries[n-1]; string(b.text[e.start:e.mid]) == path {
			b.entries = b.entries[:n-1]
			b.text = b.text[:e.start]
		}
	}
}

// done packs what was added: sorted by path, the later of two adds of a
// path kept, in memory of its exact size.
func (b *posBuilder) done() Positions {
	text := string(b.text)
	path := func(e posEntry) string { return text[e.start:e.mid] }
	slices.SortStableFunc(b.entries, func(x, y posEntry) int { return strings.Compare(path(x), path(y)) })
	entries := make([]posEntry, 0, len(b.entries))
	for i, e := range b.entries {
		if i+1 < len(b.entries) && path(b.entries[i+1]) == path(e) {
			continue
		}
		entries = append(entries, e)
	}
	return Positions{text: text, entries: slices.Clip(entries)}
}

// LineAt returns the line of path, or of its nearest recorded parent, or def.
func LineAt(pos Positions, path string, def int) int {
	for {
		if p, ok := pos.Lookup(path); ok && p.Line > 0 {
			return p.Line
		}
		if path == "" {
			return def
		}
		i := strings.LastIndexAny(path, ".[")
		if i < 0 {
			i = 0
		}
		path = path[:i]
	}
}

// SubPos returns the positions under prefix, re-rooted at it.
func SubPos(pos Positions, prefix string) Positions {
	var b posBuilder
	for p, v := range pos.All() {
		switch {
		case p == prefix:
			b.add("", v)
		case strings.HasPrefix(p, prefix+"."):
			b.add(p[len(prefix)+1:], v)
		case strings.HasPrefix(p, prefix+"["):
			b.add(p[len(prefix):], v)
		}
	}
	return b.done()
}

// SplitPos splits the positions under the list at path into the positions
// of each item, re-rooted at it, in one pass (a List or case file can be
// large).
func SplitPos(pos Positions, path string) map[int]Positions {
	items := map[int]*posBuilder{}
	pre := path + "["
	for p, v := range pos.All() {
		if !strings.HasPrefix(p, pre) {
			continue
		}
		rest := p[len(pre):]
		j := strings.IndexByte(rest, ']')
		if j < 0 {
			continue
		}
		i, err := strconv.Atoi(rest[:j])
		if err != nil {
			continue
		}
		rest = strings.TrimPrefix(rest[j+1:], ".")
		if items[i] == nil {
			items[i] = &posBuilder{}
		}
		items[i].add(rest, v)
	}
	out := make(map[int]Positions, len(items))
	for i, b := range items {
		out[i] = b.done()
	}
	return out
}
