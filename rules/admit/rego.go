package admit

import (
	"fmt"
	"sort"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/ome-policy/evaluator/admission/rewrite"
)

// A team's own rules (Rego as conftest writes it: input is the object
// under review) in a Gatekeeper template, whose input is Gatekeeper's
// review. Every package of the team's that the rule needs, its own among
// them, becomes a library of the template (TeamLibrary): input is read as
// input.review.object, data.evaluate (OME's decisions) as the template's
// library that gives them (Decisions), the calls of the ome.* builtins go
// to their plain-Rego stand-in, and the rule's sets of messages are read
// by the template's entry module (TeamEntry), which makes Gatekeeper's
// violation of them.

// ReviewedObject is where a Gatekeeper template finds the object under
// review.
const ReviewedObject = "input.review.object"

// Decisions is the package of a team's template that gives OME's
// decisions (data.evaluate in the rule): the rule's references to
// data.evaluate are to it.
const Decisions = "lib.evaluate"

// decisionsDocument is where a team's rule reads OME's decisions.
var decisionsDocument = ast.MustParseRef("data.evaluate")

// TeamLibrary is the package that a team's package takes in a template:
// under lib, as Gatekeeper wants a library (lib.company.size), or as it
// is when it is under lib already.
func TeamLibrary(pkg string) string {
	if strings.HasPrefix(pkg, rewrite.LibPrefix) {
		return pkg
	}
	return rewrite.LibPrefix + pkg
}

// TeamModule is one module of a team's rules, rewritten.
type TeamModule struct {
	Source string
	Pkg    string // its package as written: "company.size"
	Text   string
	// Standins are the packages of the stand-in library it imports
	// ("lib.ome.version").
	Standins []string
	// Packages are the team's packages it refers to, as written.
	Packages []string
	// Decisions tells that it reads OME's decisions.
	Decisions bool
}

// Team rewrites one module of a team's rules for a template's libraries
// (see above). packages are every package of the team's rules: a
// reference to data that is none of them, nor OME's decisions, is refused
// with its line, since the template could not hold it (data.inventory
// among them: evaluate lint has no inventory, so a rule that reads it
// would not decide there as it does at admission).
func Team(source, text string, packages map[string]bool) (*TeamModule, error) {
	m, err := rewrite.Parse(source, text)
	if err != nil {
		return nil, err
	}
	tm := &TeamModule{Source: source, Pkg: m.Package()}
	if TeamLibrary(tm.Pkg) != tm.Pkg && packages[TeamLibrary(tm.Pkg)] {
		return nil, fmt.Errorf("%s: package %s takes %s in the template, which package %s of the rules has", source, tm.Pkg, TeamLibrary(tm.Pkg), TeamLibrary(tm.Pkg))
	}
	m.DropDirectives()
	m.SetPackage(TeamLibrary(tm.Pkg))
	refers := map[string]bool{}
	// resolve gives the package in the template of a reference to data
	// (pkg, without data.) and the rest of the reference after it.
	resolve := func(ref ast.Ref, row int) (pkg string, rest ast.Ref, err error) {
		if ref.HasPrefix(decisionsDocument) {
			tm.Decisions = true
			return Decisions, ref[len(decisionsDocument):], nil
		}
		if decisionsDocument.HasPrefix(ref) {
			return "", nil, fmt.Errorf("%s:%d: %s: read OME's decisions as data.evaluate (the template gives that document only)", source, row, ref)
		}
		if p := teamPackage(ref, packages); p != "" {
			refers[p] = true
			return TeamLibrary(p), ref[len(rewrite.DataRef(p)):], nil
		}
		if ref.HasPrefix(ast.MustParseRef("data.inventory")) {
			return "", nil, fmt.Errorf("%s:%d: %s: evaluate lint has no Gatekeeper inventory, so the rule would decide otherwise there; read the objects and OME's decisions as data.evaluate gives them", source, row, ref)
		}
		return "", nil, fmt.Errorf("%s:%d: %s: no file of the rules holds it, and a template holds only the rule's packages and OME's decisions", source, row, ref)
	}
	err = m.ImportedRefs(func(ref ast.Ref, loc *ast.Location) (ast.Ref, error) {
		pkg, rest, err := resolve(ref, loc.Row)
		return append(rewrite.DataRef(pkg), rest...), err
	})
	if err != nil {
		return nil, err
	}
	// A reference to data in a rule goes through an import of its package:
	// Gatekeeper rewrites the imports of a template's libraries, but not a
	// reference in a call's argument, nor a function called by its path.
	aliases := m.Aliases()
	err = m.Refs(func(ref ast.Ref) (ast.Ref, error) {
		switch {
		case ref[0].Equal(ast.InputRootDocument):
			return append(ast.MustParseRef(ReviewedObject), ref[1:]...), nil
		case ref[0].Equal(ast.DefaultRootDocument):
			pkg, rest, err := resolve(ref, ref[0].Location.Row)
			if err != nil {
				return nil, err
			}
			return append(ast.Ref{ast.VarTerm(aliases(pkg))}, rest...), nil
		}
		return nil, nil
	})
	if err != nil {
		return nil, err
	}
	if tm.Standins, err = m.BuiltinCalls(false); err != nil {
		return nil, err
	}
	for p := range refers {
		if p != tm.Pkg {
			tm.Packages = append(tm.Packages, p)
		}
	}
	sort.Strings(tm.Packages)
	if tm.Text, err = m.Text(); err != nil {
		return nil, err
	}
	return tm, nil
}

