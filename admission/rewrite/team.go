package rewrite

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
)

// A team's own rules (Rego as conftest writes it: input is the object
// under review) rewritten for a Gatekeeper template, whose input is
// Gatekeeper's review: input becomes input.review.object, the calls of
// the ome.* builtins become calls of their plain-Rego stand-in, and the
// rule's own violation sets are renamed, so that the template's violation
// is made of all its sets (TeamViolation).

// ReviewedObject is where a Gatekeeper template finds the object under
// review.
const ReviewedObject = "input.review.object"

// Decisions is the package of a team's template that gives OME's
// decisions (rules.DecisionsDocument, data.evaluate in the rule): the rule's
// references to data.evaluate are to it.
const Decisions = "lib.evaluate"

// RenamedViolation is the name a rule's own violation set (or violation_x)
// takes in its template: violation is the template's.
func RenamedViolation(set string) string { return "evaluate_" + set }

// TeamModule is one module of a team's rule, rewritten.
type TeamModule struct {
	Source string
	Pkg    string // its package: "company.size"
	Text   string
	// Standins are the packages of the stand-in library it imports
	// ("lib.ome.version").
	Standins []string
}

// TeamRule rewrites one module of a team's rule, or of a library it
// imports, for a Gatekeeper template (see above). A module that refers to
// other data than its own package, libraries under lib and data.inventory
// (which Gatekeeper's sync fills) is refused: a template holds nothing
// else.
func TeamRule(source, text string) (*TeamModule, error) {
	mod, err := ast.ParseModuleWithOpts(source, text, ast.ParserOptions{RegoVersion: ast.RegoV1})
	if err != nil {
		return nil, err
	}
	pkg := strings.TrimPrefix(mod.Package.Path.String(), "data.")
	rw := &rewriter{source: source, text: text, mod: mod, seen: map[int]bool{}, imports: map[string]bool{}, pm: &Module{Source: source, Pkg: pkg}}
	tm := &TeamModule{Source: source, Pkg: pkg}
	if err := rw.teamDataRefs(pkg); err != nil {
		return nil, err
	}
	if err := rw.teamInput(); err != nil {
		return nil, err
	}
	if err := rw.teamDecisions(); err != nil {
		return nil, err
	}
	if err := rw.teamViolations(); err != nil {
		return nil, err
	}
	if err := rw.builtinCalls(); err != nil {
		return nil, err
	}
	// The stand-ins' imports, after the package clause, for the
	// namespaces the module calls.
	pkgLoc := mod.Package.Location
	if regexp.MustCompile(`^package\s+`).FindString(text[pkgLoc.Offset:]) == "" {
		return nil, fmt.Errorf("%s: cannot find the package clause", source)
	}
	eol := strings.IndexByte(text[pkgLoc.Offset:], '\n')
	if eol < 0 {
		return nil, fmt.Errorf("%s: nothing after the package clause", source)
	}
	var imps strings.Builder
	for _, ns := range builtinNamespaces {
		if !rw.calls(ns.name) {
			continue
		}
		alias := strings.TrimSuffix(ns.alias, ".")
		if strings.Contains(text, alias) {
			return nil, fmt.Errorf("%s: %s is taken; the stand-in's import needs it", source, alias)
		}
		fmt.Fprintf(&imps, "import %s as %s\n", ns.pkg, alias)
		tm.Standins = append(tm.Standins, strings.TrimPrefix(ns.pkg, "data."))
	}
	if imps.Len() > 0 {
		if err := rw.add(&ast.Location{Offset: pkgLoc.Offset + eol + 1, Row: pkgLoc.Row + 1}, "", "\n"+imps.String()); err != nil {
			return nil, err
		}
	}
	m, err := rw.result()
	if err != nil {
		return nil, err
	}
	tm.Text = m.Text
	sort.Strings(tm.Standins)
	return tm, nil
}

// calls reports whether the module calls a builtin of the namespace.
func (rw *rewriter) calls(namespace string) bool {
	alias := ""
	for _, ns := range builtinNamespaces {
		if ns.name == namespace {
			alias = ns.alias
		}
	}
	for _, e := range rw.edits {
		if e.old == namespace && e.new == alias {
			return true
		}
	}
	return false
}

