package admission

import (
	"fmt"
	"sort"
	"strings"

	"github.com/google/cel-go/common/ast"

	"github.com/ome-policy/evaluator/admission/celrewrite"
)

// Plain-CEL stand-ins for the ome CEL library, for Kubernetes' CEL as
// Gatekeeper (and a ValidatingAdmissionPolicy) runs it: no ome functions,
// no cel.bind and no math library, but regular expressions, the strings
// library (split, substring, format, quote), lists.range, slice, flatten
// and sort. A binding cel.bind(x, e, body) is written [e].map(x, body)[0].

// celString writes s as a CEL string literal.
func celString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '\\':
			b.WriteString(`\\`)
		case '"':
			b.WriteString(`\"`)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 || r == 0x7f {
				fmt.Fprintf(&b, `\x%02x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// uint64Pattern matches the decimal numbers without leading zeros that fit
// in 64 bits: up to 19 digits, or 20 digits not above 18446744073709551615.
func uint64Pattern() string {
	const top = "18446744073709551615"
	alts := []string{"0", "[1-9][0-9]{0,18}"}
	for i := 1; i < len(top); i++ {
		if d := top[i]; d > '0' {
			alts = append(alts, fmt.Sprintf("%s[0-%c][0-9]{%d}", top[:i], d-1, len(top)-i-1))
		}
	}
	alts = append(alts, top)
	return "(?:" + strings.Join(alts, "|") + ")"
}

// VersionPattern is a regular expression that matches exactly the strings
// that parse as OME versions (builtins/version.go): the text is split at
// the first "+" (build), then the first "-" (pre-release), and what is left
// holds one to three numbers and, after the third, dev parts.
func VersionPattern() string {
	n := uint64Pattern()
	return `^v?(?:` + n + `|` + n + `\.` + n + `|` + n + `\.` + n + `\.` + n +
		`(?:\.[^.+-]+)*(?:-[^.+]+(?:\.[^.+]+)*)?(?:\+[^.]+(?:\.[^.]+)*)?)$`
}

// celQuote is Go's %q (strconv.Quote) of the string held by the CEL
// variable v: printable characters (letters, marks, numbers, punctuation,
// symbols and the ASCII space) as they are, \ and " escaped, and every
// other character as \a, \b, \f, \n, \r, \t, \v, or by its code point in
// hexadecimal (\xHH below 0x20 and for 0x7f, else \uHHHH or \UHHHHHHHH).
// The code point comes from the hexadecimal UTF-8 bytes that format's %x
// gives.
func celQuote(v string) string {
	hex := `{"0": 0, "1": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9, "a": 10, "b": 11, "c": 12, "d": 13, "e": 14, "f": 15}`
	b := func(k int) string {
		return fmt.Sprintf(`(__qm[__qh.substring(%d, %d)] * 16 + __qm[__qh.substring(%d, %d)])`, 2*k, 2*k+1, 2*k+1, 2*k+2)
	}
	codePoint := `["%x".format([__qc])].map(__qh, [` + hex + `].map(__qm, ` +
		`__qh.size() == 2 ? ` + b(0) +
		` : __qh.size() == 4 ? (` + b(0) + ` % 32) * 64 + ` + b(1) + ` % 64` +
		` : __qh.size() == 6 ? (` + b(0) + ` % 16) * 4096 + (` + b(1) + ` % 64) * 64 + ` + b(2) + ` % 64` +
		` : (` + b(0) + ` % 8) * 262144 + (` + b(1) + ` % 64) * 4096 + (` + b(2) + ` % 64) * 64 + ` + b(3) + ` % 64` +
		`)[0])[0]`
	pad := func(width int) string {
		return fmt.Sprintf(`["%%x".format([__qn])].map(__qs, "00000000".substring(0, %d - __qs.size()) + __qs)[0]`, width)
	}
	esc := `__qc == "\\" ? "\\\\" : __qc == "\"" ? "\\\"" : ` +
		`__qc.matches("^[\\p{L}\\p{M}\\p{N}\\p{P}\\p{S} ]$") ? __qc : ` +
		`__qc == "\a" ? "\\a" : __qc == "\b" ? "\\b" : __qc == "\f" ? "\\f" : __qc == "\n" ? "\\n" : ` +
		`__qc == "\r" ? "\\r" : __qc == "\t" ? "\\t" : __qc == "\v" ? "\\v" : ` +
		`[` + codePoint + `].map(__qn, __qn < 32 || __qn == 127 ? "\\x" + ` + pad(2) +
		` : __qn < 65536 ? "\\u" + ` + pad(4) + ` : "\\U" + ` + pad(8) + `)[0]`
	return `("\"" + lists.range(` + v + `.size()).map(__qi, ` + v + `.substring(__qi, __qi + 1)).map(__qc, ` + esc + `).join("") + "\"")`
}

// celNumberProblem is what the Go parser says of the i-th number (from 0)
// of the list nums, or "".
func celNumberProblem(i int) string {
	hint := ""
	if i > 0 {
		hint = ` + " (a suffix may only follow the third number, after \".\", \"-\" or \"+\")"`
	}
	label := celString(fmt.Sprintf("number %d: ", i+1))
	return fmt.Sprintf(`[__nums[%d]].map(__n, __n == "" ? %s + "a number is missing"`+
		` : !__n.matches("^[0-9]+$") ? %s + %s + " is not a decimal number"%s`+
		` : __n.size() > 1 && __n.startsWith("0") ? %s + "\"" + __n + "\" has a leading zero"`+
		` : __n.size() > 20 || __n.size() == 20 && __n > "18446744073709551615" ? %s + "\"" + __n + "\" does not fit in 64 bits"`+
		` : "")[0]`, i, label, label, celQuote("__n"), hint, label, label)
}

// celProblem is omeVersionProblem(x): why the string x does not parse, in
// the Go parser's words, or "".
func celProblem(x string) string {
	return `[` + x + `].map(__v, __v == "" ? "the version is empty" : ` +
		`[__v.startsWith("v") ? __v.substring(1) : __v].map(__rest, ` +
		`[__rest.split("+")].map(__bp, ` +
		`[__bp[0].split("-")].map(__mp, ` +
		`[__mp[0].split(".")].map(__pieces, ` +
		`[__pieces.size() > 3 ? __pieces.slice(0, 3) : __pieces].map(__nums, ` +
		`[[` + celNumberProblem(0) + `, __nums.size() > 1 ? ` + celNumberProblem(1) + ` : "", __nums.size() > 2 ? ` + celNumberProblem(2) + ` : ""].filter(__p, __p != "")].map(__bad, ` +
		`__bad.size() > 0 ? __bad[0]` +
		` : (__bp.size() > 1 || __mp.size() > 1) && __nums.size() < 3 ? "a suffix may only follow the third number"` +
		` : __pieces.size() > 3 && __pieces.slice(3, __pieces.size()).exists(__d, __d == "") ? "dev suffix: a part is empty"` +
		` : __mp.size() > 1 && __mp.slice(1, __mp.size()).join("-").split(".").exists(__d, __d == "") ? "pre-release suffix: a part is empty"` +
		` : __bp.size() > 1 && __bp.slice(1, __bp.size()).join("+").split(".").exists(__d, __d == "") ? "build suffix: a part is empty"` +
		` : "")[0])[0])[0])[0])[0])[0])[0]`
}

// WellFormedVersionPattern matches the usual versions, a part of those that
// parse: numbers of up to 19 digits (they fit in 64 bits) and suffixes of
// letters and digits. At each choice the next character decides, so that
// Go matches it in one pass, much faster than VersionPattern.
func WellFormedVersionPattern() string {
	n := `(?:0|[1-9][0-9]{0,18})`
	part := `[0-9A-Za-z]+`
	return `^v?` + n + `(?:\.` + n + `(?:\.` + n + `(?:\.` + part + `)*(?:-` + part + `(?:\.` + part + `)*)?(?:\+` + part + `(?:\.` + part + `)*)?)?)?$`
}

// celIsValid is isOmeVersion(x): the quick pattern first, VersionPattern
// for the rest.
func celIsValid(x string) string {
	return `[` + x + `].map(__ov, type(__ov) == string && (__ov.matches(` + celString(WellFormedVersionPattern()) +
		`) || __ov.matches(` + celString(VersionPattern()) + `)))[0]`
}

func celHasSuffix(x string) string {
	return `[` + x + `].map(__ov, __ov.matches("^v?[0-9]+\\.[0-9]+\\.[0-9]+[-+.]"))[0]`
}

func celHasV(x string) string {
	return `[` + x + `].map(__ov, __ov.startsWith("v"))[0]`
}

func celParts(x string) string {
	return `[` + x + `].map(__ov, __ov.matches("^v?[0-9]+$") ? 1 : __ov.matches("^v?[0-9]+\\.[0-9]+$") ? 2 : 3)[0]`
}

// celTranslator writes the project's CEL (or a team's) for a CEL target
// without the ome library: it rewrites each expression's syntax tree
// (package celrewrite). renames are the inputs and variables written
// under another name: a key is a name ("model") or a variable
// ("variables.score"), and a path that starts with it ("model.spec") is
// renamed too. calls are stand-ins for functions by name, given their
// arguments; methods are stand-ins for methods by name, given their
// receiver and arguments (the identifiers celrewrite.Arg names, which
// stand for them). With kyverno, cel.bind and math are kept (Kyverno's
// CEL has them), and omeVersion values are written as maps
// (kyvernoVersion); without, a binding cel.bind(x, e, body) is written
// [e].map(x, body)[0], and omeVersion(x) is taken only with the method
// hasSuffix, parts or hasV called on it.
type celTranslator struct {
	renames map[string]string
	calls   map[string]func(args []string) string
	methods map[string]func(recv string, args []string) string
	kyverno bool
}

// rewriteCEL replaces, in a CEL expression of the project's policies, the
// calls of the ome library and cel.bind by their plain-CEL stand-ins. It
// fails on any other ome function, and on math, which Gatekeeper's CEL
// does not have.
func rewriteCEL(expr string, renames map[string]string) (string, error) {
	return (&celTranslator{renames: renames}).rewrite(expr)
}

func (r *celTranslator) rewrite(expr string) (string, error) {
	return celrewrite.Rewrite(expr, celrewrite.Rules{Renames: r.renames, Call: r.call})
}

// placeholders are the identifiers that stand for n arguments, from the
// from-th on.
func placeholders(from, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = celrewrite.Arg(from + i)
	}
	return out
}

// guardVersion is body (of the variable __gv holding x) when x is an OME
// version, else an error, as omeVersion(x) fails on it.
func guardVersion(x string, body string) string {
	return "[" + x + "].map(__gv, " + celIsValid("__gv") + " ? dyn(" + body + `) : dyn(int("not an OME version: " + __gv)))[0]`
}

// plainVersionMethods are the stand-ins, in plain CEL, of the methods
// that need no version value: on omeVersion(x) itself, they read x.
var plainVersionMethods = map[string]func(string) string{"hasSuffix": celHasSuffix, "parts": celParts, "hasV": celHasV}

// call is the stand-in of a call of the ome library, cel.bind or math,
// nil for a call the target has.
func (r *celTranslator) call(c celrewrite.Call) (*celrewrite.StandIn, error) {
	name, n := c.Function, len(c.Args)
	if c.Target != nil {
		recv := celrewrite.Path(c.Target)
		switch {
		case recv == "cel" && name == "bind" && n == 3:
			if r.kyverno {
				return nil, nil
			}
			return &celrewrite.StandIn{Template: "[__arg1].map(__arg0, __arg2)[0]", Args: c.Args}, nil
		case !r.kyverno && isCall(c.Target, "omeVersion", 1):
			f, ok := plainVersionMethods[name]
			if !ok || n > 0 {
				return nil, &NoStandIn{Name: "omeVersion(...)." + name}
			}
			return &celrewrite.StandIn{Template: f("__arg0"), Args: c.Target.AsCall().Args()}, nil
		}
		if f, ok := r.methods[name]; ok {
			return &celrewrite.StandIn{Template: f("__arg0", placeholders(1, n)), Args: append([]ast.Expr{c.Target}, c.Args...)}, nil
		}
		if (recv == "cel" || recv == "math") && !r.kyverno || strings.HasPrefix(recv, "ome") {
			return nil, &NoStandIn{Name: recv + "." + name}
		}
		return nil, nil
	}
	args := placeholders(0, n)
	switch {
	case name == "isOmeVersion" && n == 1:
		return &celrewrite.StandIn{Template: celIsValid(args[0]), Args: c.Args}, nil
	case name == "omeVersionProblem" && n == 1:
		return &celrewrite.StandIn{Template: celProblem(args[0]), Args: c.Args}, nil
	case name == "omeVersion" && n == 1 && r.kyverno:
		return &celrewrite.StandIn{Template: kyvernoVersion(args[0]), Args: c.Args}, nil
	}
	if f, ok := r.calls[name]; ok {
		return &celrewrite.StandIn{Template: f(args), Args: c.Args}, nil
	}
	if strings.HasPrefix(name, "ome") {
		return nil, &NoStandIn{Name: name}
	}
	return nil, nil
}

// isCall reports whether e calls the function name with n arguments.
func isCall(e ast.Expr, name string, n int) bool {
	return e.Kind() == ast.CallKind && !e.AsCall().IsMemberFunction() && e.AsCall().FunctionName() == name && len(e.AsCall().Args()) == n
}

// NoStandIn is a call that the target's CEL has no stand-in for.
type NoStandIn struct {
	Name string
	// Why, when set, says why there is none.
	Why string
}

func (e *NoStandIn) Error() string {
	return fmt.Sprintf("CEL for Gatekeeper: no plain-CEL stand-in for %s(...)", e.Name)
}

// CELVariable is one variable of a CEL policy.
type CELVariable struct{ Name, Expression string }

// neededVariables returns, in the policy's order, the variables that the
// named ones refer to, directly or not, and themselves.
func neededVariables(all []CELVariable, names ...string) []CELVariable {
	index := map[string]CELVariable{}
	for _, v := range all {
		index[v.Name] = v
	}
	need := map[string]bool{}
	var visit func(string)
	visit = func(n string) {
		v, ok := index[n]
		if !ok || need[n] {
			return
		}
		need[n] = true
		refs, _ := celrewrite.Variables(v.Expression)
		for _, m := range refs {
			visit(m)
		}
	}
	for _, n := range names {
		visit(n)
	}
	var out []CELVariable
	for _, v := range all {
		if need[v.Name] {
			out = append(out, v)
		}
	}
	return out
}

// celSource is a template's CEL code as src/*.cel.yaml writes it.
type celSource struct {
	// Inputs are the inputs of the project's CEL policies that admission
	// does not have, as variables: name and expression. They come first.
	Inputs []CELVariable `yaml:"inputs"`
	// Include names, per CEL policy of the project, the variables to take
	// (with those they need).
	Include   map[string][]string `yaml:"include"`
	Slots     int                 `yaml:"slots"`
	Variables []CELVariable       `yaml:"variables"`
}

// celPolicy is one CEL policy of the project, as policies/cel/*.yaml
// holds it.
type celPolicy struct {
	Kind     string `yaml:"kind"`
	Metadata struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Spec struct {
		Variables   []CELVariable `yaml:"variables"`
		Validations []CELRule     `yaml:"validations"`
	} `yaml:"spec"`
}

// celCode builds the K8sNativeValidation source: the included variables of
// the project's CEL policies in plain CEL, the template's own variables,
// and one validation per violation slot.
func celCode(src celSource, policies map[string]celPolicy) (*CELBlock, error) {
	block := &CELBlock{}
	renames := map[string]string{}
	for _, in := range src.Inputs {
		block.Variables = append(block.Variables, in)
		renames[in.Name] = "variables." + in.Name
	}
	names := make([]string, 0, len(src.Include))
	for n := range src.Include {
		names = append(names, n)
	}
	sort.Strings(names)
	// lint-object's variables first: the others may refer to them.
	for _, n := range names {
		p, ok := policies[n]
		if !ok {
			return nil, fmt.Errorf("CEL policy %s not found", n)
		}
		for _, v := range neededVariables(p.Spec.Variables, src.Include[n]...) {
			expr, err := rewriteCEL(v.Expression, renames)
			if err != nil {
				return nil, fmt.Errorf("CEL policy %s, variable %s: %w", n, v.Name, err)
			}
			block.Variables = append(block.Variables, CELVariable{Name: v.Name, Expression: expr})
		}
	}
	seen := map[string]bool{}
	for _, v := range block.Variables {
		seen[v.Name] = true
	}
	for _, v := range src.Variables {
		if seen[v.Name] {
			return nil, fmt.Errorf("CEL variable %s is defined twice", v.Name)
		}
		block.Variables = append(block.Variables, v)
	}
	for i, v := range block.Variables {
		h, err := homogenize(v.Expression)
		if err != nil {
			return nil, fmt.Errorf("CEL variable %s: %w", v.Name, err)
		}
		block.Variables[i].Expression = h
	}
	n := src.Slots
	if n < 1 {
		return nil, fmt.Errorf("CEL: slots must be at least 1")
	}
	for i := 0; i < n-1; i++ {
		block.Validations = append(block.Validations, CELValidation{
			Expression:        fmt.Sprintf("variables.messages.size() <= %d", i),
			MessageExpression: fmt.Sprintf("variables.messages[%d]", i),
		})
	}
	block.Validations = append(block.Validations, CELValidation{
		Expression: fmt.Sprintf("variables.messages.size() <= %d", n-1),
		MessageExpression: fmt.Sprintf(`variables.messages.size() == %d ? variables.messages[%d] : %s + string(variables.messages.size() - %d) + %s`,
			n, n-1, celString("[more-findings] object: "), n-1,
			celString(fmt.Sprintf(" more lint findings; run evaluate lint on the object to see them all (first %d shown)", n-1))),
	})
	return block, nil
}

// CELValidation is a validation of K8sNativeValidation code: its
// expression, and its message (static) or messageExpression.
type CELValidation struct{ Expression, Message, MessageExpression string }

// CELBlock is a template's K8sNativeValidation code. OME's checks have
// variables and validations; a team's policy may have matchConditions
// and a failurePolicy too.
type CELBlock struct {
	MatchConditions []CELVariable
	Variables       []CELVariable
	Validations     []CELValidation
	FailurePolicy   string
}

// homogenize makes the literals of expr homogeneous
// (celrewrite.Homogenize).
func homogenize(expr string) (string, error) { return celrewrite.Homogenize(expr) }

// CELString writes s as a CEL string literal.
func CELString(s string) string { return celString(s) }

// The plain-CEL stand-ins of the ome library's calls, for the translation
// of a team's rules (rules/admit) as for OME's bundles: each is CEL text
// of its argument(s), an expression or a variable's name.

// StandInIsValid is isOmeVersion(x).
func StandInIsValid(x string) string { return celIsValid(x) }

// StandInProblem is omeVersionProblem(x).
func StandInProblem(x string) string { return celProblem(x) }

// StandInQuote is omeQuote of the string variable v.
func StandInQuote(v string) string { return celQuote(v) }

// StandInGuard is body, of the variable __gv holding x, when x is an OME
// version, else an error, as omeVersion(x) fails on it.
func StandInGuard(x, body string) string { return guardVersion(x, body) }

// StandInVersionMethod is the stand-in of omeVersion(x).name() for the
// methods that read the version's text (hasSuffix, parts, hasV), of the
// variable it is given, or nil.
func StandInVersionMethod(name string) func(string) string { return plainVersionMethods[name] }

// IsCall says whether e calls the function name with n arguments.
func IsCall(e ast.Expr, name string, n int) bool { return isCall(e, name, n) }
