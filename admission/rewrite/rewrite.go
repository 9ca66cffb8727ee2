// Package rewrite turns the project's Rego policy modules into library
// modules that run without its Go builtins, as Gatekeeper's OPA runs
// them: packages under lib., imports of data.lib.ome.*, the builtins'
// calls turned into calls of their plain-Rego stand-in
// (policies/gatekeeper/lib), and, for a check that gives its policies
// their input, input.x read as given.x. admission compiles each check's
// Rego of the modules it makes.
//
// It imports nothing of the module (OPA's ast only).
package rewrite

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
)

// Gatekeeper accepts library code only in packages under lib, referred to
// as data.lib...; the project's policies live in packages ome.*.
const LibPrefix = "lib."

// GivenPackage is the package of the module that gives a check's
// policies their input.
const GivenPackage = "lib.ome.given"

// Module is one Rego policy of the project, rewritten for a check's libs.
type Module struct {
	Source  string   // where it came from, for the header and messages
	Pkg     string   // its package before the rewrite: "ome.match"
	Imports []string // the ome.* packages it refers to: "ome.match"
	Text    string   // the rewritten module
	Given   bool     // it reads given.x where the source reads input.x
	Orig    string   // the module as written, to rewrite it again for a check's given
}

// The builtin namespaces and the import aliases their stand-ins get. An
// alias has the length of the namespace, so columns stay where they were.
var builtinNamespaces = []struct{ name, alias, pkg string }{
	{"ome.version.", "ome_version.", "data.lib.ome.version"},
	{"ome.size.", "ome_size.", "data.lib.ome.size"},
	{"ome.plan.", "ome_plan.", "data.lib.ome.plan"},
	{"ome.go.", "ome_go.", "data.lib.ome.go"},
}

// Policy turns a policy module into a library module that runs
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
func Policy(source, text string, given map[string]bool) (*Module, error) {
	mod, err := ast.ParseModuleWithOpts(source, text, ast.ParserOptions{RegoVersion: ast.RegoV1, ProcessAnnotation: false})
	if err != nil {
		return nil, err
	}
	pkg := strings.TrimPrefix(mod.Package.Path.String(), "data.")
	if !strings.HasPrefix(pkg, "ome.") {
		return nil, fmt.Errorf("%s: package %s is not under ome", source, pkg)
	}
	rw := &rewriter{
		source: source, text: text, mod: mod, seen: map[int]bool{}, imports: map[string]bool{},
		pm: &Module{Source: source, Pkg: pkg, Orig: text},
	}
	for _, step := range []func() error{
		func() error { return rw.packageAndImports(given) },
		rw.dataImports,
		rw.noOtherDataRefs,
		rw.builtinCalls,
	} {
		if err := step(); err != nil {
			return nil, err
		}
	}
	return rw.result()
}

// rewriter holds Policy's edits of one module's text: each replaces
// old at an offset with new, and each offset is edited once.
type rewriter struct {
	source, text string
	mod          *ast.Module
	pm           *Module
	edits        []textEdit
	seen         map[int]bool
	imports      map[string]bool // the ome.X packages the module imports
}

type textEdit struct {
	offset   int
	old, new string
}

// add records an edit at loc, which must hold old.
func (rw *rewriter) add(loc *ast.Location, old, new string) error {
	if loc == nil {
		return fmt.Errorf("%s: no position for %q", rw.source, old)
	}
	if rw.seen[loc.Offset] {
		return nil
	}
	if !strings.HasPrefix(rw.text[loc.Offset:], old) {
		return fmt.Errorf("%s:%d: expected %q", rw.source, loc.Row, old)
	}
	rw.seen[loc.Offset] = true
	rw.edits = append(rw.edits, textEdit{loc.Offset, old, new})
	return nil
}

// packageAndImports moves the package under lib., and puts the stand-ins'
// imports (and, with given, the template's input) on the line after the
// package clause.
func (rw *rewriter) packageAndImports(given map[string]bool) error {
	// The package clause: the parser places it at the keyword.
	pkgLoc := rw.mod.Package.Location
	m := regexp.MustCompile(`^package\s+`).FindString(rw.text[pkgLoc.Offset:])
	if m == "" {
		return fmt.Errorf("%s: cannot find the package clause", rw.source)
	}
	if err := rw.add(&ast.Location{Offset: pkgLoc.Offset + len(m), Row: pkgLoc.Row}, "ome.", LibPrefix+"ome."); err != nil {
		return err
	}
	eol := strings.IndexByte(rw.text[pkgLoc.Offset:], '\n')
	if eol < 0 {
		return fmt.Errorf("%s: nothing after the package clause", rw.source)
	}
	var imps strings.Builder
	imps.WriteString("\n")
	for _, ns := range builtinNamespaces {
		if strings.Contains(rw.text, strings.TrimSuffix(ns.alias, ".")) {
			return fmt.Errorf("%s: %s is taken; the stand-in's import needs it", rw.source, strings.TrimSuffix(ns.alias, "."))
		}
		fmt.Fprintf(&imps, "import %s as %s\n", ns.pkg, strings.TrimSuffix(ns.alias, "."))
	}
	if given != nil {
		if err := rw.inputToGiven(given); err != nil {
			return err
		}
		if rw.pm.Given {
			fmt.Fprintf(&imps, "import data.%s\n", GivenPackage)
		}
	}
	return rw.add(&ast.Location{Offset: pkgLoc.Offset + eol + 1, Row: pkgLoc.Row + 1}, "", imps.String())
}

