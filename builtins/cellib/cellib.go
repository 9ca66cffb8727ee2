// Package cellib registers the version and size semantics of package
// builtins with CEL: Library is the CEL library "ome.version", with the
// opaque type ome.Version (version.go) and the functions of what OME's
// webhook parses with Go (webhook.go). It is the only package that joins
// builtins and cel-go.
package cellib

import (
	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"

	"github.com/ome-policy/evaluator/builtins"
)

// Library returns the CEL library "ome.version", which adds OME model
// versions to a CEL environment:
//
// # omeVersion
//
// Parses a version; text that is not an OME version is an error.
//
//	omeVersion(<string>) -> <ome.Version>
//
//	omeVersion('4.45.0.dev0')            // an ome.Version
//	omeVersion('1.0-rc1')                // error: a suffix may only follow the third number
//
// # isOmeVersion
//
// Reports whether a string parses as a version. It never errors.
//
//	isOmeVersion(<string>) -> <bool>
//
//	isOmeVersion('v1.2.3')               // true
//	isOmeVersion('01.0.0')               // false
//	isOmeVersion('')                     // false
//
// # omeVersionProblem
//
// Says why a string does not parse as a version; gives the empty string when
// it does. It never errors.
//
//	omeVersionProblem(<string>) -> <string>
//
//	omeVersionProblem('1.0-rc1')         // 'a suffix may only follow the third number'
//	omeVersionProblem('4.45.0.dev0')     // ''
//
// # hasSuffix
//
// Reports whether the version has a dev, pre-release or build suffix.
//
//	<ome.Version>.hasSuffix() -> <bool>
//
//	omeVersion('4.45.0.dev0').hasSuffix() // true
//	omeVersion('4.45.0').hasSuffix()      // false
//
// # parts
//
// The number of numbers written: 1, 2 or 3.
//
//	<ome.Version>.parts() -> <int>
//
//	omeVersion('4.46').parts()           // 2
//	omeVersion('v1.2.3-rc.1').parts()    // 3
//
// # hasV
//
// Reports whether the version starts with a lowercase "v".
//
//	<ome.Version>.hasV() -> <bool>
//
//	omeVersion('v4.46.0').hasV()         // true
//
// # major, minor, patch
//
// The numbers; a number not written is 0.
//
//	<ome.Version>.major() -> <uint>
//	<ome.Version>.minor() -> <uint>
//	<ome.Version>.patch() -> <uint>
//
//	omeVersion('v4.46').major()          // 4u
//	omeVersion('4.46').minor()           // 46u
//	omeVersion('4.46').patch()           // 0u
//
// # dev, pre, build
//
// The suffix parts, empty when absent.
//
//	<ome.Version>.dev() -> <list(string)>
//	<ome.Version>.pre() -> <list(string)>
//	<ome.Version>.build() -> <list(string)>
//
//	omeVersion('1.2.3.a-b.c+d.e').dev()   // ['a']
//	omeVersion('1.2.3.a-b.c+d.e').pre()   // ['b', 'c']
//	omeVersion('1.2.3.a-b.c+d.e').build() // ['d', 'e']
//	omeVersion('1.2.3').build()           // []
//
// # isEqualTo
//
// OME's equality: the same numbers (missing ones are 0) and the same dev,
// pre-release and build parts; the "v" and the number of parts do not count.
// The == operator on two versions means the same.
//
//	<ome.Version>.isEqualTo(<ome.Version>) -> <bool>
//
//	omeVersion('1.0').isEqualTo(omeVersion('v1.0.0'))               // true
//	omeVersion('4.45.0.dev0').isEqualTo(omeVersion('4.45.0-dev0'))  // false
//
// # compareTo
//
// Orders major, then minor, then patch, numerically: -1, 0 or 1. Suffixes, the
// "v" and the number of parts are not looked at.
//
//	<ome.Version>.compareTo(<ome.Version>) -> <int>
//
//	omeVersion('4.10.0').compareTo(omeVersion('4.9.0'))   // 1
//	omeVersion('1.0').compareTo(omeVersion('1.0.0'))      // 0
//
// # string
//
// Converts a version to its text, exactly as it was written.
//
//	string(<ome.Version>) -> <string>
//
//	string(omeVersion('v4.46'))           // 'v4.46'
//
// # omeSizeCompare
//
// Orders two model parameter sizes ("3.21B", "500M", "1.5T": a decimal
// number with an optional T, B or M suffix; anything else counts as 0): -1,
// 0 or 1.
//
//	omeSizeCompare(<string>, <string>) -> <int>
//
//	omeSizeCompare('8B', '7B')            // 1
//	omeSizeCompare('500M', '0.5B')        // 0
//	omeSizeCompare('huge', '0')           // 0
//
// # omeSize
//
// Reads a model parameter size as a number of parameters, for arithmetic
// such as the distance to a range's bounds; anything that is not a finite
// number counts as 0.
//
//	omeSize(<string>) -> <double>
//
//	omeSize('3.21B')                      // 3.21e9
//	omeSize('500M')                       // 5e8
//	omeSize('huge')                       // 0.0
//
// # omeIsFloat
//
// Reports whether OME's webhook takes a string as a number (a KEDA scaling
// threshold): Go's strconv.ParseFloat gives no error, so a value beyond the
// largest float64 is not a number. It never errors.
//
//	omeIsFloat(<string>) -> <bool>
//
//	omeIsFloat('0.5')                     // true
//	omeIsFloat('1_000')                   // true
//	omeIsFloat('1e400')                   // false
//	omeIsFloat('80%')                     // false
//
// # omeParseURL
//
// Parses a URL as Go's net/url.Parse does (a KEDA Prometheus server
// address): the error as OME's message prints it, or "" and the scheme and
// host. It never errors.
//
//	omeParseURL(<string>) -> <map(string, string)>
//
//	omeParseURL('http://prom:9090').host  // 'prom:9090'
//	omeParseURL('http://x:abc').error     // 'parse "http://x:abc": invalid port ":abc" after host'
//
// # omeQuote
//
// Quotes a string as OME's messages do (Go's %q: strconv.Quote).
//
//	omeQuote(<string>) -> <string>
//
//	omeQuote('chat.v1')                   // '"chat.v1"'
//	omeQuote('a\x01')                     // '"a\\x01"'
func Library() cel.EnvOption {
	return cel.Lib(celVersionLib{})
}

