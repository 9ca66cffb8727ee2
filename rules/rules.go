// Package rules holds a team's own rules, beside OME's: read from the
// paths of --rules, checked, and run on each object in the language they
// are written in, whatever engine runs OME's rules.
//
// Two languages, as teams already write them:
//
//   - Rego as conftest writes it (rego.go): any package whose deny, warn
//     or violation rules (or deny_*, warn_*, violation_*) are partial
//     sets of messages, each a string or an object with msg and an
//     optional field; input is the object under review; every ome.*
//     builtin may be called. Files named *_test.rego are the rules' unit
//     tests (TestFiles), which evaluate test runs.
//   - CEL as a Kubernetes ValidatingAdmissionPolicy (vap.go), of
//     admissionregistration.k8s.io/v1: its matchConstraints select the
//     kinds, its validations judge object, and the ome CEL library may be
//     called; a ValidatingAdmissionPolicyBinding beside it sets the
//     severity (Deny: an error, Warn: a warning, Audit: an info; no
//     binding: an error).
//
// A rule's id is its Rego package path or its policy's name. This package
// imports the builtins' adapters and objects, nothing of the engines.
package rules

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/ome-policy/evaluator/engine/answer"
	"github.com/ome-policy/evaluator/input"
	"github.com/ome-policy/evaluator/objects"
)

// Languages of a rule.
const (
	Rego = "rego"
	CEL  = "cel"
)

// Severities a rule gives.
const (
	Error   = "error"
	Warning = "warning"
	Info    = "info"
)

// Rule is one of a team's rules.
type Rule struct {
	ID       string // the Rego package path, or the policy's name
	Language string // Rego or CEL
	File     string // where it is written
	Line     int
	// Severities are those its findings may have, most severe first.
	Severities []string
	// Description is the Rego package's METADATA title or description, or
	// the policy's first validation message; else empty.
	Description string

	// Sets are a Rego rule's sets of messages (deny, warn_x...), sorted.
	Sets []string
	// Files are the files of a Rego rule's package, sorted.
	Files []string
	// Policy is a policy's document as written; Bindings are its bindings.
	Policy   map[string]any
	Bindings []map[string]any
	// Kinds are the kinds of OME a policy judges (names and labels aside);
	// ByName tells that its matchConstraints name objects
	// (resourceNames), not kinds alone.
	Kinds  []string
	ByName bool
	// Decisions tells that the rule reads OME's decisions (View): its
	// Rego reads data.evaluate, its CEL the variable evaluate.
	Decisions bool
}

// DecisionsDocument is where a rule reads OME's decisions: data.evaluate
// in Rego, the variable evaluate in CEL. It holds objects, every model,
// runtime and InferenceService of the input (as kubectl apply would leave
// them), and decision, OME's decision about the object under review:
//
//   - a model: {"runtimes": [...]}, the runtimes that accept it, of those
//     OME pairs it with (its namespace's and the cluster's);
//   - a runtime: {"models": [...]}, the models it accepts;
//   - an InferenceService: {"admitted": bool, "message": string, "check":
//     string, "runtime": ref or null, "model": ref or null}, OME's webhook
//     verdict and the runtime it selects;
//
// where a ref is {"kind", "namespace", "name"}.
const DecisionsDocument = "evaluate"

// View is what a rule that reads OME's decisions sees beside the object
// under review (DecisionsDocument).
type View struct {
	Objects  []any
	Decision map[string]any
}

// ReadsDecisions reports whether a rule of the set reads OME's decisions.
func (s *Set) ReadsDecisions() bool {
	if s == nil {
		return false
	}
	for _, r := range s.Rules {
		if r.Decisions {
			return true
		}
	}
	return false
}

// SetSeverity is the severity of the messages of a Rego rule's set, by
// its name: deny and violation (and deny_x, violation_x) errors, warn
// warnings; "" for a rule of another name.
func SetSeverity(name string) string { return setSeverity(name) }

// Severity is the rule's severities as lint lists them ("error, warning").
func (r Rule) Severity() string { return strings.Join(r.Severities, ", ") }

