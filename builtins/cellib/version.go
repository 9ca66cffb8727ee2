package cellib

import (
	"fmt"
	"reflect"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"

	"github.com/ome-policy/evaluator/builtins"
)

// VersionType is the CEL type of a parsed OME version: the opaque type
// "ome.Version". Values of it are made by omeVersion(string).
var VersionType = cel.OpaqueType("ome.Version")

// Version is the CEL value of an ome.Version.
type Version struct {
	builtins.Version
}

// ConvertToNative implements ref.Val.
func (v Version) ConvertToNative(typeDesc reflect.Type) (any, error) {
	switch typeDesc {
	case reflect.TypeOf(builtins.Version{}):
		return v.Version, nil
	case reflect.TypeOf(v):
		return v, nil
	}
	return nil, fmt.Errorf("type conversion error from ome.Version to '%v'", typeDesc)
}

// ConvertToType implements ref.Val: an ome.Version converts to a string (its
// text) and to its own type.
func (v Version) ConvertToType(typeVal ref.Type) ref.Val {
	switch typeVal {
	case VersionType:
		return v
	case types.TypeType:
		return VersionType
	case types.StringType:
		return types.String(v.Original)
	}
	return types.NewErr("type conversion error from '%s' to '%s'", VersionType, typeVal)
}

// Equal implements ref.Val with OME's equality (spec 4.2), so == and != on
// two versions agree with isEqualTo. A version never equals a value of
// another type (CEL's heterogeneous equality: dyn(v) == '1.0' is false, not
// an error, just as dyn('1.0') == dyn(v) is).
func (v Version) Equal(other ref.Val) ref.Val {
	o, ok := other.(Version)
	return types.Bool(ok && builtins.Equal(v.Version, o.Version))
}

// Type implements ref.Val.
func (v Version) Type() ref.Type { return VersionType }

// Value implements ref.Val.
func (v Version) Value() any { return v.Version }
