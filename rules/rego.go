package rules

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/storage/inmem"

	"github.com/ome-policy/evaluator/builtins/regolib"
	"github.com/ome-policy/evaluator/objects"
)

// regoRules are the Rego rules of a set, compiled together, in two
// groups: those that read OME's decisions (data.evaluate) and the others,
// each asked for by one prepared query: every rule's sets, in order.
type regoRules struct {
	list      []regoRule // every rule, by id
	libraries []string
	plain     regoGroup
	decisions regoGroup // its query reads data.evaluate from store
	store     storage.Store
}

// regoGroup is some of the rules and the query of their sets.
type regoGroup struct {
	list  []regoRule
	query rego.PreparedEvalQuery
}

// regoRule is one package's sets of messages.
type regoRule struct {
	rule Rule
	sets []regoSet
}

// regoSet is one set of a package (deny, warn, violation or one of their
// _-suffixed forms) and the severity of its messages.
type regoSet struct {
	name     string
	severity string
}

// setSeverity is the severity of a set's messages by its name, as conftest
// reads them (deny, deny_x...; Gatekeeper's violation too); "" when the
// rule is none of them.
func setSeverity(name string) string {
	for prefix, sev := range map[string]string{"deny": Error, "violation": Error, "warn": Warning} {
		if name == prefix || strings.HasPrefix(name, prefix+"_") {
			return sev
		}
	}
	return ""
}

// loadRego parses and compiles the Rego sources of files (all of mods but
// the tests) with the ome.* builtins declared. A package with a deny, warn
// or violation set is a rule; such a set that is not a partial set is a
// problem, as is every parse or compile error.
func loadRego(mods map[string]string, files []string) (*regoRules, error) {
	if len(files) == 0 {
		return nil, nil
	}
	var probs Problems
	parsed := map[string]*ast.Module{}
	for _, f := range files {
		m, err := ast.ParseModuleWithOpts(f, mods[f], ast.ParserOptions{RegoVersion: ast.RegoV1, ProcessAnnotation: true})
		if err != nil {
			probs = append(probs, regoProblems(f, err)...)
			continue
		}
		parsed[f] = m
	}
	byID := map[string]*regoRule{}
	var ids []string
	packageFiles := map[string][]string{}
	sort.Strings(files)
	for _, f := range files {
		m := parsed[f]
		if m == nil {
			continue
		}
		id := strings.TrimPrefix(m.Package.Path.String(), "data.")
		packageFiles[id] = append(packageFiles[id], f)
		for _, r := range m.Rules {
			name := r.Head.Ref()[0].Value.String()
			if len(r.Head.Ref()) > 1 || setSeverity(name) == "" {
				continue
			}
			if r.Head.RuleKind() != ast.MultiValue {
				probs = append(probs, &objects.InputError{File: f, Line: r.Location.Row,
					Msg: fmt.Sprintf("%s must be a set of messages: write `%s contains msg if { ... }`", name, name)})
				continue
			}
			rr := byID[id]
			if rr == nil {
				rr = &regoRule{rule: Rule{ID: id, Language: Rego, File: f, Line: m.Package.Location.Row, Description: packageDescription(m)}}
				byID[id] = rr
				ids = append(ids, id)
			}
			if !rr.has(name) {
				rr.sets = append(rr.sets, regoSet{name: name, severity: setSeverity(name)})
			}
		}
	}
	decls := map[string]*ast.Builtin{}
	for _, b := range regolib.Builtins() {
		decls[b.AST().Name] = b.AST()
	}
	compiler := ast.NewCompiler().WithBuiltins(decls).WithDefaultRegoVersion(ast.RegoV1)
	if len(parsed) == len(files) {
		if compiler.Compile(parsed); compiler.Failed() {
			probs = append(probs, regoProblems("", compiler.Errors)...)
		}
	}
	if len(probs) > 0 {
		return nil, probs
	}
	out := &regoRules{}
	for id, fs := range packageFiles {
		if byID[id] == nil {
			out.libraries = append(out.libraries, fs...)
		}
	}
	sort.Strings(out.libraries)
	if len(ids) == 0 {
		return out, nil
	}
	sort.Strings(ids)
	evaluateRef := ast.MustParseRef("data." + DecisionsDocument)
	readsDecisions := func(files []string) bool {
		found := false
		for _, f := range files {
			ast.WalkRefs(parsed[f], func(ref ast.Ref) bool {
				found = found || ref.HasPrefix(evaluateRef) || evaluateRef.HasPrefix(ref) && len(ref) > 1
				return found
			})
		}
		return found
	}
	// A library that reads the decisions may be read by any rule.
	libraryReads := readsDecisions(out.libraries)
	var terms [2][]string
	for _, id := range ids {
		rr := byID[id]
		rr.rule.Files = packageFiles[id]
		rr.rule.Decisions = libraryReads || readsDecisions(rr.rule.Files)
		g := 0
		if rr.rule.Decisions {
			g = 1
		}
		sort.Slice(rr.sets, func(i, j int) bool { return rr.sets[i].name < rr.sets[j].name })
		for _, s := range rr.sets {
			rr.rule.Sets = append(rr.rule.Sets, s.name)
			rr.rule.Severities = addSeverity(rr.rule.Severities, s.severity)
			pkg := ast.MustParseRef("data." + id)
			terms[g] = append(terms[g], pkg.Append(ast.StringTerm(s.name)).String())
		}
		out.list = append(out.list, *rr)
		if g == 0 {
			out.plain.list = append(out.plain.list, *rr)
		} else {
			out.decisions.list = append(out.decisions.list, *rr)
		}
	}
	out.store = inmem.NewWithOpts(inmem.OptRoundTripOnWrite(false))
	for g, group := range []*regoGroup{&out.plain, &out.decisions} {
		if len(group.list) == 0 {
			continue
		}
		opts := append([]func(*rego.Rego){rego.Query("[" + strings.Join(terms[g], ", ") + "]"), rego.Compiler(compiler)}, regolib.Options()...)
		if g == 1 {
			opts = append(opts, rego.Store(out.store))
		}
		q, err := rego.New(opts...).PrepareForEval(context.Background())
		if err != nil {
			return nil, regoProblems("", err)
		}
		group.query = q
	}
	return out, nil
}