// Set is the rules of the paths given to Load.
type Set struct {
	// Rules are every rule, by id.
	Rules []Rule
	// TestFiles are the Rego unit tests found (*_test.rego), sorted.
	TestFiles []string
	// CaseFiles are the YAML files of the paths that hold case lists.
	CaseFiles []string
	// Modules are the Rego sources (path -> text), tests included, which
	// the unit tests run against.
	Modules map[string]string
	// Libraries are the Rego files that are no rule and no test (packages
	// with no set of messages, which rules import), sorted.
	Libraries []string
	// Notices say each link to a folder that was not walked, as it leads
	// to a folder already read (a loop, or a second way to it).
	Notices []string

	rego *regoRules
	cel  []*vapRule
}

// Problems are the errors of a set of rules: each names its file and line.
type Problems []*objects.InputError

func (p Problems) Error() string {
	lines := make([]string, len(p))
	for i, e := range p {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Errors are the problems, one error each, for a command to tell one a
// line.
func (p Problems) Errors() []error {
	out := make([]error, len(p))
	for i, e := range p {
		out[i] = e
	}
	return out
}

// Load reads the rules of paths (files or folders, read recursively) to
// run in the default sandbox (LoadWith).
func Load(paths []string, reserved []string) (*Set, error) {
	return LoadWith(paths, reserved, Sandbox{})
}

// LoadWith reads the rules of paths (files or folders) to run in the
// sandbox sb. A folder is walked as -R walks a folder of objects
// (input.Walk): every folder inside it but those whose names start with
// ".", a link read as what it leads to, a link to a folder already walked
// said in Notices and not walked again. A folder's files other than
// *.rego, *.yaml, *.yml and *.json are not rules and are skipped; every
// file named is read, each a regular file of at most the input size
// limit. Everything wrong is returned at once as Problems, each with its
// file and line: a rule that does not compile, or calls a builtin the
// sandbox refuses, is never left out as if absent, and a path that gives
// no rule, test, library or case list is named. reserved are ids that a
// rule may not take (OME's own rules').
func LoadWith(paths []string, reserved []string, sb Sandbox) (*Set, error) {
	if err := sb.Check(); err != nil {
		return nil, err
	}
	var files []string
	var probs Problems
	var notices []string
	from := map[string][]string{} // the files each path gave
	for _, p := range paths {
		if p == "" {
			probs = append(probs, &objects.InputError{File: "--rules", Msg: "an empty path: give a folder or a file of rules"})
			continue
		}
		st, err := os.Stat(p)
		if err != nil {
			probs = append(probs, &objects.InputError{File: p, Msg: "no such file or folder"})
			continue
		}
		if !st.IsDir() {
			files = append(files, p)
			from[p] = append(from[p], p)
			continue
		}
		found, links, errs := input.Walk(p, isRuleFile, func(name string) bool { return strings.HasPrefix(name, ".") })
		for _, l := range links {
			notices = append(notices, "notice: "+l)
		}
		for _, e := range errs {
			probs = append(probs, asProblems(e)...)
		}
		if len(found) == 0 && len(errs) == 0 {
			probs = append(probs, &objects.InputError{File: p, Msg: "no rules here: no .rego file and no ValidatingAdmissionPolicy"})
		}
		files = append(files, found...)
		from[p] = append(from[p], found...)
	}
	s := &Set{Modules: map[string]string{}, Notices: notices}
	var regoFiles []string
	var docs []vapDocument
	for _, f := range files {
		data, err := input.ReadFile(f)
		if err != nil {
			probs = append(probs, asProblems(err)...)
			continue
		}
		if filepath.Ext(f) == ".rego" {
			s.Modules[f] = string(data)
			if strings.HasSuffix(f, "_test.rego") {
				s.TestFiles = append(s.TestFiles, f)
			} else {
				regoFiles = append(regoFiles, f)
			}
			continue
		}
		d, isCases, err := readDocuments(f, data)
		if err != nil {
			probs = append(probs, asProblems(err)...)
		}
		if isCases {
			s.CaseFiles = append(s.CaseFiles, f)
		}
		docs = append(docs, d...)
	}
	tests := map[string]string{}
	for _, f := range s.TestFiles {
		tests[f] = s.Modules[f]
	}
	probs = append(probs, SandboxProblems(tests)...)
	rr, err := loadRego(s.Modules, regoFiles, sb)
	if err != nil {
		probs = append(probs, asProblems(err)...)
	}
	s.rego = rr
	if rr != nil {
		s.Libraries = rr.libraries
	}
	vaps, err := loadVAPs(docs, sb)
	if err != nil {
		probs = append(probs, asProblems(err)...)
	}
	s.cel = vaps
	if rr != nil {
		s.Rules = append(s.Rules, rr.rules()...)
	}
	for _, v := range vaps {
		s.Rules = append(s.Rules, v.rule)
	}
	probs = append(probs, checkIDs(s.Rules, reserved)...)
	if len(probs) == 0 {
		probs = append(probs, s.noRules(paths, from)...)
	}
	sort.Strings(s.TestFiles)
	sort.Strings(s.CaseFiles)
	sort.Slice(s.Rules, func(i, j int) bool { return s.Rules[i].ID < s.Rules[j].ID })
	if len(probs) > 0 {
		sortProblems(probs)
		return nil, probs
	}
	return s, nil
}

// isRuleFile says whether a folder's file may hold rules.
func isRuleFile(path string) bool {
	switch filepath.Ext(path) {
	case ".rego", ".yaml", ".yml", ".json":
		return true
	}
	return false
}

// noRules names each folder of paths whose files give nothing of a
// rules set: no rule, test, library or case list (a folder of other
// YAML, such as a kustomization alone). from are the files each path gave.
func (s *Set) noRules(paths []string, from map[string][]string) Problems {
	used := map[string]bool{}
	for _, r := range s.Rules {
		used[r.File] = true
		for _, f := range r.Files {
			used[f] = true
		}
	}
	for _, v := range s.cel {
		for _, f := range v.bindingFiles {
			used[f] = true
		}
	}
	for _, list := range [][]string{s.TestFiles, s.CaseFiles, s.Libraries} {
		for _, f := range list {
			used[f] = true
		}
	}
	var probs Problems
	for _, p := range paths {
		files := from[p]
		if len(files) == 0 {
			continue // said already
		}
		if !slices.ContainsFunc(files, func(f string) bool { return used[f] }) {
			probs = append(probs, &objects.InputError{File: p, Msg: "no rules here: no Rego rule, test or library, no ValidatingAdmissionPolicy and no case list"})
		}
	}
	return probs
}

// Untested are the Rego files beside the tests (the folders of paths,
// and the folders of the test files given) that are no tests, but whose
// package a test refers to (data.<package>): the rules those tests test,
// which only --rules loads. tests are the test files (path -> text).
func Untested(paths []string, tests map[string]string) []string {
	pkgLine := regexp.MustCompile(`(?m)^package\s+(\S+)`)
	seen := map[string]bool{}
	var out []string
	consider := func(path string) {
		if seen[path] || filepath.Ext(path) != ".rego" || strings.HasSuffix(path, "_test.rego") {
			return
		}
		seen[path] = true
		b, err := input.ReadFile(path)
		if err != nil {
			return
		}
		m := pkgLine.FindSubmatch(b)
		if m == nil {
			return
		}
		for _, text := range tests {
			if strings.Contains(text, "data."+string(m[1])) {
				out = append(out, path)
				return
			}
		}
	}
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.rego") {
			entries, _ := os.ReadDir(filepath.Dir(p))
			for _, e := range entries {
				consider(filepath.Join(filepath.Dir(p), e.Name()))
			}
			continue
		}
		_ = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				consider(path)
			}
			return nil
		})
	}
	sort.Strings(out)
	return out
}

