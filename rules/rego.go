package rules

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
	"github.com/open-policy-agent/opa/v1/topdown"

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
	compiler  *ast.Compiler
	sandbox   Sandbox
	mu        sync.Mutex // guards the groups' split, alone and stopped
}

// regoGroup is some of the rules and the query of their sets. Once the
// query fails on an object, each rule is asked on its own (alone), from
// then on: so the rule that fails is named, the others still judge every
// object, and a rule the sandbox stopped (stopped) is asked no more.
type regoGroup struct {
	list    []regoRule
	query   rego.PreparedEvalQuery
	store   bool // the query reads data.evaluate from the store
	split   bool // the rules are asked one by one
	alone   []*rego.PreparedEvalQuery
	stopped []bool
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
func loadRego(mods map[string]string, files []string, sb Sandbox) (*regoRules, error) {
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
	// A call the sandbox refuses is said as such, and nothing compiles:
	// the compiler, which knows none of them, would only say that it does
	// not know them.
	if sp := sandboxProblems(parsed, sb.allowed(), func(name string) string { return sandboxMessage(name, sb.ForBundles) }); len(sp) > 0 {
		return nil, append(probs, sp...)
	}
	decls := map[string]*ast.Builtin{}
	for _, b := range regolib.Builtins() {
		decls[b.AST().Name] = b.AST()
	}
	compiler := ast.NewCompiler().WithBuiltins(decls).WithDefaultRegoVersion(ast.RegoV1).
		WithCapabilities(sandboxCapabilities(sb.allowed()))
	if len(parsed) == len(files) {
		if compiler.Compile(parsed); compiler.Failed() {
			probs = append(probs, regoProblems("", compiler.Errors)...)
		}
	}
	if len(probs) > 0 {
		return nil, probs
	}
	out := &regoRules{compiler: compiler, sandbox: sb}
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
	out.decisions.store = true
	for g, group := range []*regoGroup{&out.plain, &out.decisions} {
		if len(group.list) == 0 {
			continue
		}
		q, err := out.prepare(terms[g], group.store)
		if err != nil {
			return nil, regoProblems("", err)
		}
		group.query = q
		group.alone = make([]*rego.PreparedEvalQuery, len(group.list))
		group.stopped = make([]bool, len(group.list))
	}
	return out, nil
}

// prepare prepares the query of sets (data.<package>["set"], ...), a
// list of their values, with the builtins the rules may call: a builtin
// that fails is an error (strict builtin errors), not an undefined value
// that would read as no finding. store says it reads the decisions of the
// store.
func (rr *regoRules) prepare(sets []string, store bool) (rego.PreparedEvalQuery, error) {
	opts := append([]func(*rego.Rego){rego.Query("[" + strings.Join(sets, ", ") + "]"), rego.Compiler(rr.compiler),
		rego.StrictBuiltinErrors(true)}, regolib.Options()...)
	if store {
		opts = append(opts, rego.Store(rr.store))
	}
	return rego.New(opts...).PrepareForEval(context.Background())
}

// setRefs are the references of a rule's sets, as a query asks them.
func (r regoRule) setRefs() []string {
	pkg := ast.MustParseRef("data." + r.rule.ID)
	out := make([]string, len(r.sets))
	for i, s := range r.sets {
		out[i] = pkg.Append(ast.StringTerm(s.name)).String()
	}
	return out
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
// those that do (view given), input being the object, each within the
// sandbox's limits.
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
	if view != nil {
		doc := map[string]any{"objects": view.Objects, "decision": view.Decision}
		if err := storage.WriteOne(context.Background(), rr.store, storage.AddOp, storage.Path{DecisionsDocument}, doc); err != nil {
			return Problems{{File: o.File, Line: o.Line, Msg: "OME's decisions for the rules: " + err.Error()}}
		}
	}
	rr.mu.Lock()
	split := group.split
	rr.mu.Unlock()
	if !split {
		ctx, done := rr.sandbox.evaluation()
		rs, err := group.query.Eval(ctx, rego.EvalParsedInput(input))
		stop := stopCause(ctx)
		done()
		switch {
		case err == nil:
			return takeSets(group.list, rs, o, add)
		case len(group.list) == 1:
			// The one rule failed: no need to ask it again to know.
			return rr.failed(group, 0, o, err, stop)
		}
		rr.mu.Lock()
		group.split = true
		rr.mu.Unlock()
	}
	var probs Problems
	for i, r := range group.list {
		q, stopped, err := rr.alone(group, i)
		if stopped {
			continue
		}
		if err != nil {
			probs = append(probs, evalProblem(r.rule, "", 0, o, err.Error()))
			continue
		}
		ctx, done := rr.sandbox.evaluation()
		rs, err := q.Eval(ctx, rego.EvalParsedInput(input))
		stop := stopCause(ctx)
		done()
		if err != nil {
			probs = append(probs, rr.failed(group, i, o, err, stop)...)
			continue
		}
		probs = append(probs, takeSets([]regoRule{r}, rs, o, add)...)
	}
	return probs
}

// failed is the problem of the group's rule i, whose evaluation of o
// failed with err, or was stopped by the sandbox (stop): then it is asked
// no more.
func (rr *regoRules) failed(group *regoGroup, i int, o *objects.Object, err error, stop *stopped) Problems {
	r := group.list[i].rule
	if stop == nil {
		return Problems{regoEvalProblem(r, o, err)}
	}
	rr.mu.Lock()
	group.stopped[i] = true
	group.split = true
	rr.mu.Unlock()
	return Problems{stopProblem(r, o, stop)}
}

// alone is the query of the group's rule i on its own, prepared the first
// time it is asked for; stopped says the sandbox stopped the rule.
func (rr *regoRules) alone(group *regoGroup, i int) (*rego.PreparedEvalQuery, bool, error) {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	if group.stopped[i] {
		return nil, true, nil
	}
	if group.alone[i] == nil {
		q, err := rr.prepare(group.list[i].setRefs(), group.store)
		if err != nil {
			return nil, false, err
		}
		group.alone[i] = &q
	}
	return group.alone[i], false, nil
}

// regoEvalProblem is the problem of a Rego rule whose evaluation of o
// failed: at the call that failed when OPA says where, naming the object.
func regoEvalProblem(r Rule, o *objects.Object, err error) *objects.InputError {
	var te *topdown.Error
	if errors.As(err, &te) {
		file, line := "", 0
		if te.Location != nil {
			file, line = te.Location.File, te.Location.Row
		}
		return evalProblem(r, file, line, o, te.Message)
	}
	return evalProblem(r, "", 0, o, err.Error())
}

// takeSets hands add the messages of the rules' sets, rs being the
// values of their sets in order; a set that holds something else than a
// message is a problem naming the rule.
func takeSets(rules []regoRule, rs rego.ResultSet, o *objects.Object, add func(rule, severity, field, msg string)) Problems {
	if len(rs) != 1 || len(rs[0].Expressions) != 1 {
		return nil
	}
	sets, _ := rs[0].Expressions[0].Value.([]any)
	var probs Problems
	i := 0
	for _, r := range rules {
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