// teamPackage is the package of packages that ref is in (the longest), or
// "".
func teamPackage(ref ast.Ref, packages map[string]bool) string {
	best := ""
	for p := range packages {
		if ref.HasPrefix(rewrite.DataRef(p)) && len(p) > len(best) {
			best = p
		}
	}
	return best
}

// TeamEntry is the entry module of a team's rule's template, of package
// name: Gatekeeper's violation, made of the sets of the rule's package
// (as TeamLibrary has it). A constraint with the parameter warn reports the
// warn sets' messages (warn[set]), else the others' (deny, violation): so
// one template serves a deny constraint and a warn one. Each message is a
// string, or an object whose msg it gives and whose field goes to the
// violation's details.
func TeamEntry(name, pkg string, warn map[string]bool) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "# Gatekeeper's violation of the team's rule %s: the messages of its sets,\n", pkg)
	b.WriteString("# those of the warn sets when the constraint's parameter warn is true, else\n")
	b.WriteString("# those of its deny and violation sets. Written by evaluate.\n")
	fmt.Fprintf(&b, "package %s\n\nimport data.%s as rule\n\n", name, TeamLibrary(pkg))
	sets := make([]string, 0, len(warn))
	for s := range warn {
		sets = append(sets, s)
	}
	sort.Strings(sets)
	for _, s := range sets {
		when := "not input.parameters.warn"
		if warn[s] {
			when = "input.parameters.warn"
		}
		fmt.Fprintf(&b, "violation contains {\"msg\": message(m), \"details\": details(m)} if {\n\t%s\n\tsome m in rule.%s\n}\n\n", when, s)
	}
	b.WriteString("message(m) := m if is_string(m)\n\n")
	b.WriteString("message(m) := m.msg if {\n\tis_string(m.msg)\n\tis_string(object.get(m, \"field\", \"\"))\n}\n\n")
	b.WriteString("details(m) := {} if is_string(m)\n\n")
	b.WriteString("details(m) := {\"field\": m.field} if {\n\tis_object(m)\n\tis_string(m.field)\n\tm.field != \"\"\n}\n\n")
	b.WriteString("details(m) := {} if {\n\tis_object(m)\n\tobject.get(m, \"field\", \"\") == \"\"\n}\n")
	m, err := rewrite.Parse(name+".rego", b.String())
	if err != nil {
		return "", err
	}
	return m.Text()
}
