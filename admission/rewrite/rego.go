package rewrite

import (
	"fmt"
	"slices"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/format"
)

// The syntax-tree edits that both rewrites (Policy, OME's modules; Team, a
// team's) are made of: a Module is parsed with OPA's parser, its package,
// imports and references are changed on the tree, and the result is
// printed with OPA's formatter, comments kept.

// Module is one Rego module being rewritten on its syntax tree (Parse),
// then printed (Text).
type Module struct {
	source string
	mod    *ast.Module
	// added are the imports the rewrite adds, by path.
	added map[string]*ast.Import
}

// Parse reads a module as Rego v1, the version of the templates.
func Parse(source, text string) (*Module, error) {
	mod, err := ast.ParseModuleWithOpts(source, text, ast.ParserOptions{RegoVersion: ast.RegoV1})
	if err != nil {
		return nil, err
	}
	return &Module{source: source, mod: mod, added: map[string]*ast.Import{}}, nil
}

// Package is the module's package path without data.: "ome.match".
func (m *Module) Package() string { return strings.TrimPrefix(m.mod.Package.Path.String(), "data.") }

// SetPackage moves the module to the package path p ("lib.ome.match").
func (m *Module) SetPackage(p string) {
	loc := m.mod.Package.Path[0].Location
	ref := DataRef(p)
	for _, t := range ref {
		t.Location = loc
	}
	m.mod.Package.Path = ref
}

// DataRef is the reference data.<path>.
func DataRef(path string) ast.Ref {
	ref := ast.Ref{ast.DefaultRootDocument.Copy()}
	for _, s := range strings.Split(path, ".") {
		ref = append(ref, ast.StringTerm(s))
	}
	return ref
}

// isDirective says whether an import only changes how the module parses
// (rego.v1, future.keywords...): Gatekeeper refuses rego.v1, and a
// template's Rego v1 needs neither.
func isDirective(imp *ast.Import) bool {
	ref, ok := imp.Path.Value.(ast.Ref)
	if !ok || len(ref) == 0 {
		return false
	}
	head := ref[0].Value.String()
	return head == "rego" || head == "future"
}

// DropDirectives removes the directive imports.
func (m *Module) DropDirectives() {
	kept := m.mod.Imports[:0]
	for _, imp := range m.mod.Imports {
		if !isDirective(imp) {
			kept = append(kept, imp)
		}
	}
	m.mod.Imports = kept
}

// ImportedRefs calls f on the path of each import of data, which f may
// change in place (returning the new path) or refuse.
func (m *Module) ImportedRefs(f func(ast.Ref, *ast.Location) (ast.Ref, error)) error {
	for _, imp := range m.mod.Imports {
		ref, ok := imp.Path.Value.(ast.Ref)
		if !ok || !ref[0].Equal(ast.DefaultRootDocument) {
			continue
		}
		name := imp.Name()
		out, err := f(ref, imp.Location)
		if err != nil {
			return err
		}
		if !out.Equal(ref) {
			loc := ref[0].Location
			for _, t := range out {
				if t.Location == nil {
					t.Location = loc
				}
			}
			imp.Path = ast.NewTerm(out).SetLocation(imp.Path.Location)
			// The name the module uses stays the one it imported.
			if imp.Alias == "" && out[len(out)-1].Value.Compare(ast.String(name)) != 0 {
				imp.Alias = name
			}
		}
	}
	return nil
}

// Refs calls f on every reference in the module's rules, outermost first
// (OPA's visitor, which reaches into some ... in, every and with); f gives
// the reference's new value, or nil to leave it.
func (m *Module) Refs(f func(ast.Ref) (ast.Ref, error)) error {
	var err error
	vis := ast.NewGenericVisitor(func(x any) bool {
		t, ok := x.(*ast.Term)
		if !ok || err != nil {
			return err != nil
		}
		ref, ok := t.Value.(ast.Ref)
		if !ok {
			return false
		}
		var out ast.Ref
		if out, err = f(ref); err != nil || out == nil {
			return err != nil
		}
		for _, u := range out {
			if u.Location == nil {
				u.Location = ref[0].Location
			}
		}
		t.Value = out
		return false
	})
	for _, r := range m.mod.Rules {
		vis.Walk(r)
	}
	return err
}

