package admission

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/ext"

	"github.com/ome-policy/evaluator/cases"
)

// Stand-ins in Kyverno's CEL for the ome library's functions that runtime
// selection calls. Kyverno's CEL has cel.bind, the math, lists (version 3)
// and strings (version 2) extensions and regular expressions, and no cost
// limit on a ValidatingPolicy; it cannot call Go. Each stand-in gives the
// builtin's answer on every input it is given, or, where a CEL expression
// cannot reach the answer, the input is named by one of the *Unstated
// predicates, and the selection policy then admits the InferenceService
// (leaving it to the Gatekeeper bundle) rather than risk a wrong verdict.

// kyvernoVersion is omeVersion(x) for a string x that parses (the policies
// ask isOmeVersion first), as a map: v (a leading "v"), parts (how many
// numbers are written), nums (the three numbers, 0 when not written), and
// the dev, pre-release and build parts. The text is cut as the Go parser
// cuts it: build after the first "+", pre-release after the first "-" of
// what is left, then the numbers and dev parts at ".".
func kyvernoVersion(x string) string {
	return `cel.bind(__vs, ` + x + `, cel.bind(__vt, __vs.startsWith("v") ? __vs.substring(1) : __vs, ` +
		`cel.bind(__vb, __vt.split("+", 2), cel.bind(__vp, __vb[0].split("-", 2), cel.bind(__vd, __vp[0].split("."), ` +
		`{"v": dyn(__vs.startsWith("v")), "parts": dyn(math.least(__vd.size(), 3)), ` +
		`"nums": dyn([0, 1, 2].map(__vi, __vi < __vd.size() ? uint(__vd[__vi]) : 0u)), ` +
		`"dev": dyn(__vd.size() > 3 ? __vd.slice(3, __vd.size()) : []), ` +
		`"pre": dyn(__vp.size() > 1 ? __vp[1].split(".") : []), ` +
		`"build": dyn(__vb.size() > 1 ? __vb[1].split(".") : [])})))))`
}

// kyvernoVersionMethods are the methods of an omeVersion value, on the
// maps of kyvernoVersion: isEqualTo compares the three numbers and the
// suffix parts; compareTo orders by the numbers alone (-1, 0 or 1).
var kyvernoVersionMethods = map[string]func(recv string, args []string) string{
	"parts": func(recv string, _ []string) string { return recv + ".parts" },
	"hasV":  func(recv string, _ []string) string { return recv + ".v" },
	"hasSuffix": func(recv string, _ []string) string {
		return "(" + recv + ".dev.size() + " + recv + ".pre.size() + " + recv + ".build.size() > 0)"
	},
	"isEqualTo": func(recv string, args []string) string {
		return fmt.Sprintf("cel.bind(__va, %s, cel.bind(__vo, %s, __va.nums == __vo.nums && __va.dev == __vo.dev && __va.pre == __vo.pre && __va.build == __vo.build))", recv, args[0])
	},
	"compareTo": func(recv string, args []string) string {
		return fmt.Sprintf("cel.bind(__va, %s, cel.bind(__vo, %s, [0, 1, 2].map(__vi, __va.nums[__vi] < __vo.nums[__vi] ? -1 : __va.nums[__vi] > __vo.nums[__vi] ? 1 : 0).filter(__vc, __vc != 0)[?0].orValue(0)))", recv, args[0])
	},
}

// floatSyntax matches the text that Go's strconv.ParseFloat reads (as
// lib/size.rego states it): inf or infinity in any case with an optional
// sign, nan in any case, a decimal with at most one "." and an optional
// exponent, or a hexadecimal mantissa with a "p" exponent; "_" only
// between digits (and right after 0x).
const floatSyntax = `^(?:[+-]?(?i:inf|infinity)|(?i:nan)` +
	`|[+-]?(?:[0-9](?:_?[0-9])*(?:\.(?:[0-9](?:_?[0-9])*)?)?|\.[0-9](?:_?[0-9])*)(?:[eE][+-]?[0-9](?:_?[0-9])*)?` +
	`|[+-]?0[xX](?:_?[0-9a-fA-F](?:_?[0-9a-fA-F])*(?:\.(?:[0-9a-fA-F](?:_?[0-9a-fA-F])*)?)?|\.[0-9a-fA-F](?:_?[0-9a-fA-F])*)[pP][+-]?[0-9](?:_?[0-9])*)$`

