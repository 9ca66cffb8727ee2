// Package checkedast stores CEL policy documents with their checked
// expressions (cel-go's native checked AST) in a compact file of its own,
// and reads them back.
//
// Why it exists: parsing and checking the CEL policies is most of what a
// short run of evaluate costs (one model against one runtime), so the
// engine (engine/cel) embeds its policies already checked, in
// engine/cel/precompiled.bin, and a process plans the programs it runs
// from there without parsing or checking a line. The file is this
// package's own encoding, not protobuf or gob: a table of strings, a table
// of types, an index of files and documents, then each document's body,
// which is decoded only when a command runs that document. It knows
// nothing of how the policies are compiled or evaluated: engine/cel gives
// it the documents (Encode) and asks it for them (Decode, Cache).
//
// The expressions it stores are those cel-go gives back from the protobuf
// form of the checked expressions (celast.ToProto, then celast.ToAST), the
// form they were once stored in, so that a program planned from the file
// is the one planned from that form.
//
// What a cel-go upgrade must check: the encoder writes every expression
// kind, type kind, literal value and source-information part (offsets,
// macro calls, extensions) that cel-go v0.31 has, and refuses one it does
// not know, so `make celcache` fails on a new kind; a new field of a kind
// it knows would be dropped without a word. After an upgrade, read
// cel-go's common/ast (Expr and its kinds, SourceInfo, ReferenceInfo) and
// common/types (Kind) against encode.go, run `make celcache`, and run
// engine/cel's tests: TestPrecompiledCELIsUsed holds every stored
// expression to the freshly checked one, compared in protobuf form, and
// TestPrecompiledCELIsCurrent holds precompiled.bin to the policies. When
// the layout changes, change Magic, so that a file of the old layout is
// refused rather than misread (a refused file costs time, never a
// verdict: every policy is then compiled from its text).
package checkedast

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	celast "github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/types"
)

// Doc is one CEL policy document as the file holds it: its content, the
// lines of its parts in the file it was read from, and its checked
// expressions in the order the engine compiles them (the variables, then
// each validation's expression and message expression).
type Doc struct {
	// Key identifies the document by everything that goes into compiling
	// it (the engine's choice); Name is its metadata.name.
	Key, Name string

	APIVersion, Kind string
	Evaluation       string
	Inputs           []string
	Line             int // the document's first line
	Variables        []Variable
	Validations      []Validation

	ASTs []*celast.AST
}

// Variable is one of a document's spec.variables, with its line.
type Variable struct {
	Name, Expression string
	Line             int
}

// Validation is one of a document's spec.validations, with its line.
type Validation struct {
	Name, Expression, Message, MessageExpression string
	Line                                         int
}

// File is one policy file: its text, by which it is found again (TextKey),
// and its documents in the order of the file.
type File struct {
	Text string
	Docs []*Doc
}

// Magic starts the file; a file without it is not read.
const Magic = "OMECEL2\n"

// TextKey identifies a policy file by its text.
func TextKey(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
}

// Encode writes the files' documents. The output depends only on what it
// is given, in that order, so it can be compared with a committed file.
func Encode(files []File) ([]byte, error) {
	e := newEncoder()
	type file struct {
		key  string
		docs []int
	}
	index := make([]file, 0, len(files))
	var bodies [][]byte
	var names, keys []string
	for _, f := range files {
		fl := file{key: TextKey(f.Text)}
		for _, d := range f.Docs {
			body, err := e.doc(d)
			if err != nil {
				return nil, fmt.Errorf("policy %s: %w", d.Name, err)
			}
			fl.docs = append(fl.docs, len(bodies))
			bodies = append(bodies, body)
			names = append(names, d.Name)
			keys = append(keys, d.Key)
		}
		index = append(index, fl)
	}
	slices.SortFunc(index, func(a, b file) int { return strings.Compare(a.key, b.key) })
	// The index refers to its strings through the same table.
	var idx []byte
	idx = binary.AppendUvarint(idx, uint64(len(index)))
	for _, f := range index {
		idx = e.str(idx, f.key)
		idx = binary.AppendUvarint(idx, uint64(len(f.docs)))
		for _, d := range f.docs {
			idx = binary.AppendUvarint(idx, uint64(d))
		}
	}
	idx = binary.AppendUvarint(idx, uint64(len(bodies)))
	for i, b := range bodies {
		idx = e.str(idx, names[i])
		idx = e.str(idx, keys[i])
		idx = binary.AppendUvarint(idx, uint64(len(b)))
	}
	out := []byte(Magic)
	out = binary.AppendUvarint(out, uint64(len(e.strList)))
	for _, s := range e.strList {
		out = binary.AppendUvarint(out, uint64(len(s)))
		out = append(out, s...)
	}
	out = binary.AppendUvarint(out, uint64(len(e.typeList)))
	for _, t := range e.typeList {
		out = append(out, t...)
	}
	out = append(out, idx...)
	for _, b := range bodies {
		out = append(out, b...)
	}
	return out, nil
}

// Cache is a decoded file: its strings and types, and its index; the
// documents' bodies stay encoded until they are asked for.
type Cache struct {
	strs  []string
	types []*types.Type
	files map[string][]int // TextKey of a file -> its documents
	docs  []Cached
	byKey map[string]int // Doc.Key -> document
}

// Cached is one document of a Cache, found by its file or its key, whose
// body is decoded on first use.
type Cached struct {
	Name, Key string
	body      func() (*Doc, error)
}

// Doc decodes the document's body (once: later calls give the same Doc).
func (c *Cached) Doc() (*Doc, error) { return c.body() }

// FileDocs returns the documents of the file with this text, in its order,
// or nil (also on a nil Cache).
func (c *Cache) FileDocs(text string) []*Cached {
	if c == nil {
		return nil
	}
	idx, ok := c.files[TextKey(text)]
	if !ok {
		return nil
	}
	out := make([]*Cached, len(idx))
	for i, d := range idx {
		out[i] = &c.docs[d]
	}
	return out
}

// Lookup returns the document with key, or nil (also on a nil Cache).
func (c *Cache) Lookup(key string) *Cached {
	if c == nil {
		return nil
	}
	i, ok := c.byKey[key]
	if !ok {
		return nil
	}
	return &c.docs[i]
}

// DocASTs returns the checked expressions of the document with key, or nil
// when there are none or they fail to decode.
func (c *Cache) DocASTs(key string) []*celast.AST {
	cd := c.Lookup(key)
	if cd == nil {
		return nil
	}
	d, err := cd.Doc()
	if err != nil {
		return nil
	}
	return d.ASTs
}