// addImport imports path (a data reference) as alias, once.
func (m *Module) addImport(path, alias string) {
	if _, ok := m.added[path]; ok {
		return
	}
	imp := &ast.Import{Path: ast.NewTerm(ast.MustParseRef(path)), Location: m.mod.Package.Location}
	if alias != "" && !strings.HasSuffix(path, "."+alias) {
		imp.Alias = ast.Var(alias)
	}
	m.added[path] = imp
}

// vars are the variables and rule names the module uses, so that an alias
// the rewrite adds takes none of them.
func (m *Module) vars() map[string]bool {
	out := map[string]bool{}
	ast.WalkVars(m.mod, func(v ast.Var) bool {
		out[string(v)] = true
		return false
	})
	for _, imp := range m.mod.Imports {
		out[string(imp.Name())] = true
	}
	for _, r := range m.mod.Rules {
		out[r.Head.Ref()[0].Value.String()] = true
	}
	return out
}

// Aliases gives, for a package (without data.), the name under which the
// Module imports it: the name of its import, or one it adds, its last
// part, or more of its path joined by "_", so as to take no name the
// Module uses.
func (m *Module) Aliases() func(pkg string) string {
	taken := m.vars()
	given := map[string]string{}
	for _, imp := range m.mod.Imports {
		if ref, ok := imp.Path.Value.(ast.Ref); ok && ref[0].Equal(ast.DefaultRootDocument) {
			given[strings.TrimPrefix(ref.String(), "data.")] = string(imp.Name())
		}
	}
	return func(pkg string) string {
		if a, ok := given[pkg]; ok {
			return a
		}
		parts := strings.Split(pkg, ".")
		alias := ""
		for i := len(parts) - 1; i >= 0; i-- {
			alias = strings.Join(parts[i:], "_")
			if !taken[alias] {
				break
			}
		}
		for n := 2; taken[alias]; n++ {
			alias = fmt.Sprintf("%s_%d", strings.ReplaceAll(pkg, ".", "_"), n)
		}
		taken[alias] = true
		given[pkg] = alias
		m.addImport("data."+pkg, alias)
		return alias
	}
}

// builtinNamespaces are the namespaces of the project's Go builtins and
// the packages of their plain-Rego stand-in (policies/gatekeeper/lib),
// each imported under an alias with "_" for "." (as long as the
// namespace).
var builtinNamespaces = []struct{ name, pkg string }{
	{"ome.version", "data.lib.ome.version"},
	{"ome.size", "data.lib.ome.size"},
	{"ome.plan", "data.lib.ome.plan"},
	{"ome.go", "data.lib.ome.go"},
}

func builtinAlias(namespace string) string { return strings.ReplaceAll(namespace, ".", "_") }

// builtinNamespace is the namespace of the builtin ref calls ("ome.version"
// for ome.version.compare), or "".
func builtinNamespace(ref ast.Ref) string {
	if len(ref) < 3 || !ref[0].Equal(ast.VarTerm("ome")) {
		return ""
	}
	for _, ns := range builtinNamespaces {
		if ref[1].Equal(ast.StringTerm(strings.TrimPrefix(ns.name, "ome."))) {
			return ns.name
		}
	}
	return ""
}