// inputToGiven turns input.x into given.x ("given" has the length of
// "input") for each x of given.
func (rw *rewriter) inputToGiven(given map[string]bool) error {
	var walkErr error
	for _, r := range rw.mod.Rules {
		ast.WalkRefs(r, func(ref ast.Ref) bool {
			if walkErr != nil || len(ref) < 2 || !ref[0].Equal(ast.InputRootDocument) {
				return false
			}
			if s, ok := ref[1].Value.(ast.String); !ok || !given[string(s)] {
				return false
			}
			walkErr = rw.add(ref[0].Location, "input", "given")
			rw.pm.Given = true
			return false
		})
	}
	ast.WalkVars(rw.mod, func(v ast.Var) bool {
		if walkErr == nil && rw.pm.Given && v == "given" {
			walkErr = fmt.Errorf("%s: given is taken; the template's input (%s) needs it", rw.source, GivenPackage)
		}
		return false
	})
	return walkErr
}

// dataImports turns each import of data.ome.X into data.lib.ome.X, and
// notes the packages imported.
func (rw *rewriter) dataImports() error {
	for _, imp := range rw.mod.Imports {
		ref, ok := imp.Path.Value.(ast.Ref)
		if !ok || len(ref) < 2 || !ref[0].Equal(ast.DefaultRootDocument) {
			continue
		}
		if s, ok := ref[1].Value.(ast.String); !ok || s != "ome" {
			continue
		}
		if len(ref) > 2 {
			if s, ok := ref[2].Value.(ast.String); ok {
				rw.imports["ome."+string(s)] = true
			}
		}
		if err := rw.add(ref[0].Location, "data.ome.", "data.lib.ome."); err != nil {
			return err
		}
	}
	return nil
}

// noOtherDataRefs refuses a rule that refers to data outside an import
// (other than data.inventory), which Gatekeeper would not rewrite.
func (rw *rewriter) noOtherDataRefs() error {
	var walkErr error
	for _, r := range rw.mod.Rules {
		ast.WalkRefs(r, func(ref ast.Ref) bool {
			if walkErr == nil && ref[0].Equal(ast.DefaultRootDocument) && !ref.HasPrefix(ast.MustParseRef("data.inventory")) {
				walkErr = fmt.Errorf("%s:%d: %s: refer to other packages through an import (Gatekeeper does not rewrite such a reference)", rw.source, ref[0].Location.Row, ref)
			}
			return false
		})
	}
	return walkErr
}

// builtinCalls turns each call of a Go builtin (ome.version.f, ...) into a
// call of its stand-in through the import (ome_version.f, ...), in
// expressions and in nested calls alike.
func (rw *rewriter) builtinCalls() error {
	var walkErr error
	call := func(op *ast.Term) {
		if walkErr != nil || op == nil {
			return
		}
		name := op.String()
		for _, ns := range builtinNamespaces {
			if strings.HasPrefix(name, ns.name) {
				walkErr = rw.add(op.Location, ns.name, ns.alias)
				return
			}
		}
	}
	ast.WalkExprs(rw.mod, func(e *ast.Expr) bool {
		if terms, ok := e.Terms.([]*ast.Term); ok && e.IsCall() {
			call(terms[0])
		}
		return false
	})
	ast.WalkTerms(rw.mod, func(t *ast.Term) bool {
		if c, ok := t.Value.(ast.Call); ok && len(c) > 0 {
			call(c[0])
		}
		return false
	})
	return walkErr
}

// result makes the edits, from the last offset to the first, and checks
// the module they give.
func (rw *rewriter) result() (*Module, error) {
	sort.Slice(rw.edits, func(i, j int) bool { return rw.edits[i].offset > rw.edits[j].offset })
	out := rw.text
	for _, e := range rw.edits {
		out = out[:e.offset] + e.new + out[e.offset+len(e.old):]
	}
	for p := range rw.imports {
		if p != rw.pm.Pkg {
			rw.pm.Imports = append(rw.pm.Imports, p)
		}
	}
	sort.Strings(rw.pm.Imports)
	rw.pm.Text = out
	return rw.pm, checkRewritten(rw.source, out)
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
