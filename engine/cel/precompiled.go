package cel

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	celast "github.com/google/cel-go/common/ast"
	exprpb "google.golang.org/genproto/googleapis/api/expr/v1alpha1"
	"google.golang.org/protobuf/proto"

	"github.com/ome-policy/evaluator/policies/policyset"
)

// Precompiled CEL: parsing and checking the CEL policies is most of what a
// short run costs (one model against one runtime), so the binary carries
// its embedded policies already compiled, made by `make celcache` and kept
// current by TestPrecompiledCELIsCurrent: each document with its checked
// expressions, in the order compilePolicy compiles them (the variables,
// then each validation's expression and message expression), each in
// cel-go's own serialised form (the protobuf CheckedExpr of
// cel.AstToCheckedExpr, read back as cel.CheckedExprToAst does). Nothing
// here knows cel-go's AST: after a cel-go upgrade, TestPrecompiledCELIsCurrent
// says whether the protobuf form changed, and `make celcache` rewrites it.
//
// The file is text: a first line that names the format
// (precompiledMagic), a JSON index of the files and their documents, then
// one JSON line per document, decoded only when a command runs that
// document.
//
// A policy file whose text is exactly one the cache was made from (whatever
// file or folder it was read from) is not read as YAML at all: its
// documents come from the cache. In any other file, a document whose
// content is exactly one of the cache's takes its checked expressions from
// there; any other document is compiled from its text. A file that cannot
// be read costs time, never a verdict: every policy is then compiled from
// its text.

//go:embed precompiled.bin
var precompiledFile string

// precompiledMagic is the file's first line; change it when the layout
// changes, so that a file of the old layout is refused.
const precompiledMagic = "OMECEL3\n"

// precompiled is the embedded cache, read on first use (nil when it cannot
// be read).
var precompiled = sync.OnceValue(func() *precompiledCache {
	c, err := decodePrecompiled(precompiledFile)
	if err != nil {
		return nil
	}
	return c
})

// cacheIndex is the file's second line: each policy file by the hash of
// its text (fileKey) with its documents, and each document's name and key
// (policyKey), in the order of the lines that follow.
type cacheIndex struct {
	Files []indexFile `json:"files"`
	Docs  []indexDoc  `json:"docs"`
}

type indexFile struct {
	Key  string `json:"key"`
	Docs []int  `json:"docs"`
}

type indexDoc struct {
	Name string `json:"name"`
	Key  string `json:"key"`
}

// cacheBody is one document's line: its content, the lines of its parts
// in the file it was read from, and its checked expressions.
type cacheBody struct {
	Doc             policyDoc `json:"doc"`
	Line            int       `json:"line"`
	VariableLines   []int     `json:"variableLines"`
	ValidationLines []int     `json:"validationLines"`
	Exprs           [][]byte  `json:"exprs"`

	asts []*celast.AST // Exprs, read
}

// precompiledCache is a decoded file; each document's line stays encoded
// until it is asked for.
type precompiledCache struct {
	files map[string][]*cachedPolicy
	byKey map[string]*cachedPolicy
}

// cachedPolicy is one document of the cache.
type cachedPolicy struct {
	name, key string
	body      func() (*cacheBody, error)
}

// load decodes the document (once) and gives what it was compiled from,
// and its checked expressions.
func (c *cachedPolicy) load() (*compiledFrom, []*celast.AST, error) {
	b, err := c.body()
	if err != nil {
		return nil, nil, err
	}
	doc := b.Doc
	return &compiledFrom{doc: &doc, line: b.Line, lines: policyLines{variables: b.VariableLines, validations: b.ValidationLines}}, b.asts, nil
}

// fileDocs returns the documents of the file with this text, in its order,
// or nil (also on a nil cache).
func (c *precompiledCache) fileDocs(text string) []*cachedPolicy {
	if c == nil {
		return nil
	}
	return c.files[fileKey(text)]
}

// lookup returns the document with key, or nil (also on a nil cache).
func (c *precompiledCache) lookup(key string) *cachedPolicy {
	if c == nil {
		return nil
	}
	return c.byKey[key]
}

// docASTs returns the checked expressions of the document with key, or
// nil when there are none or they cannot be read.
func (c *precompiledCache) docASTs(key string) []*celast.AST {
	d := c.lookup(key)
	if d == nil {
		return nil
	}
	b, err := d.body()
	if err != nil {
		return nil
	}
	return b.asts
}

// fileKey identifies a policy file by its text.
func fileKey(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
}