// BuiltinCalls turns each reference to a Go builtin (ome.version.f, ...)
// into one to its stand-in, through an import of the stand-in's package;
// all says to import the four packages whether the Module calls them or
// not. It returns the stand-in packages the Module calls.
func (m *Module) BuiltinCalls(all bool) ([]string, error) {
	taken := m.vars()
	for _, ns := range builtinNamespaces {
		if alias := builtinAlias(ns.name); taken[alias] {
			return nil, fmt.Errorf("%s: %s is taken; the import of the builtins' stand-in needs it", m.source, alias)
		}
	}
	called := map[string]bool{}
	err := m.Refs(func(ref ast.Ref) (ast.Ref, error) {
		ns := builtinNamespace(ref)
		if ns == "" {
			return nil, nil
		}
		called[ns] = true
		return append(ast.Ref{ast.VarTerm(builtinAlias(ns))}, ref[2:]...), nil
	})
	if err != nil {
		return nil, err
	}
	var pkgs []string
	for _, ns := range builtinNamespaces {
		if all || called[ns.name] {
			m.addImport(ns.pkg, builtinAlias(ns.name))
		}
		if called[ns.name] {
			pkgs = append(pkgs, strings.TrimPrefix(ns.pkg, "data."))
		}
	}
	return pkgs, nil
}

// Text prints the Module with OPA's formatter, its imports and those the
// rewrite adds sorted.
func (m *Module) Text() (string, error) {
	for _, imp := range m.added {
		m.mod.Imports = append(m.mod.Imports, imp) // the formatter sorts them
	}
	stringsAsWritten(m.mod)
	want := m.mod.Copy()
	out, err := format.AstWithOpts(m.mod, format.Opts{RegoVersion: ast.RegoV1, DropRedundantDirectiveImports: true})
	if err != nil {
		return "", fmt.Errorf("%s: printing the rewritten Module: %w", m.source, err)
	}
	got, err := ast.ParseModuleWithOpts(m.source, string(out), ast.ParserOptions{RegoVersion: ast.RegoV1})
	if err != nil {
		return "", fmt.Errorf("rewritten %s does not parse: %w", m.source, err)
	}
	// The printed Module must be the rewritten one: a difference is a
	// fault of the printer, never to be written into a bundle.
	want.Comments, got.Comments = nil, nil
	for _, mod := range []*ast.Module{want, got} {
		for _, r := range mod.Rules {
			for ; r != nil; r = r.Else {
				r.Head.Assign = false // p := true if {...} prints as p if {...}
			}
		}
	}
	// The formatter sorts the imports.
	for _, mod := range []*ast.Module{want, got} {
		slices.SortFunc(mod.Imports, (*ast.Import).Compare)
	}
	if !got.Equal(want) {
		return "", fmt.Errorf("rewritten %s: OPA's formatter printed another Module than the rewritten one%s", m.source, firstDifference(want, got))
	}
	return string(out), nil
}

// firstDifference says where two modules first differ.
func firstDifference(want, got *ast.Module) string {
	if !want.Package.Equal(got.Package) || len(want.Imports) != len(got.Imports) || len(want.Rules) != len(got.Rules) {
		return ": package, imports or number of rules"
	}
	for i := range want.Imports {
		if !want.Imports[i].Equal(got.Imports[i]) {
			return fmt.Sprintf(": import %s printed as %s", want.Imports[i], got.Imports[i])
		}
	}
	for i, r := range want.Rules {
		if !r.Equal(got.Rules[i]) {
			return fmt.Sprintf(": at line %d, %s printed as %s", r.Location.Row, r, got.Rules[i])
		}
	}
	return ""
}

// stringsAsWritten gives each string the text of its literal where its
// location holds other text: OPA's formatter writes a string from its
// location's text, from the first quote on.
func stringsAsWritten(mod *ast.Module) {
	ast.NewGenericVisitor(func(x any) bool {
		t, ok := x.(*ast.Term)
		if !ok || t.Location == nil {
			return false
		}
		if s, ok := t.Value.(ast.String); ok {
			text := string(t.Location.Text)
			raw := strings.HasPrefix(text, "`") && strings.HasSuffix(text, "`") && len(text) > 1
			quoted := strings.HasPrefix(text, `"`) && strings.HasSuffix(text, `"`) && len(text) > 1
			if !raw && !quoted {
				loc := *t.Location
				loc.Text = []byte(s.String())
				t.Location = &loc
			}
		}
		return false
	}).Walk(mod)
}
