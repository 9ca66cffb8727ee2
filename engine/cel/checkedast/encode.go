package checkedast

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	celast "github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

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

// doc writes one document's body: its content, lines and expressions, each
// expression in the form cel-go gives back from its protobuf form.
func (e *encoder) doc(d *Doc) ([]byte, error) {
	var b []byte
	b = e.str(b, d.APIVersion)
	b = e.str(b, d.Kind)
	b = e.str(b, d.Name)
	b = e.str(b, d.Evaluation)
	b = appendLen(b, len(d.Inputs))
	for _, in := range d.Inputs {
		b = e.str(b, in)
	}
	b = appendLen(b, d.Line)
	b = appendLen(b, len(d.Variables))
	for _, v := range d.Variables {
		b = e.str(b, v.Name)
		b = e.str(b, v.Expression)
		b = appendLen(b, v.Line)
	}
	b = appendLen(b, len(d.Validations))
	for _, v := range d.Validations {
		b = e.str(b, v.Name)
		b = e.str(b, v.Expression)
		b = e.str(b, v.Message)
		b = e.str(b, v.MessageExpression)
		b = appendLen(b, v.Line)
	}
	b = appendLen(b, len(d.ASTs))
	for _, a := range d.ASTs {
		ce, err := celast.ToProto(a)
		if err != nil {
			return nil, err
		}
		rt, err := celast.ToAST(ce)
		if err != nil {
			return nil, err
		}
		if b, err = e.ast(b, rt); err != nil {
			return nil, err
		}
	}
	return b, nil
}