// checkIDs names each id that two rules take, or that OME's rules take.
func checkIDs(rules []Rule, reserved []string) Problems {
	var probs Problems
	first := map[string]Rule{}
	for _, r := range rules {
		if slices.Contains(reserved, r.ID) {
			probs = append(probs, &objects.InputError{File: r.File, Line: r.Line,
				Msg: fmt.Sprintf("rule %s takes the id of one of OME's rules (evaluate lint --list-rules lists them): rename it", r.ID)})
			continue
		}
		if f, seen := first[r.ID]; seen {
			probs = append(probs, &objects.InputError{File: r.File, Line: r.Line,
				Msg: fmt.Sprintf("rule %s is also written at %s: a rule's id names one rule", r.ID, objects.FileLine(f.File, f.Line))})
			continue
		}
		first[r.ID] = r
	}
	return probs
}

func asProblems(err error) Problems {
	switch e := err.(type) {
	case Problems:
		return e
	case *objects.InputError:
		return Problems{e}
	}
	return Problems{{Msg: err.Error()}}
}

func sortProblems(p Problems) {
	sort.SliceStable(p, func(i, j int) bool {
		if p[i].File != p[j].File {
			return p[i].File < p[j].File
		}
		return p[i].Line < p[j].Line
	})
}

// Len is how many rules the set holds; a nil set holds none.
func (s *Set) Len() int {
	if s == nil {
		return 0
	}
	return len(s.Rules)
}

