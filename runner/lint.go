package runner

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/policies/policyset"
	"github.com/ome-policy/evaluator/results"
	"github.com/ome-policy/evaluator/rules"
)

// The lint run: which rules it reports (RuleFilter, and each object's own
// ignore annotation), each object linted as it is read, then the rules
// about the objects together, and the report lint writes.

// RuleFilter says which rules a lint run reports: every rule but those
// turned off, or only those turned on.
type RuleFilter struct {
	disabled, only map[string]bool
}

// NewRuleFilter turns --disable and --enable-only into a filter; a rule id
// that is not among rules is an error, never silently ignored.
func NewRuleFilter(rules []engine.Rule, disable, enableOnly []string) (RuleFilter, error) {
	var f RuleFilter
	var err error
	if f.disabled, err = ruleSet(rules, disable, "--disable"); err != nil {
		return f, err
	}
	if f.only, err = ruleSet(rules, enableOnly, "--enable-only"); err != nil {
		return f, err
	}
	return f, nil
}

// Keep reports whether the filter keeps a finding of the rule, the object's
// own ignored rules (IgnoredRules) aside.
func (f RuleFilter) Keep(rule string, ignored map[string]bool) bool {
	if rule == engine.RuleInputError {
		return true
	}
	if len(f.only) > 0 && !f.only[rule] {
		return false
	}
	return !f.disabled[rule] && !ignored[rule]
}

func ruleSet(rules []engine.Rule, ids []string, where string) (map[string]bool, error) {
	known := map[string]bool{}
	for _, r := range rules {
		known[r.ID] = true
	}
	out := map[string]bool{}
	for _, id := range ids {
		id = strings.TrimSpace(id)
		if id == "" {
			continue
		}
		if !known[id] {
			return nil, fmt.Errorf("%s: unknown rule %q (evaluate lint --list-rules lists them)", where, id)
		}
		out[id] = true
	}
	return out, nil
}

// IgnoredRules reads the rules an object turns off for itself (the
// annotation evaluate.ome.io/ignore). A rule id that is not among rules
// is a problem that names the annotation; the known ones still apply.
func IgnoredRules(o *objects.Object, rules []engine.Rule) (map[string]bool, *objects.InputError) {
	meta, _ := o.Value["metadata"].(map[string]any)
	annotations, _ := meta["annotations"].(map[string]any)
	v, ok := annotations[engine.IgnoreAnnotation]
	if !ok {
		return nil, nil
	}
	field := objects.JoinPath("metadata.annotations", engine.IgnoreAnnotation)
	s, isString := v.(string)
	if !isString {
		return nil, &objects.InputError{File: o.File, Line: o.LineOf(field), Field: field, Msg: "must be a string of rule ids separated by commas"}
	}
	known := map[string]bool{}
	for _, r := range rules {
		known[r.ID] = true
	}
	out := map[string]bool{}
	var unknown []string
	for _, id := range strings.Split(s, ",") {
		id = strings.TrimSpace(id)
		switch {
		case id == "":
		case known[id]:
			out[id] = true
		default:
			unknown = append(unknown, strconv.Quote(id))
		}
	}
	if len(unknown) > 0 {
		return out, &objects.InputError{File: o.File, Line: o.LineOf(field), Field: field,
			Msg: "unknown rule " + strings.Join(unknown, ", ") + " (evaluate lint --list-rules lists them)"}
	}
	return out, nil
}

// Linted says whether lint reads o: models, runtimes and InferenceServices
// (of which the rules read the fields their CRD lacks and the deployment
// modes).
func Linted(o *objects.Object) bool {
	return o.IsModel() || o.IsRuntime() || o.Kind == objects.KindInferenceService
}

// LintRun lints objects as they are read (Object: each alone), keeping of
// each what the rules about the objects together read, then runs those
// rules (Finish). It keeps the findings that its RuleFilter and each
// object's own ignored rules (IgnoredRules) keep, so that a cluster's whole
// dump is linted in memory that grows with what the set rules read.
type LintRun struct {
	linter     engine.Linter
	rules      []engine.Rule
	filter     RuleFilter
	crossCheck bool
	slimmer    *engine.Slimmer

	// Findings are those kept so far, in the order they were found.
	Findings []engine.Finding
	// Ignored are those that an object's own ignore annotation turned
	// off, and only it.
	Ignored []engine.Finding
	// Objects are the models, runtimes and InferenceServices read, in
	// input order.
	Objects []engine.LintedObject
	// Problems are the objects' ignore annotations that name unknown rules.
	Problems []*objects.InputError
	// Others counts the OME objects that lint does not read (Linted), by
	// kind.
	Others map[string]int
	// Team are a team's rules (LoadRules), run on each object read
	// beside OME's, in their own language whatever the engine; nil: none.
	// Those that read OME's decisions run in Finish, with Decide's.
	Team *rules.Set
	// Decide gives OME's decisions about the objects, for the rules of Team
	// that read them (Decider).
	Decide rules.Decide

	set     []engine.SetObject
	full    []*objects.Object // the objects, when rules read OME's decisions
	ignored []map[string]bool // each object's evaluate.ome.io/ignore
	ids     map[string]bool   // the rules' ids, and input-error's
	release string            // the OME release of the rules (NewLint)
	err     error
}