// floatInRange matches the numbers of floatSyntax that CEL's double(),
// which is ParseFloat, reads without error: the special values, and
// decimals and hexadecimals too short to reach float64's limits (at most
// 200 digits before the point and an exponent of at most two digits).
// ParseFloat refuses a number beyond the largest float64, and double()
// fails on it; such a number is left to the Gatekeeper bundle.
const floatInRange = `^(?:[+-]?(?i:inf|infinity)|(?i:nan)` +
	`|[+-]?[0-9_]{0,200}(?:\.[0-9_]*)?(?:[eE][+-]?[0-9]{1,2})?` +
	`|[+-]?0[xX][0-9a-fA-F_]{0,40}(?:\.[0-9a-fA-F_]*)?[pP][+-]?[0-9]{1,2})$`

// kyvernoFloat is strconv.ParseFloat(x) for a string x in range, 0 for
// text that does not parse.
func kyvernoFloat(x string) string {
	return `cel.bind(__fx, ` + x + `, __fx.matches(` + celString(floatSyntax) + `) && __fx.matches(` + celString(floatInRange) + `) ? double(__fx) : 0.0)`
}

// kyvernoSize is builtins.ParseModelSize(x): one last T, B or M off (x
// 10^12, 10^9, 10^6), then ParseFloat; text that does not parse is 0.
func kyvernoSize(x string) string {
	return `cel.bind(__zs, ` + x + `, cel.bind(__zm, __zs.endsWith("T") ? 1e12 : __zs.endsWith("B") ? 1e9 : __zs.endsWith("M") ? 1e6 : 1.0, ` +
		kyvernoFloat(`__zm == 1.0 ? __zs : __zs.substring(0, __zs.size() - 1)`) + ` * __zm))`
}

// kyvernoSizeUnstated(x) is true for a size whose number ParseFloat reads
// but double() may not (beyond floatInRange).
func kyvernoSizeUnstated(x string) string {
	return `cel.bind(__zs, ` + x + `, cel.bind(__zn, __zs.endsWith("T") || __zs.endsWith("B") || __zs.endsWith("M") ? __zs.substring(0, __zs.size() - 1) : __zs, ` +
		`__zn.matches(` + celString(floatSyntax) + `) && !__zn.matches(` + celString(floatInRange) + `)))`
}

// plainURL matches server addresses that net/url.Parse reads without
// error, with the scheme http or https and a host: OME finds nothing
// wrong with them. Other addresses are left to the Gatekeeper bundle.
const plainURL = `^(?i:https?)://[A-Za-z0-9.-]+(?::[0-9]*)?(?:/[A-Za-z0-9._~/-]*)?$`

// kyvernoCalls are the stand-ins of the ome functions that selection
// calls, but omeVerdict, which kyvernoVerdict builds from the match
// policies.
var kyvernoCalls = map[string]func(args []string) string{
	"omeQuote": func(a []string) string { return "[" + a[0] + "].map(__q, " + celQuote("__q") + ")[0]" },
	"omeIsFloat": func(a []string) string {
		return "cel.bind(__fx, " + a[0] + ", __fx.matches(" + celString(floatSyntax) + "))"
	},
	// A plain address has no problem; the others are unstated (omeURLUnstated).
	"omeParseURL": func(a []string) string { return `{"error": "", "scheme": "http", "host": "-"}` },
	"omeSize": func(a []string) string {
		return "cel.bind(__zv, " + kyvernoSize(a[0]) + ", math.isNaN(__zv) || math.isInf(__zv) ? 0.0 : __zv)"
	},
	"omeSizeCompare": func(a []string) string {
		return "cel.bind(__za, " + kyvernoSize(a[0]) + ", cel.bind(__zb, " + strings.ReplaceAll(kyvernoSize(a[1]), "__z", "__y") +
			", __za < __zb ? -1 : __za > __zb ? 1 : 0))"
	},
	// Predicates of the selection policy's source, for what it leaves to
	// Gatekeeper.
	"omeSizeUnstated": func(a []string) string { return kyvernoSizeUnstated(a[0]) },
	"omeFloatUnstated": func(a []string) string {
		return "cel.bind(__fx, " + a[0] + ", __fx.matches(" + celString(floatSyntax) + ") && !__fx.matches(" + celString(floatInRange) + "))"
	},
	"omeURLUnstated": func(a []string) string { return "!(" + a[0] + ").matches(" + celString(plainURL) + ")" },
}