// teamDataRefs refuses a reference to data other than the module's own
// package, packages under lib and data.inventory.
func (rw *rewriter) teamDataRefs(pkg string) error {
	var walkErr error
	ok := func(ref ast.Ref) bool {
		s := ref.String()
		return strings.HasPrefix(s, "data.lib.") || s == "data.inventory" || strings.HasPrefix(s, "data.inventory.") ||
			isDecisions(ref) || s == "data."+pkg || strings.HasPrefix(s, "data."+pkg+".")
	}
	for _, imp := range rw.mod.Imports {
		if ref, isRef := imp.Path.Value.(ast.Ref); isRef && ref[0].Equal(ast.DefaultRootDocument) && !ok(ref) {
			return fmt.Errorf("%s:%d: imports %s: a Gatekeeper template holds only its rule, libraries in packages under lib, and data.inventory", rw.source, imp.Location.Row, ref)
		}
	}
	for _, r := range rw.mod.Rules {
		ast.WalkRefs(r, func(ref ast.Ref) bool {
			if walkErr == nil && ref[0].Equal(ast.DefaultRootDocument) && !ok(ref) {
				walkErr = fmt.Errorf("%s:%d: %s: a Gatekeeper template holds only its rule, libraries in packages under lib, and data.inventory", rw.source, ref[0].Location.Row, ref)
			}
			return false
		})
	}
	return walkErr
}

// teamInput turns every reference to input into one to the reviewed
// object.
func (rw *rewriter) teamInput() error {
	var walkErr error
	for _, r := range rw.mod.Rules {
		ast.WalkRefs(r, func(ref ast.Ref) bool {
			if walkErr == nil && ref[0].Equal(ast.InputRootDocument) {
				walkErr = rw.add(ref[0].Location, "input", ReviewedObject)
			}
			return false
		})
	}
	return walkErr
}

// isDecisions says whether ref is to OME's decisions (data.evaluate...).
func isDecisions(ref ast.Ref) bool {
	return len(ref) > 1 && ref[0].Equal(ast.DefaultRootDocument) && ref[1].Equal(ast.StringTerm("evaluate"))
}

// teamDecisions turns every reference to OME's decisions, data.evaluate,
// into one to the template's library that gives them (Decisions), in the
// imports and the rules.
func (rw *rewriter) teamDecisions() error {
	edit := func(ref ast.Ref) error {
		if !isDecisions(ref) {
			return nil
		}
		return rw.add(ref[1].Location, "evaluate", Decisions)
	}
	for _, imp := range rw.mod.Imports {
		if ref, ok := imp.Path.Value.(ast.Ref); ok {
			if err := edit(ref); err != nil {
				return err
			}
		}
	}
	var walkErr error
	for _, r := range rw.mod.Rules {
		ast.WalkRefs(r, func(ref ast.Ref) bool {
			if walkErr == nil {
				walkErr = edit(ref)
			}
			return false
		})
	}
	return walkErr
}

// teamViolations renames the rule's own violation sets.
func (rw *rewriter) teamViolations() error {
	for _, r := range rw.mod.Rules {
		ref := r.Head.Ref()
		name := ref[0].Value.String()
		if name != "violation" && !strings.HasPrefix(name, "violation_") {
			continue
		}
		if err := rw.add(r.Head.Location, name, RenamedViolation(name)); err != nil {
			return err
		}
	}
	return nil
}

// TeamViolation is the rule that a template of a team's rule adds to its
// package: Gatekeeper's violation, made of the rule's sets. A constraint
// with the parameter warn set reports the warn sets' messages, else the
// others' (deny, violation): so one template serves a deny constraint and
// a warn one. Each message is a string, or an object whose msg it gives
// and whose field goes to the violation's details.
func TeamViolation(sets map[string]bool) string {
	var b strings.Builder
	b.WriteString("\n# Added by evaluate: Gatekeeper's violation, from the rule's sets of messages.\n")
	names := make([]string, 0, len(sets))
	for s := range sets {
		names = append(names, s)
	}
	sort.Strings(names)
	for _, s := range names {
		from, when := s, "not input.parameters.warn"
		if sets[s] {
			when = "input.parameters.warn"
		}
		if s == "violation" || strings.HasPrefix(s, "violation_") {
			from = RenamedViolation(s)
		}
		fmt.Fprintf(&b, "violation contains {\"msg\": evaluate_msg(m), \"details\": evaluate_details(m)} if {\n\t%s\n\tsome m in %s\n}\n\n", when, from)
	}
	b.WriteString("evaluate_msg(m) := m if is_string(m)\n\nevaluate_msg(m) := m.msg if is_object(m)\n\n")
	b.WriteString("evaluate_details(m) := {} if is_string(m)\n\nevaluate_details(m) := {\"field\": m.field} if {\n\tis_object(m)\n\tm.field\n}\n\n")
	b.WriteString("evaluate_details(m) := {} if {\n\tis_object(m)\n\tnot m.field\n}\n")
	return b.String()
}