// NewLintRun starts a lint run of l with the rules of the policies,
// filtered; crossCheck also pairs every model with every runtime OME
// pairs it with.
func NewLintRun(l engine.Linter, rules []engine.Rule, filter RuleFilter, crossCheck bool) *LintRun {
	ids := map[string]bool{engine.RuleInputError: true}
	for _, r := range rules {
		ids[r.ID] = true
	}
	return &LintRun{linter: l, rules: rules, ids: ids, filter: filter, crossCheck: crossCheck, slimmer: engine.NewSlimmer(crossCheck), Others: map[string]int{}}
}

// NewLint starts the lint run of evaluate lint: the lint rules of set on
// the engine named, and a team's own (own), together listed in all
// (WithRules), reporting those that disable and enableOnly leave
// (NewRuleFilter); the team's rules over OME's decisions read set's.
func NewLint(engineName string, set *policyset.Set, all []engine.Rule, team *rules.Set, disable, enableOnly []string, crossCheck bool) (*LintRun, error) {
	filter, err := NewRuleFilter(all, disable, enableOnly)
	if err != nil {
		return nil, err
	}
	linter, err := engine.NewLinter(engineName, set)
	if err != nil {
		return nil, err
	}
	run := NewLintRun(linter, all, filter, crossCheck)
	run.Team, run.Decide, run.release = team, Decider(engineName, set), set.Release
	return run, nil
}

// Object lints one object as it is read. After an error it does nothing;
// Finish returns the error.
func (r *LintRun) Object(o *objects.Object) {
	if r.err != nil {
		return
	}
	if !Linted(o) {
		r.Others[o.Kind]++
		return
	}
	ignored, problem := IgnoredRules(o, r.rules)
	if problem != nil {
		r.Problems = append(r.Problems, problem)
	}
	fs, err := r.linter.Object(o)
	if err != nil {
		r.err = err
		return
	}
	r.keep(fs, ignored)
	team, problems := r.Team.Check(o)
	r.keep(team, ignored)
	r.Problems = append(r.Problems, problems...)
	if r.Team.ReadsDecisions() {
		r.full = append(r.full, o)
	}
	r.Objects = append(r.Objects, engine.LintedObject{Ref: objects.RefOf(o), File: o.File, Line: o.Line})
	r.set = append(r.set, r.slimmer.ForSet(o))
	r.ignored = append(r.ignored, ignored)
}

// Again is a new run of r's linter, rules, filter and team's rules, for
// other objects (a fleet's next cluster): the policies are compiled once.
func (r *LintRun) Again() *LintRun {
	run := NewLintRun(r.linter, r.rules, r.filter, r.crossCheck)
	run.Team, run.Decide, run.release = r.Team, r.Decide, r.release
	return run
}

// Release is the OME release whose rules the run applies.
func (r *LintRun) Release() string { return r.release }

// Err is the error that stopped Object, if any.
func (r *LintRun) Err() error { return r.err }

// Finish runs the rules about the objects together. Those read what
// kubectl apply would leave of the objects (objects.Applied): of the
// objects of one kind, namespace and name, the last; but duplicate-name,
// which names each object a later one replaces, reads them all.
func (r *LintRun) Finish() error {
	if r.err != nil {
		return r.err
	}
	left := objects.Applied(len(r.Objects), func(i int) objects.Ref { return r.Objects[i].Ref })
	applied := r.applied(left)
	fs, err := r.linter.Set(applied, engine.LintOptions{CrossCheck: r.crossCheck})
	if err != nil {
		return err
	}
	if len(applied) < len(r.set) {
		all, err := r.linter.Set(r.set, engine.LintOptions{})
		if err != nil {
			return err
		}
		for _, f := range all {
			if f.Rule == engine.RuleDuplicateName {
				fs = append(fs, f)
			}
		}
	}
	byObject := make(map[engine.LintedObject]map[string]bool, len(r.Objects))
	for i, o := range r.Objects {
		byObject[o] = r.ignored[i]
	}
	for _, f := range fs {
		r.keep([]engine.Finding{f}, byObject[engine.LintedObject{Ref: f.Object, File: f.File, Line: f.ObjectLine}])
	}
	if len(r.full) > 0 && r.err == nil {
		r.err = r.decisionRules(byObject)
	}
	return r.err
}

