package admit

import (
	"fmt"
	"slices"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
	"github.com/google/cel-go/common/types"

	"github.com/ome-policy/evaluator/admission"
	"github.com/ome-policy/evaluator/admission/celrewrite"
	"github.com/ome-policy/evaluator/builtins"
	"github.com/ome-policy/evaluator/builtins/cellib"
	"github.com/ome-policy/evaluator/rules"
)

// A team's ValidatingAdmissionPolicy for the CEL targets, which have no
// ome library: Kubernetes' CEL (a ValidatingAdmissionPolicy, Gatekeeper's
// K8sNativeValidation) and Kyverno's. Each expression is type-checked as
// `evaluate lint --rules` reads it, and every call of the library is
// replaced, by its overload, with a stand-in that gives the library's
// answer on every input and fails where the library fails (omeVersion on
// a string that is no version). An omeVersion value becomes a map of its
// parts (teamVersion), which the methods read; the value may go where the
// stand-ins follow it (a method's receiver or argument, ==, !=, string(),
// a variable, a binding, the elements of a list a macro walks), and an
// expression that takes it anywhere else, where a map would answer
// otherwise, is refused (*VersionUse). The library's sizes, omeIsFloat
// and omeParseURL have no stand-in (*NoStandIn says why).

// TeamTranslator writes the expressions of one team's policy for the CEL
// targets: the stand-ins are plain CEL, which Kubernetes and Kyverno both
// run.
type TeamTranslator struct {
	env *cel.Env
	// versions are the policy's variables whose value holds omeVersion
	// values, with the type of their expression.
	versions map[string]*types.Type
}

// NewTeamTranslator reads the policy's variables (their names and
// expressions) for a translator of its expressions.
func NewTeamTranslator(variables []admission.CELVariable) (*TeamTranslator, error) {
	env, err := cel.NewEnv(append(rules.KubernetesEnvOptions(), cellib.Library(), cel.EnableMacroCallTracking())...)
	if err != nil {
		return nil, err
	}
	t := &TeamTranslator{env: env, versions: map[string]*types.Type{}}
	for _, v := range variables {
		tree, err := celrewrite.Check(env, v.Expression)
		if err != nil {
			continue // the rule's own problem, which lint names
		}
		if typ := tree.Type(tree.Expr.ID()); holdsVersion(typ) {
			t.versions[v.Name] = typ
		}
	}
	return t, nil
}

// VersionUse is an omeVersion value that an expression takes where the
// stand-in, a map of the version's parts, would not answer as the library
// does.
type VersionUse struct{ Where string }

func (e *VersionUse) Error() string {
	return "it takes an omeVersion value " + e.Where + ", where its stand-in (a map of the version's parts) would not answer as the library does: " +
		"compare versions with compareTo, isEqualTo, == or !=, and read them with their methods or string()"
}

// Translate writes expr without the ome library. variable says that expr
// is a variable's, whose value may be an omeVersion.
func (t *TeamTranslator) Translate(expr string, variable bool) (string, error) {
	tree, err := celrewrite.Check(t.env, expr)
	if err != nil {
		return "", err
	}
	if err := t.checkUses(tree, variable); err != nil {
		return "", err
	}
	return tree.Rewrite(celrewrite.Rules{Call: func(c celrewrite.Call) (*celrewrite.StandIn, error) { return t.call(tree, c) }})
}

// isVersion reports whether the type is ome.Version.
func isVersion(typ *types.Type) bool {
	return typ != nil && typ.IsExactType(cellib.VersionType)
}

// holdsVersion reports whether a value of the type is or holds an
// ome.Version.
func holdsVersion(typ *types.Type) bool {
	if typ == nil || typ.Kind() == types.TypeKind {
		return false
	}
	if isVersion(typ) {
		return true
	}
	return slices.ContainsFunc(typ.Parameters(), holdsVersion)
}

// variableOf is the variable that e reads (variables.NAME), or "".
func variableOf(e ast.Expr) string {
	if e.Kind() == ast.SelectKind && celrewrite.Path(e.AsSelect().Operand()) == "variables" {
		return e.AsSelect().FieldName()
	}
	return ""
}

