package gatekeeper

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
)

// Gatekeeper accepts library code only in packages under lib, referred to
// as data.lib...; the project's policies live in packages ome.*.
const libPrefix = "lib."

// policyModule is one Rego policy of the project, rewritten for a
// template's libs.
type policyModule struct {
	source  string   // where it came from, for the header and messages
	pkg     string   // its package before the rewrite: "ome.match"
	imports []string // the ome.* packages it refers to: "ome.match"
	text    string   // the rewritten module
	given   bool     // it reads given.x where the source reads input.x
	orig    string   // the module as written, to rewrite it again for a template's given
}

// The builtin namespaces and the import aliases their stand-ins get. An
// alias has the length of the namespace, so columns stay where they were.
var builtinNamespaces = []struct{ name, alias, pkg string }{
	{"ome.version.", "ome_version.", "data.lib.ome.version"},
	{"ome.size.", "ome_size.", "data.lib.ome.size"},
	{"ome.plan.", "ome_plan.", "data.lib.ome.plan"},
}

// rewritePolicy turns a policy module into a library module that runs
// without the Go builtins: the package ome.X becomes lib.ome.X, every
// import of data.ome.X imports data.lib.ome.X, and every call of a builtin
// ome.version.f, ome.size.f or ome.plan.f becomes a call of the stand-in
// through an import, ome_version.f, ome_size.f or ome_plan.f. With given
// (the rules of the template's lib.ome.given, one of its SrcLibs), a reference
// input.x becomes given.x, through an import of data.lib.ome.given, when x
// is one of those rules (other references to input are left as they are:
// they read Gatekeeper's input, in rules the template does not use). The text is edited in place, at the
// positions the parser reports, so comments and layout stay.
//
// Gatekeeper moves library packages (lib.X becomes libs.lib.X) and rewrites
// the imports and the references that name them, but not a reference inside
// a nested term such as the function of a call in an expression; so library
// code names other library packages through imports only, and a policy that
// refers to data.ome... outside an import is refused here.
func rewritePolicy(source, text string, given map[string]bool) (*policyModule, error) {
	mod, err := ast.ParseModuleWithOpts(source, text, ast.ParserOptions{RegoVersion: ast.RegoV1, ProcessAnnotation: false})
	if err != nil {
		return nil, err
	}
	pkg := strings.TrimPrefix(mod.Package.Path.String(), "data.")
	if !strings.HasPrefix(pkg, "ome.") {
		return nil, fmt.Errorf("%s: package %s is not under ome", source, pkg)
	}
	pm := &policyModule{source: source, pkg: pkg, orig: text}

	type edit struct {
		offset int
		old    string
		new    string
	}
	var edits []edit
	seen := map[int]bool{}
	add := func(loc *ast.Location, old, new string) error {
		if loc == nil {
			return fmt.Errorf("%s: no position for %q", source, old)
		}
		if seen[loc.Offset] {
			return nil
		}
		if !strings.HasPrefix(text[loc.Offset:], old) {
			return fmt.Errorf("%s:%d: expected %q", source, loc.Row, old)
		}
		seen[loc.Offset] = true
		edits = append(edits, edit{loc.Offset, old, new})
		return nil
	}

	// The package clause: the parser places it at the keyword.
	pkgLoc := mod.Package.Location
	m := regexp.MustCompile(`^package\s+`).FindString(text[pkgLoc.Offset:])
	if m == "" {
		return nil, fmt.Errorf("%s: cannot find the package clause", source)
	}
	if err := add(&ast.Location{Offset: pkgLoc.Offset + len(m), Row: pkgLoc.Row}, "ome.", libPrefix+"ome."); err != nil {
		return nil, err
	}
	// The stand-ins' imports go on the line after the package clause.
	eol := strings.IndexByte(text[pkgLoc.Offset:], '\n')
	if eol < 0 {
		return nil, fmt.Errorf("%s: nothing after the package clause", source)
	}
	var imps strings.Builder
	imps.WriteString("\n")
	for _, ns := range builtinNamespaces {
		if strings.Contains(text, strings.TrimSuffix(ns.alias, ".")) {
			return nil, fmt.Errorf("%s: %s is taken; the stand-in's import needs it", source, strings.TrimSuffix(ns.alias, "."))
		}
		fmt.Fprintf(&imps, "import %s as %s\n", ns.pkg, strings.TrimSuffix(ns.alias, "."))
	}
	// input.x becomes given.x ("given" has the length of "input").
	var walkErr error
	if given != nil {
		for _, r := range mod.Rules {
			ast.WalkRefs(r, func(ref ast.Ref) bool {
				if walkErr != nil || len(ref) < 2 || !ref[0].Equal(ast.InputRootDocument) {
					return false
				}
				if s, ok := ref[1].Value.(ast.String); !ok || !given[string(s)] {
					return false
				}
				walkErr = add(ref[0].Location, "input", "given")
				pm.given = true
				return false
			})
		}
		ast.WalkVars(mod, func(v ast.Var) bool {
			if walkErr == nil && pm.given && v == "given" {
				walkErr = fmt.Errorf("%s: given is taken; the template's input (%s) needs it", source, givenPackage)
			}
			return false
		})
		if walkErr != nil {
			return nil, walkErr
		}
		if pm.given {
			fmt.Fprintf(&imps, "import data.%s\n", givenPackage)
		}
	}
	if err := add(&ast.Location{Offset: pkgLoc.Offset + eol + 1, Row: pkgLoc.Row + 1}, "", imps.String()); err != nil {
		return nil, err
	}

	imports := map[string]bool{}
	importRef := func(ref ast.Ref) error {
		if len(ref) < 2 || !ref[0].Equal(ast.DefaultRootDocument) {
			return nil
		}
		if s, ok := ref[1].Value.(ast.String); !ok || s != "ome" {
			return nil
		}
		if len(ref) > 2 {
			if s, ok := ref[2].Value.(ast.String); ok {
				imports["ome."+string(s)] = true
			}
		}
		return add(ref[0].Location, "data.ome.", "data.lib.ome.")
	}
	for _, imp := range mod.Imports {
		if ref, ok := imp.Path.Value.(ast.Ref); ok {
			if err := importRef(ref); err != nil {
				return nil, err
			}
		}
	}
	for _, r := range mod.Rules {
		ast.WalkRefs(r, func(ref ast.Ref) bool {
			if walkErr == nil && ref[0].Equal(ast.DefaultRootDocument) && !ref.HasPrefix(ast.MustParseRef("data.inventory")) {
				walkErr = fmt.Errorf("%s:%d: %s: refer to other packages through an import (Gatekeeper does not rewrite such a reference)", source, ref[0].Location.Row, ref)
			}
			return false
		})
	}
	if walkErr != nil {
		return nil, walkErr
	}

	call := func(op *ast.Term) {
		if walkErr != nil || op == nil {
			return
		}
		name := op.String()
		for _, ns := range builtinNamespaces {
			if strings.HasPrefix(name, ns.name) {
				walkErr = add(op.Location, ns.name, ns.alias)
				return
			}
		}
	}
	ast.WalkExprs(mod, func(e *ast.Expr) bool {
		if terms, ok := e.Terms.([]*ast.Term); ok && e.IsCall() {
			call(terms[0])
		}
		return false
	})
	ast.WalkTerms(mod, func(t *ast.Term) bool {
		if c, ok := t.Value.(ast.Call); ok && len(c) > 0 {
			call(c[0])
		}
		return false
	})
	if walkErr != nil {
		return nil, walkErr
	}

	sort.Slice(edits, func(i, j int) bool { return edits[i].offset > edits[j].offset })
	out := text
	for _, e := range edits {
		out = out[:e.offset] + e.new + out[e.offset+len(e.old):]
	}
	for p := range imports {
		if p != pkg {
			pm.imports = append(pm.imports, p)
		}
	}
	sort.Strings(pm.imports)
	pm.text = out
	return pm, checkRewritten(source, out)
}

// checkRewritten parses the rewritten module and makes sure that no call of
// a Go builtin and no reference to data.ome is left.
func checkRewritten(source, text string) error {
	mod, err := ast.ParseModuleWithOpts(source, text, ast.ParserOptions{RegoVersion: ast.RegoV1})
	if err != nil {
		return fmt.Errorf("rewritten %s does not parse: %w", source, err)
	}
	var bad []string
	ast.WalkRefs(mod, func(ref ast.Ref) bool {
		s := ref.String()
		if strings.HasPrefix(s, "data.ome.") {
			bad = append(bad, s)
		}
		for _, ns := range builtinNamespaces {
			if strings.HasPrefix(s, ns.name) {
				bad = append(bad, s)
			}
		}
		return false
	})
	if len(bad) > 0 {
		return fmt.Errorf("rewritten %s still refers to %s", source, strings.Join(bad, ", "))
	}
	return nil
}