// policyKey identifies a policy document by everything that goes into
// compiling it.
func policyKey(doc *policyDoc) (string, error) {
	b, err := json.Marshal(doc)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// decodePrecompiled reads the index of a file that Precompile wrote.
func decodePrecompiled(file string) (*precompiledCache, error) {
	rest, ok := strings.CutPrefix(file, precompiledMagic)
	if !ok {
		return nil, errors.New("precompiled CEL: not a file of this layout")
	}
	head, rest, ok := strings.Cut(rest, "\n")
	if !ok {
		return nil, errors.New("precompiled CEL: no index")
	}
	var idx cacheIndex
	if err := json.Unmarshal([]byte(head), &idx); err != nil {
		return nil, fmt.Errorf("precompiled CEL: %w", err)
	}
	c := &precompiledCache{files: map[string][]*cachedPolicy{}, byKey: map[string]*cachedPolicy{}}
	docs := make([]*cachedPolicy, len(idx.Docs))
	for i, d := range idx.Docs {
		line, after, ok := strings.Cut(rest, "\n")
		if !ok {
			return nil, fmt.Errorf("precompiled CEL: policy %s is missing", d.Name)
		}
		rest = after
		docs[i] = &cachedPolicy{name: d.Name, key: d.Key, body: sync.OnceValues(func() (*cacheBody, error) {
			return decodeBody(d.Name, line)
		})}
		if _, dup := c.byKey[d.Key]; !dup {
			c.byKey[d.Key] = docs[i]
		}
	}
	if rest != "" {
		return nil, errors.New("precompiled CEL: trailing bytes")
	}
	for _, f := range idx.Files {
		for _, d := range f.Docs {
			if d < 0 || d >= len(docs) {
				return nil, errors.New("precompiled CEL: a file names a document it does not have")
			}
			c.files[f.Key] = append(c.files[f.Key], docs[d])
		}
	}
	return c, nil
}

// decodeBody reads one document's line: its content, and its checked
// expressions from their protobuf form.
func decodeBody(name, line string) (*cacheBody, error) {
	var b cacheBody
	if err := json.Unmarshal([]byte(line), &b); err != nil {
		return nil, fmt.Errorf("precompiled CEL: policy %s: %w", name, err)
	}
	b.asts = make([]*celast.AST, len(b.Exprs))
	for i, e := range b.Exprs {
		var pb exprpb.CheckedExpr
		if err := proto.Unmarshal(e, &pb); err != nil {
			return nil, fmt.Errorf("precompiled CEL: policy %s: %w", name, err)
		}
		a, err := celast.ToAST(&pb)
		if err != nil {
			return nil, fmt.Errorf("precompiled CEL: policy %s: %w", name, err)
		}
		b.asts[i] = a
	}
	b.Exprs = nil
	return &b, nil
}

// Precompile compiles every CEL policy of set from its text, in every OME
// release it states (set is the newest release's), and returns the file
// that precompiled.bin holds for them: each file's text of each release
// once. The output depends only on the policies, so it can be compared
// with the committed file.
func Precompile(set *policyset.Set) ([]byte, error) {
	var idx cacheIndex
	var bodies bytes.Buffer
	seen := map[string]bool{}
	for _, release := range set.Releases() {
		rs, err := set.ForRelease(release)
		if err != nil {
			return nil, err
		}
		all, err := compileWith(nil, rs)
		if err != nil {
			return nil, err
		}
		for _, f := range rs.Sources(policyset.CEL, false) {
			text, err := f.Source()
			if err != nil {
				return nil, err
			}
			if seen[text] {
				continue
			}
			seen[text] = true
			var ps []*policy
			for _, p := range all.byName {
				if p.source == rs.Where(f) {
					ps = append(ps, p)
				}
			}
			slices.SortFunc(ps, func(a, b *policy) int { return a.from.line - b.from.line })
			var docs []int
			for _, p := range ps {
				line, err := encodeBody(p)
				if err != nil {
					return nil, fmt.Errorf("precompiling the CEL policies: policy %s: %w", p.name, err)
				}
				bodies.Write(line)
				bodies.WriteByte('\n')
				docs = append(docs, len(idx.Docs))
				idx.Docs = append(idx.Docs, indexDoc{Name: p.name, Key: p.key})
			}
			idx.Files = append(idx.Files, indexFile{Key: fileKey(text), Docs: docs})
		}
	}
	head, err := json.Marshal(&idx)
	if err != nil {
		return nil, err
	}
	out := append([]byte(precompiledMagic), head...)
	out = append(out, '\n')
	return append(out, bodies.Bytes()...), nil
}

// encodeBody is a compiled policy's line in the file.
func encodeBody(p *policy) ([]byte, error) {
	b := cacheBody{Doc: *p.from.doc, Line: p.from.line, VariableLines: p.from.lines.variables, ValidationLines: p.from.lines.validations}
	opts := proto.MarshalOptions{Deterministic: true}
	for _, a := range p.checked {
		pb, err := celast.ToProto(a)
		if err != nil {
			return nil, err
		}
		e, err := opts.Marshal(pb)
		if err != nil {
			return nil, err
		}
		b.Exprs = append(b.Exprs, e)
	}
	return json.Marshal(&b)
}