func (r *regoRule) has(set string) bool {
	for _, s := range r.sets {
		if s.name == set {
			return true
		}
	}
	return false
}

// addSeverity adds sev to list, most severe first.
func addSeverity(list []string, sev string) []string {
	order := []string{Error, Warning, Info}
	for _, s := range list {
		if s == sev {
			return list
		}
	}
	list = append(list, sev)
	sort.Slice(list, func(i, j int) bool { return indexOf(order, list[i]) < indexOf(order, list[j]) })
	return list
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return len(list)
}

// packageDescription is the package's METADATA title or description.
func packageDescription(m *ast.Module) string {
	for _, a := range m.Annotations {
		if a.Scope != "package" && a.Scope != "subpackages" {
			continue
		}
		if a.Description != "" {
			return strings.TrimSpace(a.Description)
		}
		if a.Title != "" {
			return a.Title
		}
	}
	return ""
}

// regoProblems turns OPA's errors into problems with file and line.
func regoProblems(file string, err error) Problems {
	var errs ast.Errors
	switch e := err.(type) {
	case ast.Errors:
		errs = e
	case *ast.Error:
		errs = ast.Errors{e}
	default:
		return Problems{{File: file, Msg: err.Error()}}
	}
	var out Problems
	for _, e := range errs {
		p := &objects.InputError{File: file, Msg: e.Message}
		if e.Location != nil {
			p.File, p.Line = e.Location.File, e.Location.Row
		}
		out = append(out, p)
	}
	return out
}

func (rr *regoRules) rules() []Rule {
	if rr == nil {
		return nil
	}
	out := make([]Rule, len(rr.list))
	for i, r := range rr.list {
		out[i] = r.rule
	}
	return out
}

// check asks the Rego rules that read no decision about o (view nil), or
// those that do (view given), input being the object.
func (rr *regoRules) check(o *objects.Object, view *View, add func(rule, severity, field, msg string)) Problems {
	group := &rr.plain
	if view != nil {
		group = &rr.decisions
	}
	if len(group.list) == 0 {
		return nil
	}
	input, err := ast.InterfaceToValue(o.Value)
	if err != nil {
		return Problems{{File: o.File, Line: o.Line, Msg: err.Error()}}
	}
	ctx := context.Background()
	if view != nil {
		doc := map[string]any{"objects": view.Objects, "decision": view.Decision}
		if err := storage.WriteOne(ctx, rr.store, storage.AddOp, storage.Path{DecisionsDocument}, doc); err != nil {
			return Problems{{File: o.File, Line: o.Line, Msg: "OME's decisions for the rules: " + err.Error()}}
		}
	}
	rs, err := group.query.Eval(ctx, rego.EvalParsedInput(input))
	if err != nil {
		return Problems{{File: o.File, Line: o.Line, Msg: "evaluating the Rego rules: " + err.Error()}}
	}
	if len(rs) != 1 || len(rs[0].Expressions) != 1 {
		return nil
	}
	sets, _ := rs[0].Expressions[0].Value.([]any)
	var probs Problems
	i := 0
	for _, r := range group.list {
		for _, s := range r.sets {
			if i >= len(sets) {
				break
			}
			msgs, _ := sets[i].([]any)
			i++
			var bad bool
			for _, m := range msgs {
				field, msg, ok := message(m)
				if !ok {
					bad = true
					continue
				}
				add(r.rule.ID, s.severity, field, msg)
			}
			if bad {
				probs = append(probs, &objects.InputError{File: r.rule.File, Line: r.rule.Line,
					Msg: fmt.Sprintf("rule %s: %s holds something else than a message (a string, or an object with msg and an optional field), for %s", r.rule.ID, s.name, o.Ref())})
			}
		}
	}
	return probs
}

// message reads one element of a set: a string, or an object with a
// string msg and an optional string field.
func message(v any) (field, msg string, ok bool) {
	switch m := v.(type) {
	case string:
		return "", m, true
	case map[string]any:
		msg, ok := m["msg"].(string)
		if !ok {
			return "", "", false
		}
		if f, given := m["field"]; given {
			if field, ok = f.(string); !ok {
				return "", "", false
			}
		}
		return field, msg, true
	}
	return "", "", false
}
