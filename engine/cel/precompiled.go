package cel

import (
	"crypto/sha256"
	_ "embed"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	celast "github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	exprpb "google.golang.org/genproto/googleapis/api/expr/v1alpha1"

	"github.com/ome-policy/evaluator/engine/policyset"
)

// Precompiled CEL: parsing and checking the CEL policies is most of what a
// short run costs (one model against one runtime), so the binary carries
// its embedded policies already compiled, made by `make celcache` and kept
// current by TestPrecompiledCELIsCurrent: each document with its checked
// expressions, in the order compilePolicy compiles them (the variables,
// then each validation's expression and message expression).
//
// A policy file whose text is exactly one the cache was made from (whatever
// file or folder it was read from) is not read as YAML at all: its
// documents come from the cache, and only those a command runs are decoded.
// In any other file, a document whose content is exactly one of the cache's
// takes its checked expressions from there; any other document is compiled
// from its text.
//
// The file is this package's own compact encoding of cel-go's native
// checked AST (no protobuf, no gob): a table of strings, a table of types,
// an index of files and documents, then each document's body, decoded on
// first use. The expressions are those cel-go gives back from the protobuf
// form of the checked expressions (the form they used to be stored in), so
// a program planned from the cache is the one planned from that form.

//go:embed precompiled.bin
var precompiledFile string

// precompiledMagic starts the file; a file without it is not used.
const precompiledMagic = "OMECEL1\n"

// precompiledCache is the index of the file: strings and types decoded,
// documents' bodies kept encoded until they are needed.
type precompiledCache struct {
	strs  []string
	types []*types.Type
	files map[string][]int // sha256 of a file's text -> its documents
	docs  []cachedDoc
	byKey map[string]int // policyKey -> document
}

// cachedDoc is one document of the cache: its name and key, and its body,
// decoded by body().
type cachedDoc struct {
	name, key string
	body      func() (*precompiledDoc, error)
}

// precompiledDoc is one policy document as the cache holds it: its content
// and the lines of its parts in the file it was made from, and its checked
// expressions in compile order.
type precompiledDoc struct {
	doc   policyDoc
	lines policyLines
	line  int // the document's first line
	key   string
	asts  []*celast.AST
}

// precompiled is the embedded cache, read on first use (nil when it cannot
// be read: every policy is then compiled from its text).
var precompiled = sync.OnceValue(func() *precompiledCache {
	c, err := readPrecompiled(precompiledFile)
	if err != nil {
		return nil
	}
	return c
})

// fileDocs returns the cached documents of a file with this text, or nil.
func (c *precompiledCache) fileDocs(text string) []*cachedDoc {
	if c == nil {
		return nil
	}
	idx, ok := c.files[textKey(text)]
	if !ok {
		return nil
	}
	out := make([]*cachedDoc, len(idx))
	for i, d := range idx {
		out[i] = &c.docs[d]
	}
	return out
}

// docASTs returns the checked expressions of the document with key, or nil
// when there are none or they fail to load.
func (c *precompiledCache) docASTs(key string) []*celast.AST {
	if c == nil {
		return nil
	}
	i, ok := c.byKey[key]
	if !ok {
		return nil
	}
	d, err := c.docs[i].body()
	if err != nil {
		return nil
	}
	return d.asts
}