type celVersionLib struct{}

// LibraryName implements cel.SingletonLibrary, so adding the library twice
// is harmless.
func (celVersionLib) LibraryName() string { return "ome.version" }

func (celVersionLib) ProgramOptions() []cel.ProgramOption { return nil }

func (celVersionLib) CompileOptions() []cel.EnvOption {
	return append(append(globalFunctions(), versionMethods()...), webhookFunctions()...)
}

// globalFunctions are the library's functions of strings, and string() of
// a version.
func globalFunctions() []cel.EnvOption {
	return []cel.EnvOption{
		stringFunction("omeVersion", "string_to_ome_version", VersionType, func(s string) ref.Val {
			v, err := builtins.ParseCached(s)
			if err != nil {
				return types.WrapErr(err)
			}
			return Version{v}
		}),
		stringFunction("isOmeVersion", "is_ome_version_string", cel.BoolType, func(s string) ref.Val {
			_, err := builtins.ParseCached(s)
			return types.Bool(err == nil)
		}),
		stringFunction("omeVersionProblem", "ome_version_problem_string", cel.StringType, func(s string) ref.Val {
			return types.String(builtins.Problem(s))
		}),
		cel.Function("omeSizeCompare", cel.Overload("ome_size_compare_string_string", []*cel.Type{cel.StringType, cel.StringType}, cel.IntType,
			cel.BinaryBinding(func(lhs, rhs ref.Val) ref.Val {
				a, ok := lhs.(types.String)
				if !ok {
					return types.MaybeNoSuchOverloadErr(lhs)
				}
				b, ok := rhs.(types.String)
				if !ok {
					return types.MaybeNoSuchOverloadErr(rhs)
				}
				return types.Int(builtins.CompareSizes(string(a), string(b)))
			}))),
		cel.Function("string", cel.Overload("ome_version_to_string", []*cel.Type{VersionType}, cel.StringType,
			cel.UnaryBinding(func(arg ref.Val) ref.Val {
				v, ok := arg.(Version)
				if !ok {
					return types.MaybeNoSuchOverloadErr(arg)
				}
				return types.String(v.Original)
			}))),
		stringFunction("omeSize", "ome_size_string", cel.DoubleType, func(s string) ref.Val {
			return types.Double(builtins.SizeValue(s))
		}),
	}
}