// versionType is the type of e when it is or holds an omeVersion value:
// its own, or for a variable that holds one, the variable's.
func (t *TeamTranslator) versionType(tree *celrewrite.Tree, e ast.Expr) *types.Type {
	if typ := tree.Type(e.ID()); holdsVersion(typ) {
		return typ
	}
	if v := variableOf(e); v != "" {
		return t.versions[v]
	}
	return nil
}

// omeOverloads are the overloads of the library's functions and methods.
func omeOverload(ids []string) bool {
	return len(ids) > 0 && !slices.ContainsFunc(ids, func(id string) bool {
		return !strings.HasPrefix(id, "ome_") && !strings.HasPrefix(id, "string_to_ome") && !strings.HasPrefix(id, "is_ome")
	})
}

// checkUses refuses an omeVersion value (or a value that holds some)
// that expr takes where the stand-ins do not follow it.
func (t *TeamTranslator) checkUses(tree *celrewrite.Tree, variable bool) error {
	if typ := t.versionType(tree, tree.Expr); typ != nil {
		switch {
		case !variable:
			return &VersionUse{Where: "as the expression's value"}
		case tree.Type(tree.Expr.ID()) == nil || !holdsVersion(tree.Type(tree.Expr.ID())):
			return &VersionUse{Where: "from another variable (variables." + variableOf(tree.Expr) + ") as a variable's value"}
		}
	}
	var err error
	celrewrite.Walk(tree.Expr, func(p ast.Expr) bool {
		if err != nil {
			return false
		}
		for i, child := range children(p) {
			if t.versionType(tree, child) == nil {
				continue
			}
			if where := t.badUse(tree, p, i, child); where != "" {
				err = &VersionUse{Where: where}
				return false
			}
		}
		return true
	})
	return err
}

// children are e's children: a call's target first, then its arguments;
// a list's elements; a map's keys and values, in turn; a selection's
// operand.
func children(e ast.Expr) []ast.Expr {
	switch e.Kind() {
	case ast.CallKind:
		c := e.AsCall()
		if c.IsMemberFunction() {
			return append([]ast.Expr{c.Target()}, c.Args()...)
		}
		return c.Args()
	case ast.ListKind:
		return e.AsList().Elements()
	case ast.MapKind:
		var out []ast.Expr
		for _, x := range e.AsMap().Entries() {
			out = append(out, x.AsMapEntry().Key(), x.AsMapEntry().Value())
		}
		return out
	case ast.StructKind:
		var out []ast.Expr
		for _, x := range e.AsStruct().Fields() {
			out = append(out, x.AsStructField().Value())
		}
		return out
	case ast.SelectKind:
		return []ast.Expr{e.AsSelect().Operand()}
	}
	return nil
}

// badUse says where p takes its i-th child, which is or holds an
// omeVersion value, when the stand-ins do not follow it there; "" when
// they do.
func (t *TeamTranslator) badUse(tree *celrewrite.Tree, p ast.Expr, i int, child ast.Expr) string {
	if v := variableOf(child); v != "" && !isVersion(t.versions[v]) {
		return "in " + describe(p) + ", where variables." + v + " holds omeVersion values in a " + t.versions[v].String() +
			", which are not followed as the variable is read"
	}
	parentHolds := holdsVersion(tree.Type(p.ID()))
	exact := isVersion(t.versionType(tree, child))
	if p.Kind() != ast.CallKind {
		if parentHolds && p.Kind() != ast.StructKind {
			return "" // a list or map of versions, itself followed
		}
		return "in " + describe(p)
	}
	c := p.AsCall()
	fn := c.FunctionName()
	member := c.IsMemberFunction()
	switch {
	case omeOverload(tree.Overloads(p.ID())) && exact:
		return ""
	case fn == "string" && !member && len(c.Args()) == 1 && exact:
		return ""
	case (fn == operators.Equals || fn == operators.NotEquals) && exact:
		if isVersion(t.versionType(tree, c.Args()[1-i])) {
			return ""
		}
		return "in a comparison (" + fn[1:len(fn)-1] + ") with a value that is no omeVersion"
	case tree.IsMacro(p.ID()) && member && i == 0:
		return "" // the list or map a macro walks: its elements are followed as they are bound
	case tree.IsMacro(p.ID()) && fn == "bind" && i == 2:
		return "" // cel.bind's value: followed where it is bound
	case fn == "size" || fn == "hasValue":
		return ""
	case parentHolds && (fn == operators.Conditional && i > 0 || fn == operators.Add || fn == operators.Index || fn == operators.OptIndex ||
		fn == operators.OptSelect || tree.IsMacro(p.ID()) || fn == "orValue" || fn == "value" || fn == "or" || fn == "of"):
		return ""
	}
	return "in " + describe(p)
}