// decisionRules runs the rules of Team that read OME's decisions, on each
// object that kubectl apply would leave, with every such object and
// Decide's decision about it.
func (r *LintRun) decisionRules(ignored map[engine.LintedObject]map[string]bool) error {
	if r.Decide == nil {
		return fmt.Errorf("rules that read OME's decisions need its decisions: this run gives none")
	}
	fs, problems, err := r.Team.CheckAllDecisions(r.full, r.Decide)
	if err != nil {
		return err
	}
	r.Problems = append(r.Problems, problems...)
	for _, f := range fs {
		r.keep([]engine.Finding{f}, ignored[engine.LintedObject{Ref: f.Object, File: f.File, Line: f.ObjectLine}])
	}
	return nil
}

// applied is the objects of the set that left marks.
func (r *LintRun) applied(left []bool) []engine.SetObject {
	out := make([]engine.SetObject, 0, len(r.set))
	for i, o := range r.set {
		if left[i] {
			out = append(out, o)
		}
	}
	return out
}

func (r *LintRun) keep(fs []engine.Finding, ignored map[string]bool) {
	for _, f := range fs {
		if !r.ids[f.Rule] {
			r.err = fmt.Errorf("the policies give a finding of rule %q, which their %s does not list (evaluate lint --list-rules): list it there, or write it as a team's own rule with --rules", f.Rule, policyset.LintRulesFile)
			return
		}
		switch {
		case r.filter.Keep(f.Rule, ignored):
			r.Findings = append(r.Findings, f)
		case r.filter.Keep(f.Rule, nil):
			r.Ignored = append(r.Ignored, f)
		}
	}
}

// LintReport is what a lint run found, with each input that could not be
// read as an input-error finding, sorted by file, line and rule.
func LintReport(run *LintRun, rules []engine.Rule, problems []*objects.InputError, failOnWarn bool) results.LintReport {
	report := results.LintReport{OMEVersion: run.release, Findings: run.Findings, Ignored: run.Ignored, Objects: run.Objects, FailOnWarn: failOnWarn, Rules: rules}
	for _, p := range problems {
		report.Findings = append(report.Findings, engine.Finding{Rule: engine.RuleInputError, Severity: engine.SeverityError,
			Field: p.Field, File: p.File, Line: p.Line, Message: p.Msg})
	}
	engine.SortFindings(report.Findings)
	engine.SortFindings(report.Ignored)
	return report
}

// LoadRules reads a team's own rules (--rules: files and folders) to run
// beside OME's rules, whose ids they may not take, in the sandbox sb; nil
// without paths. Everything wrong with them is one rules.Problems error.
func LoadRules(paths []string, ome []engine.Rule, sb rules.Sandbox) (*rules.Set, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	ids := make([]string, len(ome))
	for i, r := range ome {
		ids[i] = r.ID
	}
	ids = append(ids, engine.RuleInputError)
	return rules.LoadWith(paths, ids, sb)
}

// WithRules is OME's lint rules followed by the team's, as lint lists,
// filters and describes them.
func WithRules(ome []engine.Rule, team *rules.Set) []engine.Rule {
	if team.Len() == 0 {
		return ome
	}
	out := append([]engine.Rule(nil), ome...)
	for _, r := range team.Rules {
		d := r.Description
		if d == "" {
			d = fmt.Sprintf("a rule of %s", r.File)
		}
		out = append(out, engine.Rule{ID: r.ID, Severity: r.Severity(), Description: d})
	}
	return out
}

// RulesFor reads a team's rules (paths) beside the lint rules of set,
// to run in the sandbox sb, and gives both: OME's, and the team's (nil
// without paths).
func RulesFor(set *policyset.Set, paths []string, sb rules.Sandbox) ([]engine.Rule, *rules.Set, error) {
	ome, err := engine.LintRules(set)
	if err != nil {
		return nil, nil, err
	}
	team, err := LoadRules(paths, ome, sb)
	return ome, team, err
}
