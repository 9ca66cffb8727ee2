package admission

import (
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"gopkg.in/yaml.v3"

	"github.com/ome-policy/evaluator/admission/rewrite"
	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/policies/policyset"
	"github.com/ome-policy/evaluator/rules"
)

// The intermediate form of the bundles: the checks of a release, built
// from the Rego policies (rewritten to call the plain-Rego stand-in) and,
// for OMEVersionLint, the CEL policies. admission/gatekeeper writes each
// as a ConstraintTemplate; admission/vap and admission/kyverno write the
// CEL code of the one that has it.

// Check is one admission check of a release, compiled for every target:
// its Gatekeeper names (Name, Kind, Title, Parameters), its Rego with the
// library modules it needs, and its CEL code, if any.
type Check struct {
	Name  string // metadata.name and folder: omeruntimeselection
	Kind  string // the constraint kind: OMERuntimeSelection
	Title string
	// Release is the OME release whose rules the template holds, for its
	// annotation policyset.ReleaseAnnotation.
	Release string
	// Description says what the template does, for its annotation: what
	// Release checks, and nothing that it does not.
	Description string
	// Entry is the entry-point module (the violation rule), under src/.
	Entry string
	// CELSource, when set, is the template's K8sNativeValidation code
	// under src/ (a celSource).
	CELSource string
	// SrcLibs are more library modules of the template, under src/. The
	// one of package lib.ome.given, if any, gives the policies their
	// input: a policy's input.x is given.x in the template, for each rule
	// x of it (see rewrite.Policy).
	SrcLibs []string
	// Parameters is the openAPIV3Schema of the constraint's parameters.
	Parameters *yaml.Node
	// Team is the team's rule the check is made of (TeamCheck,
	// TeamCELCheck); nil for OME's checks.
	Team *rules.Rule

	// Filled in by the generator.
	Generator string        // how the headers say the files are made (Generator)
	rerun     string        // what the headers say to run after a change (rerun)
	Rego      string        // the entry module
	Libs      []LibModule   // the rewritten policies, then the stand-in
	CEL       *CELBlock     // the K8sNativeValidation code, if any
	Sources   []string      // every source file, for the header
	modules   []*ast.Module // parsed, for tests
}

// SelectionKind is the constraint kind of OME's runtime selection check.
const SelectionKind = "OMERuntimeSelection"

// checkDefs are the checks of set's release.
func checkDefs(set *policyset.Set) []*Check {
	r := set.Release
	return []*Check{
		{
			Name:    "omeruntimeselection",
			Kind:    SelectionKind,
			Title:   "OME runtime selection (" + r + ")",
			Release: r,
			Description: "Rejects an InferenceService that OME " + r + "'s admission webhook would reject, with " +
				"OME's message. " + set.WebhookSummary() + " Models and runtimes come from data.inventory: sync " +
				"BaseModel, ClusterBaseModel, ServingRuntime and ClusterServingRuntime (sync.yaml).",
			Entry:   "src/omeruntimeselection.rego",
			SrcLibs: []string{"src/omeruntimeselection.given.rego", "src/omeruntimeselection.inventory.rego", "src/omeruntimeselection.refusal.rego"},
			Parameters: Mapping(
				"type", "object",
				"properties", Mapping(
					"validateNamedRuntime", Mapping(
						"type", "boolean",
						"default", false,
						"description", "Also reject an InferenceService whose spec.runtime.name names a runtime "+
							"that OME's controller will refuse (missing, disabled, or not supporting the model). "+
							"OME's webhook does not check it; false reproduces OME.",
					),
				),
			),
		},
		{
			Name:    "omeversionlint",
			Kind:    "OMEVersionLint",
			Title:   "OME version lint (" + r + ")",
			Release: r,
			Description: "Refuses models and runtimes whose versions, operators or formats can never match " +
				"as OME " + r + " reads them, with the rule ids and messages of `evaluate lint --ome-version " + r +
				"` (single-object rules). " +
				"The same rules in Rego and in CEL (K8sNativeValidation, which Gatekeeper prefers and " +
				"can turn into a ValidatingAdmissionPolicy).",
			Entry:     "src/omeversionlint.rego",
			SrcLibs:   []string{"src/omeversionlint.given.rego"},
			CELSource: "src/omeversionlint.cel.yaml",
			Parameters: Mapping(
				"type", "object",
				"properties", Mapping(
					"severities", Mapping(
						"type", "array",
						"items", Mapping("type", "string", "enum", []string{"error", "warning"}),
						"default", []string{"error"},
						"description", "The severities of the lint rules this constraint enforces.",
					),
				),
			),
		},
	}
}