// Check runs every rule that reads no decision of OME's on one object and
// returns its findings, in rule order. A rule that gives something else
// than its language allows (a Rego message that is neither a string nor an
// object with msg) is a problem naming the rule; the other rules still
// run.
func (s *Set) Check(o *objects.Object) ([]answer.Finding, Problems) {
	return s.check(o, nil)
}

// CheckDecisions runs the rules that read OME's decisions (ReadsDecisions)
// on one object, with what they read.
func (s *Set) CheckDecisions(o *objects.Object, view View) ([]answer.Finding, Problems) {
	return s.check(o, &view)
}

// Decide gives OME's decisions about objects, each object's as a rule
// reads it (View.Decision).
type Decide func(objs []*objects.Object) (map[*objects.Object]map[string]any, error)

// CheckAll runs every rule on each object of objs, objects as kubectl
// apply leaves them (no two of one kind, namespace and name): Check, then
// CheckAllDecisions.
func (s *Set) CheckAll(objs []*objects.Object, decide Decide) ([]answer.Finding, Problems, error) {
	var out []answer.Finding
	var probs Problems
	for _, o := range objs {
		fs, p := s.Check(o)
		out, probs = append(out, fs...), append(probs, p...)
	}
	fs, p, err := s.CheckAllDecisions(objs, decide)
	if err != nil {
		return nil, nil, err
	}
	return append(out, fs...), append(probs, p...), nil
}

// CheckAllDecisions runs the rules that read OME's decisions on each
// object that kubectl apply would leave of objs (objects.Deduplicate),
// with every such object and decide's decision about it. decide is
// called only when a rule reads OME's decisions.
func (s *Set) CheckAllDecisions(objs []*objects.Object, decide Decide) ([]answer.Finding, Problems, error) {
	if !s.ReadsDecisions() {
		return nil, nil, nil
	}
	kept, _ := objects.Deduplicate(objs)
	decisions, err := decide(kept)
	if err != nil {
		return nil, nil, err
	}
	var out []answer.Finding
	var probs Problems
	all := answer.ObjectValues(kept)
	for _, o := range kept {
		fs, p := s.CheckDecisions(o, View{Objects: all, Decision: decisions[o]})
		out, probs = append(out, fs...), append(probs, p...)
	}
	return out, probs, nil
}

func (s *Set) check(o *objects.Object, view *View) ([]answer.Finding, Problems) {
	if s == nil {
		return nil, nil
	}
	var out []answer.Finding
	var probs Problems
	add := func(rule, severity, field, msg string) {
		out = append(out, answer.Finding{Rule: rule, Severity: severity, Object: objects.RefOf(o), Field: field,
			File: o.File, Line: o.LineOf(field), Message: msg, ObjectLine: o.Line})
	}
	if s.rego != nil {
		probs = append(probs, s.rego.check(o, view, add)...)
	}
	for _, v := range s.cel {
		if v.rule.Decisions == (view != nil) {
			probs = append(probs, v.check(o, view, add)...)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Rule < out[j].Rule })
	return out, probs
}