// versionMethods are the methods of ome.Version.
func versionMethods() []cel.EnvOption {
	return []cel.EnvOption{
		versionMember("hasSuffix", "ome_version_has_suffix", cel.BoolType, func(v builtins.Version) ref.Val { return types.Bool(v.HasSuffix()) }),
		versionMember("parts", "ome_version_parts", cel.IntType, func(v builtins.Version) ref.Val { return types.Int(v.Parts) }),
		versionMember("hasV", "ome_version_has_v", cel.BoolType, func(v builtins.Version) ref.Val { return types.Bool(v.V) }),
		versionMember("major", "ome_version_major", cel.UintType, func(v builtins.Version) ref.Val { return types.Uint(v.Major) }),
		versionMember("minor", "ome_version_minor", cel.UintType, func(v builtins.Version) ref.Val { return types.Uint(v.Minor) }),
		versionMember("patch", "ome_version_patch", cel.UintType, func(v builtins.Version) ref.Val { return types.Uint(v.Patch) }),
		versionMember("dev", "ome_version_dev", cel.ListType(cel.StringType), func(v builtins.Version) ref.Val { return stringList(v.Dev) }),
		versionMember("pre", "ome_version_pre", cel.ListType(cel.StringType), func(v builtins.Version) ref.Val { return stringList(v.Pre) }),
		versionMember("build", "ome_version_build", cel.ListType(cel.StringType), func(v builtins.Version) ref.Val { return stringList(v.Build) }),
		versionBinary("isEqualTo", "ome_version_is_equal_to_ome_version", cel.BoolType, func(a, b builtins.Version) ref.Val { return types.Bool(builtins.Equal(a, b)) }),
		versionBinary("compareTo", "ome_version_compare_to_ome_version", cel.IntType, func(a, b builtins.Version) ref.Val { return types.Int(builtins.Compare(a, b)) }),
	}
}

// stringFunction declares a global function of one string.
func stringFunction(name, id string, result *cel.Type, fn func(string) ref.Val) cel.EnvOption {
	return cel.Function(name, cel.Overload(id, []*cel.Type{cel.StringType}, result,
		cel.UnaryBinding(func(arg ref.Val) ref.Val {
			s, ok := arg.(types.String)
			if !ok {
				return types.MaybeNoSuchOverloadErr(arg)
			}
			return fn(string(s))
		})))
}

// versionMember declares a method of ome.Version without arguments.
func versionMember(name, id string, result *cel.Type, fn func(builtins.Version) ref.Val) cel.EnvOption {
	return cel.Function(name, cel.MemberOverload(id, []*cel.Type{VersionType}, result,
		cel.UnaryBinding(func(arg ref.Val) ref.Val {
			v, ok := arg.(Version)
			if !ok {
				return types.MaybeNoSuchOverloadErr(arg)
			}
			return fn(v.Version)
		})))
}

// versionBinary declares a method of ome.Version of another ome.Version.
func versionBinary(name, id string, result *cel.Type, fn func(a, b builtins.Version) ref.Val) cel.EnvOption {
	return cel.Function(name, cel.MemberOverload(id, []*cel.Type{VersionType, VersionType}, result,
		cel.BinaryBinding(func(lhs, rhs ref.Val) ref.Val {
			a, ok := lhs.(Version)
			if !ok {
				return types.MaybeNoSuchOverloadErr(lhs)
			}
			b, ok := rhs.(Version)
			if !ok {
				return types.MaybeNoSuchOverloadErr(rhs)
			}
			return fn(a.Version, b.Version)
		})))
}

// stringList is a CEL list of strings, empty for nil.
func stringList(parts []string) ref.Val {
	if parts == nil {
		parts = []string{}
	}
	return types.DefaultTypeAdapter.NativeToValue(parts)
}