// policySource is where a policy file came from, as the headers say it.
func policySource(set *policyset.Set, f policyset.File) string {
	if set.Origin == "embedded" {
		return "policies/" + f.Path
	}
	return set.Where(f)
}

// changeSources are where the release changes applied to a policy file
// came from (policyset.File.Changes), as the headers say them.
func changeSources(set *policyset.Set, f policyset.File) []string {
	var out []string
	for _, c := range f.Changes {
		out = append(out, policySource(set, policyset.File{Path: c}))
	}
	return out
}

// Generator is how the headers of set's bundle say it is made: for the
// newest release, the committed bundle's command; for another, the
// command with its --ome-version.
func Generator(set *policyset.Set) string {
	if set.Release == set.Newest() {
		return "`evaluate gatekeeper` (make bundles)"
	}
	return "`evaluate gatekeeper --ome-version " + set.Release + "`"
}

// rerun is what the headers of set's bundle say to run after a change.
func rerun(set *policyset.Set) string {
	if set.Release == set.Newest() {
		return "`make bundles`"
	}
	return "`evaluate gatekeeper --ome-version " + set.Release + "`"
}

// Checks builds the checks from the policies of set: each
// entry point of src/ with the policy packages it needs, rewritten to call
// the stand-in, and the stand-in itself.
func Checks(set *policyset.Set) ([]*Check, error) {
	byPkg := map[string][]*rewrite.PolicyModule{}
	changes := map[string][]string{} // by policySource
	for _, f := range set.Sources(engine.Rego, false) {
		text, err := f.Source()
		if err != nil {
			return nil, err
		}
		pm, err := rewrite.Policy(policySource(set, f), text, nil)
		if err != nil {
			return nil, err
		}
		byPkg[pm.Pkg] = append(byPkg[pm.Pkg], pm)
		changes[pm.Source] = changeSources(set, f)
	}
	var out []*Check
	for _, t := range checkDefs(set) {
		t.Generator, t.rerun = Generator(set), rerun(set)
		b, err := fs.ReadFile(sources, t.Entry)
		if err != nil {
			return nil, err
		}
		t.Rego = string(b)
		entry, err := ast.ParseModuleWithOpts(t.Entry, t.Rego, ast.ParserOptions{RegoVersion: ast.RegoV1})
		if err != nil {
			return nil, err
		}
		var srcLibs []LibModule
		var givenRules map[string]bool
		imports := slices.Clone(entry.Imports)
		for _, p := range t.SrcLibs {
			lib, rules, libImports, err := srcLib(p)
			if err != nil {
				return nil, err
			}
			srcLibs = append(srcLibs, *lib)
			imports = append(imports, libImports...)
			if rules != nil {
				givenRules = rules
			}
		}
		// The policy packages the entry point uses, and theirs in turn.
		need := map[string]bool{}
		var queue []string
		for _, imp := range imports {
			p := strings.TrimPrefix(imp.Path.String(), "data.lib.")
			if strings.HasPrefix(p, "ome.") && byPkg[p] != nil {
				queue = append(queue, p)
			}
		}
		for len(queue) > 0 {
			p := queue[0]
			queue = queue[1:]
			if need[p] {
				continue
			}
			need[p] = true
			for _, pm := range byPkg[p] {
				queue = append(queue, pm.Imports...)
			}
		}
		var mods []*rewrite.PolicyModule
		for p := range need {
			for _, pm := range byPkg[p] {
				if givenRules != nil {
					// Rewritten again, to read the template's given.
					if pm, err = rewrite.Policy(pm.Source, pm.Orig, givenRules); err != nil {
						return nil, err
					}
				}
				mods = append(mods, pm)
			}
		}
		sort.Slice(mods, func(i, j int) bool { return mods[i].Source < mods[j].Source })
		for _, pm := range mods {
			t.Sources = append(t.Sources, pm.Source)
			t.Sources = append(t.Sources, changes[pm.Source]...)
			t.Libs = append(t.Libs, LibModule{Path: pm.Source, Text: libHeader(pm, changes[pm.Source], t.rerun) + pm.Text})
		}
		t.Sources = append(t.Sources, "policies/gatekeeper/"+t.Entry)
		for _, m := range srcLibs {
			t.Sources = append(t.Sources, "policies/gatekeeper/"+m.Path)
			t.Libs = append(t.Libs, m)
		}
		for _, m := range Lib() {
			t.Sources = append(t.Sources, "policies/gatekeeper/"+m.Path)
			t.Libs = append(t.Libs, m)
		}
		if t.modules, err = compileCheck(t); err != nil {
			return nil, fmt.Errorf("template %s: %w", t.Name, err)
		}
		if t.CELSource != "" {
			if t.CEL, err = checkCEL(set, t); err != nil {
				return nil, fmt.Errorf("template %s: %w", t.Name, err)
			}
		}
		out = append(out, t)
	}
	return out, nil
}