// describe names an expression for a refusal.
func describe(e ast.Expr) string {
	text, err := celrewrite.String(e)
	if err != nil {
		text = "an expression"
	}
	if len(text) > 80 {
		text = text[:77] + "..."
	}
	return strings.Join(strings.Fields(text), " ")
}

// call is the stand-in of a call of the ome library, by its overloads.
func (t *TeamTranslator) call(tree *celrewrite.Tree, c celrewrite.Call) (*celrewrite.StandIn, error) {
	ids := tree.Overloads(c.Expr.ID())
	recv := []ast.Expr{c.Target}
	switch {
	case c.Function == operators.Equals || c.Function == operators.NotEquals:
		if !isVersion(t.versionType(tree, c.Args[0])) || !isVersion(t.versionType(tree, c.Args[1])) {
			return nil, nil
		}
		tmpl := teamMethods["isEqualTo"]
		if c.Function == operators.NotEquals {
			tmpl = "!(" + tmpl + ")"
		}
		return &celrewrite.StandIn{Template: tmpl, Args: c.Args}, nil
	case c.Function == "string" && c.Target == nil && len(c.Args) == 1 && isVersion(t.versionType(tree, c.Args[0])):
		if admission.IsCall(c.Args[0], "omeVersion", 1) {
			return &celrewrite.StandIn{Template: admission.StandInGuard("__arg0", "__gv"), Args: c.Args[0].AsCall().Args()}, nil
		}
		return &celrewrite.StandIn{Template: "__arg0.text", Args: c.Args}, nil
	case !omeOverload(ids):
		return nil, nil
	}
	switch id := ids[0]; id {
	case "string_to_ome_version":
		if c.Args[0].Kind() == ast.LiteralKind {
			if lit, ok := c.Args[0].AsLiteral().(types.String); ok {
				if v, err := builtins.Parse(string(lit)); err == nil {
					return &celrewrite.StandIn{Template: versionLiteral(v)}, nil
				}
			}
		}
		return &celrewrite.StandIn{Template: admission.StandInGuard("__arg0", teamVersion("__gv")), Args: c.Args}, nil
	case "is_ome_version_string":
		return &celrewrite.StandIn{Template: admission.StandInIsValid("__arg0"), Args: c.Args}, nil
	case "ome_version_problem_string":
		return &celrewrite.StandIn{Template: admission.StandInProblem("__arg0"), Args: c.Args}, nil
	case "ome_quote_string":
		return &celrewrite.StandIn{Template: "[__arg0].map(__qv, " + admission.StandInQuote("__qv") + ")[0]", Args: c.Args}, nil
	case "ome_version_has_suffix", "ome_version_parts", "ome_version_has_v":
		if f := admission.StandInVersionMethod(c.Function); admission.IsCall(c.Target, "omeVersion", 1) {
			return &celrewrite.StandIn{Template: admission.StandInGuard("__arg0", f("__gv")), Args: c.Target.AsCall().Args()}, nil
		}
	}
	if tmpl, ok := teamMethods[c.Function]; ok && c.Target != nil {
		return &celrewrite.StandIn{Template: tmpl, Args: append(recv, c.Args...)}, nil
	}
	name := c.Function
	if c.Target != nil {
		name = "omeVersion(...)." + name
	}
	return nil, &admission.NoStandIn{Name: name, Why: noStandIn[c.Function]}
}

