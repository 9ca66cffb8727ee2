// Package rewrite turns Rego modules into library modules that run
// without the project's Go builtins, as Gatekeeper's OPA runs them: the
// project's policy modules for OME's checks (Policy), and a team's own
// rules for their templates (Team). Both work on OPA's syntax tree: the
// package, the imports and the references are changed on the tree, and
// the module is printed with OPA's formatter, comments kept (rego.go).
// admission compiles each check's Rego of the modules it makes.
//
// It imports nothing of the module (OPA's ast and format only).
package rewrite

import (
	"fmt"
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

// PolicyModule is one Rego policy of the project, rewritten for a check's libs.
type PolicyModule struct {
	Source  string   // where it came from, for the header and messages
	Pkg     string   // its package before the rewrite: "ome.match"
	Imports []string // the ome.* packages it refers to: "ome.match"
	Text    string   // the rewritten module
	Given   bool     // it reads given.x where the source reads input.x
	Orig    string   // the module as written, to rewrite it again for a check's given
}

// Policy turns a policy module into a library module that runs without
// the Go builtins: the package ome.X becomes lib.ome.X, every import of
// data.ome.X imports data.lib.ome.X, and every call of a builtin
// ome.version.f, ome.size.f, ome.plan.f or ome.go.f becomes a call of its
// stand-in through an import, ome_version.f, ome_size.f, ome_plan.f or
// ome_go.f. With given (the rules of the template's lib.ome.given, one of
// its SrcLibs), a reference input.x becomes given.x, through an import of
// data.lib.ome.given, when x is one of those rules (other references to
// input are left as they are: they read Gatekeeper's input, in rules the
// template does not use).
//
// A policy names other policy packages through imports only: a reference
// to data.ome... in a rule is refused, so that every reference to a
// library goes through an import, as Gatekeeper rewrites them.
func Policy(source, text string, given map[string]bool) (*PolicyModule, error) {
	m, err := Parse(source, text)
	if err != nil {
		return nil, err
	}
	pkg := m.Package()
	if !strings.HasPrefix(pkg, "ome.") {
		return nil, fmt.Errorf("%s: package %s is not under ome", source, pkg)
	}
	pm := &PolicyModule{Source: source, Pkg: pkg, Orig: text}
	m.SetPackage(LibPrefix + pkg)
	if _, err := m.BuiltinCalls(true); err != nil {
		return nil, err
	}
	imports := map[string]bool{}
	err = m.ImportedRefs(func(ref ast.Ref, _ *ast.Location) (ast.Ref, error) {
		if len(ref) < 2 || !ref[1].Equal(ast.StringTerm("ome")) {
			return ref, nil
		}
		if len(ref) > 2 {
			if s, ok := ref[2].Value.(ast.String); ok && "ome."+string(s) != pkg {
				imports["ome."+string(s)] = true
			}
		}
		return append(ast.Ref{ref[0], ast.StringTerm("lib")}, ref[1:]...), nil
	})
	if err != nil {
		return nil, err
	}
	if given != nil {
		if err := m.inputToGiven(given, pm); err != nil {
			return nil, err
		}
	}
	err = m.Refs(func(ref ast.Ref) (ast.Ref, error) {
		if ref[0].Equal(ast.DefaultRootDocument) && !ref.HasPrefix(ast.MustParseRef("data.inventory")) {
			return nil, fmt.Errorf("%s:%d: %s: refer to other packages through an import (Gatekeeper does not rewrite such a reference)", source, ref[0].Location.Row, ref)
		}
		return nil, nil
	})
	if err != nil {
		return nil, err
	}
	for p := range imports {
		pm.Imports = append(pm.Imports, p)
	}
	sort.Strings(pm.Imports)
	if pm.Text, err = m.Text(); err != nil {
		return nil, err
	}
	return pm, nil
}

// inputToGiven turns input.x into given.x for each x of given.
func (m *Module) inputToGiven(given map[string]bool, pm *PolicyModule) error {
	if m.vars()["given"] {
		for _, r := range m.mod.Rules {
			ast.WalkRefs(r, func(ref ast.Ref) bool {
				if len(ref) > 1 && ref[0].Equal(ast.InputRootDocument) {
					if s, ok := ref[1].Value.(ast.String); ok && given[string(s)] {
						pm.Given = true
					}
				}
				return false
			})
		}
		if pm.Given {
			return fmt.Errorf("%s: given is taken; the template's input (%s) needs it", m.source, GivenPackage)
		}
	}
	err := m.Refs(func(ref ast.Ref) (ast.Ref, error) {
		if len(ref) < 2 || !ref[0].Equal(ast.InputRootDocument) {
			return nil, nil
		}
		if s, ok := ref[1].Value.(ast.String); !ok || !given[string(s)] {
			return nil, nil
		}
		pm.Given = true
		return append(ast.Ref{ast.VarTerm("given")}, ref[1:]...), nil
	})
	if err == nil && pm.Given {
		m.addImport("data."+GivenPackage, "")
	}
	return err
}