// textKey identifies a policy file by its text.
func textKey(text string) string {
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

// Precompile compiles every CEL policy of set from its text and returns the
// file that precompiled.bin holds for them. The output depends only on
// the policies, so it can be compared with the committed file.
func Precompile(set *policyset.Set) ([]byte, error) {
	e := newEncoder()
	type file struct {
		key  string
		docs []int
	}
	var files []file
	var bodies [][]byte
	var names, keys []string
	all, err := compileWith(nil, set)
	if err != nil {
		return nil, err
	}
	for _, f := range set.Sources(policyset.CEL, false) {
		var ps []*policy
		for _, p := range all.byName {
			if p.source == set.Where(f) {
				ps = append(ps, p)
			}
		}
		slices.SortFunc(ps, func(a, b *policy) int { return a.from.line - b.from.line })
		fl := file{key: textKey(f.Text)}
		for _, p := range ps {
			var asts []*celast.AST
			for _, a := range p.checked {
				// The form the expressions had when stored as protobuf.
				ce, err := celast.ToProto(a)
				if err != nil {
					return nil, fmt.Errorf("%s: policy %s: %w", p.source, p.name, err)
				}
				rt, err := celast.ToAST(ce)
				if err != nil {
					return nil, fmt.Errorf("%s: policy %s: %w", p.source, p.name, err)
				}
				asts = append(asts, rt)
			}
			body, err := e.doc(p.from, asts)
			if err != nil {
				return nil, fmt.Errorf("%s: policy %s: %w", p.source, p.name, err)
			}
			fl.docs = append(fl.docs, len(bodies))
			bodies = append(bodies, body)
			names = append(names, p.name)
			keys = append(keys, p.key)
		}
		files = append(files, fl)
	}
	slices.SortFunc(files, func(a, b file) int { return strings.Compare(a.key, b.key) })
	// The index refers to its strings through the same table.
	var index []byte
	index = binary.AppendUvarint(index, uint64(len(files)))
	for _, f := range files {
		index = e.str(index, f.key)
		index = binary.AppendUvarint(index, uint64(len(f.docs)))
		for _, d := range f.docs {
			index = binary.AppendUvarint(index, uint64(d))
		}
	}
	index = binary.AppendUvarint(index, uint64(len(bodies)))
	for i, b := range bodies {
		index = e.str(index, names[i])
		index = e.str(index, keys[i])
		index = binary.AppendUvarint(index, uint64(len(b)))
	}
	out := []byte(precompiledMagic)
	out = binary.AppendUvarint(out, uint64(len(e.strList)))
	for _, s := range e.strList {
		out = binary.AppendUvarint(out, uint64(len(s)))
		out = append(out, s...)
	}
	out = binary.AppendUvarint(out, uint64(len(e.typeList)))
	for _, t := range e.typeList {
		out = append(out, t...)
	}
	out = append(out, index...)
	for _, b := range bodies {
		out = append(out, b...)
	}
	return out, nil
}

// The tags of types in the file.
const (
	tDyn byte = iota
	tAny
	tBool
	tBytes
	tDouble
	tInt
	tString
	tUint
	tWrapBool
	tWrapBytes
	tWrapDouble
	tWrapInt
	tWrapString
	tWrapUint
	tDuration
	tTimestamp
	tError
	tNull
	tList
	tMap
	tOpaque
	tStruct
	tTypeParam
	tType
	tTypeOf
)

// The tags of expressions and values in the file.
const (
	eUnspecified byte = iota
	eCall
	eMemberCall
	eComprehension
	eIdent
	eLiteral
	eList
	eMap
	eSelect
	ePresence
	eStruct
)

const (
	vNil byte = iota
	vFalse
	vTrue
	vBytes
	vDouble
	vInt
	vNull
	vString
	vUint
)

var primitiveTags = []struct {
	kind          types.Kind
	plain, nulled byte
	t             *types.Type
}{
	{types.BoolKind, tBool, tWrapBool, types.BoolType},
	{types.BytesKind, tBytes, tWrapBytes, types.BytesType},
	{types.DoubleKind, tDouble, tWrapDouble, types.DoubleType},
	{types.IntKind, tInt, tWrapInt, types.IntType},
	{types.StringKind, tString, tWrapString, types.StringType},
	{types.UintKind, tUint, tWrapUint, types.UintType},
}

// encoder writes documents; strings and types go to tables shared by the
// whole file.
type encoder struct {
	strIndex  map[string]int
	strList   []string
	typeIndex map[string]int
	typeList  [][]byte
}

func newEncoder() *encoder {
	return &encoder{strIndex: map[string]int{}, typeIndex: map[string]int{}}
}

func (e *encoder) str(b []byte, s string) []byte {
	i, ok := e.strIndex[s]
	if !ok {
		i = len(e.strList)
		e.strIndex[s] = i
		e.strList = append(e.strList, s)
	}
	return binary.AppendUvarint(b, uint64(i))
}

func appendInt(b []byte, n int64) []byte { return binary.AppendVarint(b, n) }

func appendLen(b []byte, n int) []byte { return binary.AppendUvarint(b, uint64(n)) }

// typ returns the index of t in the type table, adding it (after its
// parameters) when it is new. Types are written as cel-go reads them from
// their protobuf form.
func (e *encoder) typ(t *types.Type) (int, error) {
	var b []byte
	params := func(want int) error {
		ps := t.Parameters()
		if want >= 0 && len(ps) != want {
			return fmt.Errorf("type %v: %d parameters, want %d", t, len(ps), want)
		}
		if want < 0 {
			b = appendLen(b, len(ps))
		}
		for _, p := range ps {
			i, err := e.typ(p)
			if err != nil {
				return err
			}
			b = appendLen(b, i)
		}
		return nil
	}
	var err error
	switch k := t.Kind(); k {
	case types.DynKind:
		b = append(b, tDyn)
	case types.AnyKind:
		b = append(b, tAny)
	case types.DurationKind:
		b = append(b, tDuration)
	case types.TimestampKind:
		b = append(b, tTimestamp)
	case types.ErrorKind:
		b = append(b, tError)
	case types.NullTypeKind:
		b = append(b, tNull)
	case types.ListKind:
		b = append(b, tList)
		err = params(1)
	case types.MapKind:
		b = append(b, tMap)
		err = params(2)
	case types.OpaqueKind:
		b = append(b, tOpaque)
		b = e.str(b, t.TypeName())
		err = params(-1)
	case types.StructKind:
		b = append(b, tStruct)
		b = e.str(b, t.TypeName())
	case types.TypeParamKind:
		b = append(b, tTypeParam)
		b = e.str(b, t.TypeName())
	case types.TypeKind:
		if len(t.Parameters()) == 1 {
			b = append(b, tTypeOf)
			err = params(1)
		} else {
			b = append(b, tType)
		}
	default:
		found := false
		for _, p := range primitiveTags {
			if p.kind == k {
				found = true
				if t.IsAssignableType(types.NullType) {
					b = append(b, p.nulled)
				} else {
					b = append(b, p.plain)
				}
			}
		}
		if !found {
			err = fmt.Errorf("type %v: kind %v cannot be stored", t, k)
		}
	}
	if err != nil {
		return 0, err
	}
	i, ok := e.typeIndex[string(b)]
	if !ok {
		i = len(e.typeList)
		e.typeIndex[string(b)] = i
		e.typeList = append(e.typeList, b)
	}
	return i, nil
}

func (e *encoder) val(b []byte, v ref.Val) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, vNil), nil
	case types.Bool:
		if x {
			return append(b, vTrue), nil
		}
		return append(b, vFalse), nil
	case types.Bytes:
		return e.str(append(b, vBytes), string(x)), nil
	case types.Double:
		return binary.AppendUvarint(append(b, vDouble), math.Float64bits(float64(x))), nil
	case types.Int:
		return appendInt(append(b, vInt), int64(x)), nil
	case types.Null:
		return append(b, vNull), nil
	case types.String:
		return e.str(append(b, vString), string(x)), nil
	case types.Uint:
		return binary.AppendUvarint(append(b, vUint), uint64(x)), nil
	}
	return nil, fmt.Errorf("value %v of type %v cannot be stored", v, v.Type())
}