// srcLib reads one of a template's SrcLibs: the module, its imports, and
// when its package is lib.ome.given, the names of its rules (nil
// otherwise).
func srcLib(p string) (*LibModule, map[string]bool, []*ast.Import, error) {
	b, err := fs.ReadFile(sources, p)
	if err != nil {
		return nil, nil, nil, err
	}
	m, err := ast.ParseModuleWithOpts(p, string(b), ast.ParserOptions{RegoVersion: ast.RegoV1})
	if err != nil {
		return nil, nil, nil, err
	}
	var rules map[string]bool
	if strings.TrimPrefix(m.Package.Path.String(), "data.") == rewrite.GivenPackage {
		rules = map[string]bool{}
		for _, r := range m.Rules {
			rules[r.Head.Name.String()] = true
		}
	}
	return &LibModule{Path: p, Text: string(b)}, rules, m.Imports, nil
}

// checkCEL builds a template's K8sNativeValidation code from its
// src/*.cel.yaml and the project's CEL policies.
func checkCEL(set *policyset.Set, t *Check) (*CELBlock, error) {
	b, err := fs.ReadFile(sources, t.CELSource)
	if err != nil {
		return nil, err
	}
	var src celSource
	if err := yaml.Unmarshal(b, &src); err != nil {
		return nil, fmt.Errorf("%s: %w", t.CELSource, err)
	}
	policies, files, err := celPolicies(set, func(name string) bool { _, ok := src.Include[name]; return ok })
	if err != nil {
		return nil, err
	}
	t.Sources = append(t.Sources, files...)
	t.Sources = append(t.Sources, "policies/gatekeeper/"+t.CELSource)
	return celCode(src, policies)
}

// libHeader heads a rewritten policy module: where it came from (with the
// release changes applied to it), what the rewriting did, and what to run
// after a change.
func libHeader(pm *rewrite.PolicyModule, changes []string, rerun string) string {
	given := ""
	if pm.Given {
		given = " Where the source reads input.x, for a rule x of\n# the template's " + rewrite.GivenPackage + ", it reads given.x."
	}
	source := pm.Source
	if len(changes) > 0 {
		source += " with the changes of " + strings.Join(changes, " and ")
	}
	return fmt.Sprintf(`# %s: %s, rewritten by `+"`evaluate gatekeeper`"+` for Gatekeeper.
# Package %s is %s here, its imports of data.ome.* import data.lib.ome.*,
# and the calls of the Go builtins ome.version.f and ome.size.f are calls
# of their plain-Rego stand-in (policies/gatekeeper/lib) through the
# imports ome_version and ome_size.%s Do not edit: change the source and run
# %s.
`, rewrite.LibPrefix+pm.Pkg, source, pm.Pkg, rewrite.LibPrefix+pm.Pkg, given, rerun)
}

// compileCheck compiles a template's entry module and libs as Gatekeeper
// does: Rego v1, with OPA's own builtins only (no ome.* builtin).
func compileCheck(t *Check) ([]*ast.Module, error) {
	modules := map[string]*ast.Module{}
	var list []*ast.Module
	parse := func(name, text string) error {
		m, err := ast.ParseModuleWithOpts(name, text, ast.ParserOptions{RegoVersion: ast.RegoV1})
		if err != nil {
			return err
		}
		modules[name] = m
		list = append(list, m)
		return nil
	}
	if err := parse("template.rego", t.Rego); err != nil {
		return nil, err
	}
	for i, l := range t.Libs {
		if !strings.HasPrefix(strings.TrimPrefix(mustPackage(l.Text), "data."), rewrite.LibPrefix) {
			return nil, fmt.Errorf("lib %s: Gatekeeper needs library packages under lib", l.Path)
		}
		if err := parse(fmt.Sprintf("lib_%d.rego", i), l.Text); err != nil {
			return nil, err
		}
	}
	c := ast.NewCompiler().WithCapabilities(ast.CapabilitiesForThisVersion())
	c.Compile(modules)
	if c.Failed() {
		return nil, c.Errors
	}
	if c.GetRules(ast.MustParseRef("data."+mustPackage(t.Rego)[len("data."):]+".violation")) == nil {
		return nil, fmt.Errorf("the entry point has no violation rule")
	}
	return list, nil
}

func mustPackage(text string) string {
	m, err := ast.ParseModuleWithOpts("", text, ast.ParserOptions{RegoVersion: ast.RegoV1})
	if err != nil {
		return ""
	}
	return m.Package.Path.String()
}