var (
	floatSyntaxRE  = regexp.MustCompile(floatSyntax)
	floatInRangeRE = regexp.MustCompile(floatInRange)
	plainURLRE     = regexp.MustCompile(plainURL)
)

// KyvernoLeaves reports whether an InferenceService, with the models and
// runtimes of its cluster, may hold what the Kyverno selection policy
// leaves to Gatekeeper (src/omeruntimeselection.kyverno.yaml's unstated):
// a KEDA address that is not plain, a number beyond float64's range in a
// KEDA setting or a size, or more models and runtimes, or runtime entries,
// than it can look at within CEL's cost limit. The policy admits such an InferenceService
// unless a check before the one it cannot decide refuses it.
func KyvernoLeaves(isvc map[string]any, objs []map[string]any) bool {
	far := func(s string) bool {
		s = strings.TrimRight(s, "TBM")
		return floatSyntaxRE.MatchString(s) && !floatInRangeRE.MatchString(s)
	}
	leaves := false
	var walk func(key string, v any)
	walk = func(key string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				walk(k, e)
			}
		case []any:
			for _, e := range x {
				walk(key, e)
			}
		case string:
			address := key == "promServerAddress" || key == "autoscaling.keda.sh/prometheus.serverAddress"
			if address && !plainURLRE.MatchString(x) || far(x) {
				leaves = true
			}
		}
	}
	walk("", isvc)
	entries := 0
	for _, o := range objs {
		walk("", o)
		spec, _ := o["spec"].(map[string]any)
		list, _ := spec["supportedModelFormats"].([]any)
		entries += len(list)
	}
	return leaves || len(objs) > kyvernoMaxObjects || entries > kyvernoMaxEntries
}

// The most models and runtimes, and runtime entries, that the Kyverno
// selection policy looks at (its unstatedScale): beyond, it admits.
const kyvernoMaxObjects, kyvernoMaxEntries = 600, 600

// KyvernoLeavesCase is KyvernoLeaves of a case. Such cases are not in the
// Tests; TestKyvernoSelectionAgrees checks that the policy refuses none of
// them wrongly.
func KyvernoLeavesCase(c cases.Case) bool {
	objs := make([]map[string]any, len(c.Objects))
	for i, o := range c.Objects {
		objs[i] = o.Value
	}
	return KyvernoLeaves(c.InferenceService.Value, objs)
}

// KyvernoEnvOptions are the options of a CEL environment close to the one
// Kyverno compiles ValidatingPolicies in (its pkg/cel/compiler:
// homogeneous literals, optional types, the bindings, lists v3, math,
// sets, strings v2 and regex extensions): the tests run the generated
// Kyverno policies in it, in process. Kyverno's own engine is checked by
// make kyverno-verify.
func KyvernoEnvOptions() []cel.EnvOption {
	return []cel.EnvOption{
		cel.HomogeneousAggregateLiterals(), cel.EagerlyValidateDeclarations(true), cel.DefaultUTCTimeZone(true),
		cel.CrossTypeNumericComparisons(true), cel.OptionalTypes(), ext.Bindings(), ext.Encoders(),
		ext.Lists(ext.ListsVersion(3)), ext.Math(), ext.Sets(), ext.Strings(ext.StringsVersion(2)), ext.Regex(ext.RegexVersion(1)),
	}
}