func (e *encoder) expr(b []byte, x celast.Expr) ([]byte, error) {
	var err error
	id := x.ID()
	switch x.Kind() {
	case celast.UnspecifiedExprKind:
		return appendInt(append(b, eUnspecified), id), nil
	case celast.CallKind:
		c := x.AsCall()
		if c.IsMemberFunction() {
			b = appendInt(append(b, eMemberCall), id)
			b = e.str(b, c.FunctionName())
			if b, err = e.expr(b, c.Target()); err != nil {
				return nil, err
			}
		} else {
			b = appendInt(append(b, eCall), id)
			b = e.str(b, c.FunctionName())
		}
		return e.exprs(b, c.Args())
	case celast.ComprehensionKind:
		c := x.AsComprehension()
		b = appendInt(append(b, eComprehension), id)
		b = e.str(b, c.IterVar())
		b = e.str(b, c.IterVar2())
		b = e.str(b, c.AccuVar())
		return e.exprs(b, []celast.Expr{c.IterRange(), c.AccuInit(), c.LoopCondition(), c.LoopStep(), c.Result()})
	case celast.IdentKind:
		return e.str(appendInt(append(b, eIdent), id), x.AsIdent()), nil
	case celast.LiteralKind:
		return e.val(appendInt(append(b, eLiteral), id), x.AsLiteral())
	case celast.ListKind:
		l := x.AsList()
		b = appendInt(append(b, eList), id)
		if b, err = e.exprs(b, l.Elements()); err != nil {
			return nil, err
		}
		opt := l.OptionalIndices()
		b = appendLen(b, len(opt))
		for _, i := range opt {
			b = appendInt(b, int64(i))
		}
		return b, nil
	case celast.MapKind:
		entries := x.AsMap().Entries()
		b = appendLen(appendInt(append(b, eMap), id), len(entries))
		for _, en := range entries {
			m := en.AsMapEntry()
			b = appendInt(b, en.ID())
			if b, err = e.exprs(b, []celast.Expr{m.Key(), m.Value()}); err != nil {
				return nil, err
			}
			b = appendBool(b, m.IsOptional())
		}
		return b, nil
	case celast.SelectKind:
		s := x.AsSelect()
		tag := eSelect
		if s.IsTestOnly() {
			tag = ePresence
		}
		b = e.str(appendInt(append(b, tag), id), s.FieldName())
		return e.expr(b, s.Operand())
	case celast.StructKind:
		s := x.AsStruct()
		b = e.str(appendInt(append(b, eStruct), id), s.TypeName())
		b = appendLen(b, len(s.Fields()))
		for _, en := range s.Fields() {
			f := en.AsStructField()
			b = e.str(appendInt(b, en.ID()), f.Name())
			if b, err = e.expr(b, f.Value()); err != nil {
				return nil, err
			}
			b = appendBool(b, f.IsOptional())
		}
		return b, nil
	}
	return nil, fmt.Errorf("expression %d: kind %v cannot be stored", id, x.Kind())
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

// exprs writes a list of expressions (an absent one as unspecified).
func (e *encoder) exprs(b []byte, xs []celast.Expr) ([]byte, error) {
	b = appendLen(b, len(xs))
	var err error
	for _, x := range xs {
		if x == nil {
			b = appendInt(append(b, eUnspecified), 0)
			continue
		}
		if b, err = e.expr(b, x); err != nil {
			return nil, err
		}
	}
	return b, nil
}

func sortedIDs[V any](m map[int64]V) []int64 {
	ids := make([]int64, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// ast writes a checked expression: its tree, types, references and source
// information.
func (e *encoder) ast(b []byte, a *celast.AST) ([]byte, error) {
	var err error
	if b, err = e.expr(b, a.Expr()); err != nil {
		return nil, err
	}
	tm := a.TypeMap()
	b = appendLen(b, len(tm))
	for _, id := range sortedIDs(tm) {
		ti, err := e.typ(tm[id])
		if err != nil {
			return nil, err
		}
		b = appendLen(appendInt(b, id), ti)
	}
	rm := a.ReferenceMap()
	b = appendLen(b, len(rm))
	for _, id := range sortedIDs(rm) {
		r := rm[id]
		b = e.str(appendInt(b, id), r.Name)
		b = appendLen(b, len(r.OverloadIDs))
		for _, o := range r.OverloadIDs {
			b = e.str(b, o)
		}
		if b, err = e.val(b, r.Value); err != nil {
			return nil, err
		}
	}
	info := a.SourceInfo()
	b = e.str(b, info.SyntaxVersion())
	b = e.str(b, info.Description())
	b = appendLen(b, len(info.LineOffsets()))
	for _, o := range info.LineOffsets() {
		b = appendInt(b, int64(o))
	}
	offs := info.OffsetRanges()
	b = appendLen(b, len(offs))
	for _, id := range sortedIDs(offs) {
		b = appendInt(appendInt(appendInt(b, id), int64(offs[id].Start)), int64(offs[id].Stop))
	}
	macros := info.MacroCalls()
	b = appendLen(b, len(macros))
	for _, id := range sortedIDs(macros) {
		if b, err = e.expr(appendInt(b, id), macros[id]); err != nil {
			return nil, err
		}
	}
	exts := info.Extensions()
	b = appendLen(b, len(exts))
	for _, x := range exts {
		b = e.str(b, x.ID)
		b = appendInt(appendInt(b, x.Version.Major), x.Version.Minor)
		b = appendLen(b, len(x.Components))
		for _, c := range x.Components {
			b = appendInt(b, int64(c))
		}
	}
	return b, nil
}

// doc writes one document's body: its content, lines and expressions.
func (e *encoder) doc(from *compiledFrom, asts []*celast.AST) ([]byte, error) {
	d := from.doc
	var b []byte
	b = e.str(b, d.APIVersion)
	b = e.str(b, d.Kind)
	b = e.str(b, d.Metadata.Name)
	b = e.str(b, d.Spec.Evaluation)
	b = appendLen(b, len(d.Spec.Inputs))
	for _, in := range d.Spec.Inputs {
		b = e.str(b, in)
	}
	b = appendLen(b, from.line)
	b = appendLen(b, len(d.Spec.Variables))
	for i, v := range d.Spec.Variables {
		b = e.str(b, v.Name)
		b = e.str(b, v.Expression)
		b = appendLen(b, lineAt(from.lines.variables, i))
	}
	b = appendLen(b, len(d.Spec.Validations))
	for i, v := range d.Spec.Validations {
		b = e.str(b, v.Expression)
		b = e.str(b, v.Message)
		b = e.str(b, v.MessageExpression)
		b = appendLen(b, lineAt(from.lines.validations, i))
	}
	b = appendLen(b, len(asts))
	var err error
	for _, a := range asts {
		if b, err = e.ast(b, a); err != nil {
			return nil, err
		}
	}
	return b, nil
}

func lineAt(lines []int, i int) int {
	if i < len(lines) {
		return lines[i]
	}
	return 0
}

var errPrecompiled = errors.New("precompiled CEL: malformed file")

// decoder reads the file; any malformed input sets err and yields zero
// values from then on.
type decoder struct {
	s     string
	err   error
	cache *precompiledCache
	fac   celast.ExprFactory
}

func (d *decoder) fail() {
	if d.err == nil {
		d.err = errPrecompiled
	}
	d.s = ""
}

func (d *decoder) uint() uint64 {
	var n uint64
	var shift uint
	for i := 0; i < len(d.s); i++ {
		c := d.s[i]
		if shift >= 64 {
			break
		}
		n |= uint64(c&0x7f) << shift
		if c < 0x80 {
			d.s = d.s[i+1:]
			return n
		}
		shift += 7
	}
	d.fail()
	return 0
}

func (d *decoder) int() int64 {
	u := d.uint()
	n := int64(u >> 1)
	if u&1 != 0 {
		n = ^n
	}
	return n
}

// len reads a count, at most what the rest of the input could hold.
func (d *decoder) len() int {
	n := d.uint()
	if n > uint64(len(d.s)) {
		d.fail()
		return 0
	}
	return int(n)
}

func (d *decoder) byte() byte {
	if len(d.s) == 0 {
		d.fail()
		return 0
	}
	c := d.s[0]
	d.s = d.s[1:]
	return c
}

func (d *decoder) bool() bool { return d.byte() != 0 }

func (d *decoder) str() string {
	i := d.uint()
	if i >= uint64(len(d.cache.strs)) {
		d.fail()
		return ""
	}
	return d.cache.strs[i]
}

func (d *decoder) typ() *types.Type {
	i := d.uint()
	if i >= uint64(len(d.cache.types)) {
		d.fail()
		return types.ErrorType
	}
	return d.cache.types[i]
}

// readPrecompiled reads the file's tables and index; documents' bodies are
// decoded on first use.
func readPrecompiled(file string) (*precompiledCache, error) {
	rest, ok := strings.CutPrefix(file, precompiledMagic)
	if !ok {
		return nil, errPrecompiled
	}
	c := &precompiledCache{}
	d := &decoder{s: rest, cache: c}
	n := d.len()
	c.strs = make([]string, n)
	for i := range c.strs {
		l := d.len()
		if d.err != nil {
			return nil, d.err
		}
		c.strs[i], d.s = d.s[:l], d.s[l:]
	}
	n = d.len()
	c.types = make([]*types.Type, 0, n)
	for range n {
		c.types = append(c.types, d.readType())
	}
	n = d.len()
	c.files = make(map[string][]int, n)
	for range n {
		key := d.str()
		docs := make([]int, d.len())
		for j := range docs {
			docs[j] = d.len()
		}
		c.files[key] = docs
	}
	n = d.len()
	c.docs = make([]cachedDoc, n)
	c.byKey = make(map[string]int, n)
	sizes := make([]int, n)
	for i := range c.docs {
		c.docs[i].name = d.str()
		c.docs[i].key = d.str()
		sizes[i] = d.len()
		c.byKey[c.docs[i].key] = i
	}
	if d.err != nil {
		return nil, d.err
	}
	for _, docs := range c.files {
		for _, j := range docs {
			if j >= n {
				return nil, errPrecompiled
			}
		}
	}
	for i, size := range sizes {
		if size > len(d.s) {
			return nil, errPrecompiled
		}
		body := d.s[:size]
		d.s = d.s[size:]
		c.docs[i].body = sync.OnceValues(func() (*precompiledDoc, error) {
			return (&decoder{s: body, cache: c, fac: celast.NewExprFactory()}).readDoc(c.docs[i].key)
		})
	}
	if len(d.s) != 0 {
		return nil, errPrecompiled
	}
	return c, nil
}

func (d *decoder) readType() *types.Type {
	tag := d.byte()
	for _, p := range primitiveTags {
		switch tag {
		case p.plain:
			return p.t
		case p.nulled:
			return types.NewNullableType(p.t)
		}
	}
	switch tag {
	case tDyn:
		return types.DynType
	case tAny:
		return types.AnyType
	case tDuration:
		return types.DurationType
	case tTimestamp:
		return types.TimestampType
	case tError:
		return types.ErrorType
	case tNull:
		return types.NullType
	case tList:
		return types.NewListType(d.typ())
	case tMap:
		k := d.typ()
		return types.NewMapType(k, d.typ())
	case tOpaque:
		name := d.str()
		ps := make([]*types.Type, d.len())
		for i := range ps {
			ps[i] = d.typ()
		}
		return types.NewOpaqueType(name, ps...)
	case tStruct:
		return types.NewObjectType(d.str())
	case tTypeParam:
		return types.NewTypeParamType(d.str())
	case tType:
		return types.TypeType
	case tTypeOf:
		return types.NewTypeTypeWithParam(d.typ())
	}
	d.fail()
	return types.ErrorType
}

func (d *decoder) val() ref.Val {
	switch d.byte() {
	case vNil:
		return nil
	case vFalse:
		return types.False
	case vTrue:
		return types.True
	case vBytes:
		return types.Bytes(d.str())
	case vDouble:
		return types.Double(math.Float64frombits(d.uint()))
	case vInt:
		return types.Int(d.int())
	case vNull:
		return types.NullValue
	case vString:
		return types.String(d.str())
	case vUint:
		return types.Uint(d.uint())
	}
	d.fail()
	return nil
}

func (d *decoder) exprs() []celast.Expr {
	xs := make([]celast.Expr, d.len())
	for i := range xs {
		xs[i] = d.expr()
	}
	return xs
}

func (d *decoder) expr() celast.Expr {
	if d.err != nil {
		return d.fac.NewUnspecifiedExpr(0)
	}
	f := d.fac
	tag := d.byte()
	id := d.int()
	switch tag {
	case eUnspecified:
		return f.NewUnspecifiedExpr(id)
	case eCall:
		fn := d.str()
		return f.NewCall(id, fn, d.exprs()...)
	case eMemberCall:
		fn := d.str()
		target := d.expr()
		return f.NewMemberCall(id, fn, target, d.exprs()...)
	case eComprehension:
		iv, iv2, av := d.str(), d.str(), d.str()
		parts := d.exprs()
		if len(parts) != 5 {
			d.fail()
			return f.NewUnspecifiedExpr(id)
		}
		return f.NewComprehensionTwoVar(id, parts[0], iv, iv2, av, parts[1], parts[2], parts[3], parts[4])
	case eIdent:
		return f.NewIdent(id, d.str())
	case eLiteral:
		return f.NewLiteral(id, d.val())
	case eList:
		elems := d.exprs()
		var opt []int32
		if n := d.len(); n > 0 {
			opt = make([]int32, n)
			for i := range opt {
				opt[i] = int32(d.int())
			}
		}
		return f.NewList(id, elems, opt)
	case eMap:
		entries := make([]celast.EntryExpr, d.len())
		for i := range entries {
			eid := d.int()
			kv := d.exprs()
			if len(kv) != 2 {
				d.fail()
				return f.NewUnspecifiedExpr(id)
			}
			entries[i] = f.NewMapEntry(eid, kv[0], kv[1], d.bool())
		}
		return f.NewMap(id, entries)
	case eSelect, ePresence:
		field := d.str()
		operand := d.expr()
		if tag == ePresence {
			return f.NewPresenceTest(id, operand, field)
		}
		return f.NewSelect(id, operand, field)
	case eStruct:
		name := d.str()
		fields := make([]celast.EntryExpr, d.len())
		for i := range fields {
			fid := d.int()
			fname := d.str()
			v := d.expr()
			fields[i] = f.NewStructField(fid, fname, v, d.bool())
		}
		return f.NewStruct(id, name, fields)
	}
	d.fail()
	return f.NewUnspecifiedExpr(id)
}

// readDoc decodes one document's body.
func (d *decoder) readDoc(key string) (*precompiledDoc, error) {
	p := &precompiledDoc{key: key}
	doc := &p.doc
	doc.APIVersion = d.str()
	doc.Kind = d.str()
	doc.Metadata.Name = d.str()
	doc.Spec.Evaluation = d.str()
	doc.Spec.Inputs = makeSlice[string](d.len())
	for i := range doc.Spec.Inputs {
		doc.Spec.Inputs[i] = d.str()
	}
	p.line = d.len()
	doc.Spec.Variables = makeSlice[policyVariable](d.len())
	p.lines.variables = makeSlice[int](len(doc.Spec.Variables))
	for i := range doc.Spec.Variables {
		v := &doc.Spec.Variables[i]
		v.Name = d.str()
		v.Expression = d.str()
		p.lines.variables[i] = d.len()
	}
	doc.Spec.Validations = makeSlice[policyValidation](d.len())
	p.lines.validations = makeSlice[int](len(doc.Spec.Validations))
	for i := range doc.Spec.Validations {
		v := &doc.Spec.Validations[i]
		v.Expression = d.str()
		v.Message = d.str()
		v.MessageExpression = d.str()
		p.lines.validations[i] = d.len()
	}
	p.asts = make([]*celast.AST, d.len())
	for i := range p.asts {
		p.asts[i] = d.readAST()
	}
	if d.err == nil && len(d.s) != 0 {
		d.fail()
	}
	if d.err != nil {
		return nil, d.err
	}
	return p, nil
}

// makeSlice makes a slice of n, nil when n is 0 (as YAML leaves a list
// that is absent).
func makeSlice[T any](n int) []T {
	if n == 0 {
		return nil
	}
	return make([]T, n)
}

func (d *decoder) readAST() *celast.AST {
	root := d.expr()
	n := d.len()
	typeMap := make(map[int64]*types.Type, n)
	for range n {
		id := d.int()
		typeMap[id] = d.typ()
	}
	n = d.len()
	refMap := make(map[int64]*celast.ReferenceInfo, n)
	for range n {
		id := d.int()
		r := &celast.ReferenceInfo{Name: d.str()}
		if k := d.len(); k > 0 {
			r.OverloadIDs = make([]string, k)
			for i := range r.OverloadIDs {
				r.OverloadIDs[i] = d.str()
			}
		}
		r.Value = d.val()
		refMap[id] = r
	}
	pb := &exprpb.SourceInfo{SyntaxVersion: d.str(), Location: d.str()}
	if n = d.len(); n > 0 {
		pb.LineOffsets = make([]int32, n)
		for i := range pb.LineOffsets {
			pb.LineOffsets[i] = int32(d.int())
		}
	}
	info, err := celast.ProtoToSourceInfo(pb)
	if err != nil {
		d.fail()
		return nil
	}
	for n = d.len(); n > 0; n-- {
		id := d.int()
		start := int32(d.int())
		info.SetOffsetRange(id, celast.OffsetRange{Start: start, Stop: int32(d.int())})
	}
	for n = d.len(); n > 0; n-- {
		id := d.int()
		info.SetMacroCall(id, d.expr())
	}
	for n = d.len(); n > 0; n-- {
		extID := d.str()
		major := d.int()
		v := celast.NewExtensionVersion(major, d.int())
		comps := make([]celast.ExtensionComponent, d.len())
		for i := range comps {
			comps[i] = celast.ExtensionComponent(d.int())
		}
		info.AddExtension(celast.NewExtension(extID, v, comps...))
	}
	return celast.NewCheckedAST(celast.NewAST(root, info), typeMap, refMap)
}
