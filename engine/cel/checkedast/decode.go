package checkedast

import (
	"errors"
	"math"
	"strings"
	"sync"

	celast "github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	exprpb "google.golang.org/genproto/googleapis/api/expr/v1alpha1"
)

// ErrMalformed is the error of a file that cannot be read.
var ErrMalformed = errors.New("precompiled CEL: malformed file")

// decoder reads the file; any malformed input sets err and yields zero
// values from then on.
type decoder struct {
	s     string
	err   error
	cache *Cache
	fac   celast.ExprFactory
}

func (d *decoder) fail() {
	if d.err == nil {
		d.err = ErrMalformed
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

// line reads a line number (not a count: it may exceed what is left).
func (d *decoder) line() int {
	n := d.uint()
	if n > math.MaxInt32 {
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

// Decode reads a file's tables and index; the documents' bodies are
// decoded on first use.
func Decode(file string) (*Cache, error) {
	rest, ok := strings.CutPrefix(file, Magic)
	if !ok {
		return nil, ErrMalformed
	}
	c := &Cache{}
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
	c.docs = make([]Cached, n)
	c.byKey = make(map[string]int, n)
	sizes := make([]int, n)
	for i := range c.docs {
		c.docs[i].Name = d.str()
		c.docs[i].Key = d.str()
		sizes[i] = d.len()
		if _, dup := c.byKey[c.docs[i].Key]; !dup { // the first file's document of a content
			c.byKey[c.docs[i].Key] = i
		}
	}
	if d.err != nil {
		return nil, d.err
	}
	for _, docs := range c.files {
		for _, j := range docs {
			if j >= n {
				return nil, ErrMalformed
			}
		}
	}
	for i, size := range sizes {
		if size > len(d.s) {
			return nil, ErrMalformed
		}
		body := d.s[:size]
		d.s = d.s[size:]
		key, name := c.docs[i].Key, c.docs[i].Name
		c.docs[i].body = sync.OnceValues(func() (*Doc, error) {
			return (&decoder{s: body, cache: c, fac: celast.NewExprFactory()}).readDoc(key, name)
		})
	}
	if len(d.s) != 0 {
		return nil, ErrMalformed
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
func (d *decoder) readDoc(key, name string) (*Doc, error) {
	doc := &Doc{Key: key}
	doc.APIVersion = d.str()
	doc.Kind = d.str()
	doc.Name = d.str()
	doc.Evaluation = d.str()
	doc.Inputs = makeSlice[string](d.len())
	for i := range doc.Inputs {
		doc.Inputs[i] = d.str()
	}
	doc.Line = d.line()
	doc.Variables = makeSlice[Variable](d.len())
	for i := range doc.Variables {
		v := &doc.Variables[i]
		v.Name = d.str()
		v.Expression = d.str()
		v.Line = d.line()
	}
	doc.Validations = makeSlice[Validation](d.len())
	for i := range doc.Validations {
		v := &doc.Validations[i]
		v.Name = d.str()
		v.Expression = d.str()
		v.Message = d.str()
		v.MessageExpression = d.str()
		v.Line = d.line()
	}
	doc.ASTs = make([]*celast.AST, d.len())
	for i := range doc.ASTs {
		doc.ASTs[i] = d.readAST()
	}
	if d.err == nil && (len(d.s) != 0 || doc.Name != name) {
		d.fail()
	}
	if d.err != nil {
		return nil, d.err
	}
	return doc, nil
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