// noStandIn says why a function of the library has no stand-in.
var noStandIn = map[string]string{
	"omeSize": "a size is read by Go's strconv.ParseFloat, and a number beyond float64's range, which the library reads as 0, " +
		"makes CEL's double() fail, a failure no CEL expression can catch",
	"omeSizeCompare": "a size is read by Go's strconv.ParseFloat, and a number beyond float64's range, which the library reads as 0, " +
		"makes CEL's double() fail, a failure no CEL expression can catch",
	"omeIsFloat": "Go's strconv.ParseFloat refuses a number beyond float64's range, which only its rounding tells, " +
		"and CEL's double() fails on it, a failure no CEL expression can catch",
	"omeParseURL": "Go's net/url.Parse (its errors, and the host it finds) is more than a CEL expression states on every input",
}

// teamVersion is omeVersion(x), for a string x that parses, as a map of
// its parts: text, v (a leading "v"), parts (how many numbers are
// written), nums (the three numbers, 0 when not written) and the dev,
// pre-release and build parts, cut as the Go parser cuts the text: build
// after the first "+", pre-release after the first "-" of what is left,
// then the numbers and dev parts at ".". It is plain CEL (bindings as
// [e].map(x, ...)[0]), which Kyverno's CEL runs too.
func teamVersion(x string) string {
	return `[` + x + `].map(__vs, [__vs.startsWith("v") ? __vs.substring(1) : __vs].map(__vt, ` +
		`[__vt.split("+", 2)].map(__vb, [__vb[0].split("-", 2)].map(__vp, [__vp[0].split(".")].map(__vd, ` +
		`{"text": dyn(__vs), "v": dyn(__vs.startsWith("v")), "parts": dyn(__vd.size() < 3 ? __vd.size() : 3), ` +
		`"nums": dyn([0, 1, 2].map(__vi, __vi < __vd.size() ? uint(__vd[__vi]) : 0u)), ` +
		`"dev": dyn(__vd.size() > 3 ? __vd.slice(3, __vd.size()) : []), ` +
		`"pre": dyn(__vp.size() > 1 ? __vp[1].split(".") : []), ` +
		`"build": dyn(__vb.size() > 1 ? __vb[1].split(".") : [])})[0])[0])[0])[0])[0]`
}

// versionLiteral is teamVersion of a version written as a literal, which
// parses: its map, made once, as the translation reads it.
func versionLiteral(v builtins.Version) string {
	list := func(parts []string) string {
		q := make([]string, len(parts))
		for i, p := range parts {
			q[i] = admission.CELString(p)
		}
		return "[" + strings.Join(q, ", ") + "]"
	}
	return fmt.Sprintf(`{"text": dyn(%s), "v": dyn(%v), "parts": dyn(%d), "nums": dyn([%du, %du, %du]), "dev": dyn(%s), "pre": dyn(%s), "build": dyn(%s)}`,
		admission.CELString(v.Original), v.V, v.Parts, v.Major, v.Minor, v.Patch, list(v.Dev), list(v.Pre), list(v.Build))
}

// compareNums orders the i-th numbers of the versions __va and __vo, or
// else gives rest.
func compareNums(i int, rest string) string {
	a, o := fmt.Sprintf("__va.nums[%d]", i), fmt.Sprintf("__vo.nums[%d]", i)
	return a + " != " + o + " ? (" + a + " < " + o + " ? -1 : 1) : " + rest
}

// teamMethods are the stand-ins of the methods of an omeVersion value, on
// the maps of teamVersion (__arg0 is the receiver, __arg1 the argument):
// isEqualTo compares the three numbers and the suffix parts; compareTo
// orders by the numbers alone (-1, 0 or 1).
var teamMethods = map[string]string{
	"parts":     "__arg0.parts",
	"hasV":      "__arg0.v",
	"hasSuffix": "[__arg0].map(__vh, __vh.dev.size() + __vh.pre.size() + __vh.build.size() > 0)[0]",
	"major":     "__arg0.nums[0]",
	"minor":     "__arg0.nums[1]",
	"patch":     "__arg0.nums[2]",
	"dev":       "__arg0.dev",
	"pre":       "__arg0.pre",
	"build":     "__arg0.build",
	"isEqualTo": "[__arg0].map(__va, [__arg1].map(__vo, __va.nums == __vo.nums && __va.dev == __vo.dev && __va.pre == __vo.pre && __va.build == __vo.build)[0])[0]",
	"compareTo": "[__arg0].map(__va, [__arg1].map(__vo, " + compareNums(0, compareNums(1, compareNums(2, "0"))) + ")[0])[0]",
}
