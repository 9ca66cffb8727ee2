// Package admit takes a team's rules (package rules) into the admission
// bundles: each goes to every target that can hold it, or the bundle is
// refused, naming the rule, the target and why (Refusal), unless the user
// leaves the rule out on purpose. A Rego rule becomes a Gatekeeper check
// of its own (RegoCheck), its modules rewritten on OPA's syntax tree; a
// ValidatingAdmissionPolicy is rewritten for each CEL target (Policy),
// the ome library's calls as their stand-ins, and becomes a Gatekeeper
// check whose code is its CEL (CELCheck). Compile routes every rule; Judge
// makes the cases their suites review, as evaluate lint --rules decides
// them; gatekeeper.go, vap.go and kyverno.go write each target's files
// (Extras), which the targets' writers take as admission.Extra.
//
// It imports admission and the targets' writers (their suites' and Tests'
// forms), admission/rewrite, admission/celrewrite, rules and the floors
// below; none of them imports it.
package admit

import (
	_ "embed"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/ome-policy/evaluator/admission"
	"github.com/ome-policy/evaluator/admission/celrewrite"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/rules"
)

// The targets a team's rule can go to, as refusals name them.
const (
	TargetGatekeeper = "the Gatekeeper bundle"
	TargetNative     = "the ValidatingAdmissionPolicies (--native-out)"
	TargetKyverno    = "the Kyverno bundle"
)

// Refusal is a team's rule that a bundle cannot hold.
type Refusal struct {
	Rule   rules.Rule
	Target string
	Reason string
}

func (r *Refusal) Error() string {
	return fmt.Sprintf("%s:%d: rule %s cannot go into %s: %s", r.Rule.File, r.Rule.Line, r.Rule.ID, r.Target, r.Reason)
}

// Refusals are every rule a bundle cannot hold.
type Refusals []*Refusal

func (rs Refusals) Error() string {
	lines := make([]string, len(rs))
	for i, r := range rs {
		lines[i] = r.Error()
	}
	return strings.Join(lines, "\n")
}

// Errors are the refusals, one error each, then what to do (Advice), for
// a command to tell one a line.
func (rs Refusals) Errors() []error {
	out := make([]error, 0, len(rs)+1)
	for _, r := range rs {
		out = append(out, r)
	}
	return append(out, errors.New(rs.Advice()))
}

// RegoCheck is a team's Rego rule as a Gatekeeper check: every package of
// the team's that the rule needs, its own among them, as a library of the
// template (rewrite.Team: input read as the reviewed object, the ome.*
// builtins called through their plain-Rego stand-in, which the template
// then carries), and an entry module whose violation is made of the rule's
// sets (TeamEntry). A rule that reads OME's decisions gets them
// from evaluate.rego (lib.evaluate), with the libraries of selection,
// OME's OMERuntimeSelection check of the release, and its entry module as
// lib.ome.runtimeselection (decisionLibs). Its constraint's one parameter,
// warn, picks the warn sets' messages rather than the others'.
func RegoCheck(r rules.Rule, team *rules.Set, release, generator string, selection *admission.Check) (*admission.Check, error) {
	refuse := func(format string, args ...any) error {
		return &Refusal{Rule: r, Target: TargetGatekeeper, Reason: fmt.Sprintf(format, args...)}
	}
	mods, decisions, standins, err := teamModules(team, r.ID)
	if err != nil {
		return nil, refuse("%v", err)
	}
	warn := map[string]bool{}
	for _, s := range r.Sets {
		warn[s] = rules.SetSeverity(s) == rules.Warning
	}
	name := strings.ToLower(Kind(r.ID))
	entry, err := TeamEntry(name, r.ID, warn)
	if err != nil {
		return nil, err
	}
	c := &admission.Check{
		Team:        &r,
		Name:        name,
		Kind:        Kind(r.ID),
		Title:       r.ID,
		Release:     release,
		Description: teamDescription(r),
		Parameters: admission.Mapping("type", "object", "properties", admission.Mapping("warn", admission.Mapping(
			"type", "boolean", "default", false,
			"description", "Report the messages of the rule's warn sets rather than those of its deny and violation sets.",
		))),
		Generator: generator,
		Rego:      entry,
	}
	for _, m := range mods {
		c.Libs = append(c.Libs, admission.LibModule{Path: m.Source, Text: m.Text})
		c.Sources = append(c.Sources, m.Source)
	}
	if decisions && !r.Decisions {
		return nil, refuse("a package it reads reads OME's decisions (%s), which evaluate gives only to a rule whose own package or a library reads them: read them in the rule's package", rules.DecisionsDocument)
	}
	if r.Decisions {
		libs, err := decisionLibs(selection)
		if err != nil {
			return nil, refuse("%v", err)
		}
		c.Libs = append(c.Libs, libs...)
		c.Sources = append(c.Sources, selection.Sources...)
	} else if standins {
		for _, l := range admission.Lib() {
			c.Libs = append(c.Libs, l)
			c.Sources = append(c.Sources, "policies/gatekeeper/"+l.Path)
		}
	}
	if err := compileCheck(c); err != nil {
		return nil, refuse("%v", err)
	}
	return c, nil
}

// teamModules are the modules of the team's package pkg and of every
// package of the team's it refers to, in turn, rewritten for a template
// (rewrite.Team), by file; whether one of them reads OME's decisions, and
// whether one calls a builtin (so that the template needs the stand-in).
func teamModules(team *rules.Set, pkg string) (mods []*TeamModule, decisions, standins bool, err error) {
	byPkg := map[string][]string{}
	packages := map[string]bool{}
	for f, text := range team.Modules {
		if strings.HasSuffix(f, "_test.rego") {
			continue
		}
		m, err := ast.ParseModuleWithOpts(f, text, ast.ParserOptions{RegoVersion: ast.RegoV1})
		if err != nil {
			return nil, false, false, err
		}
		p := strings.TrimPrefix(m.Package.Path.String(), "data.")
		byPkg[p] = append(byPkg[p], f)
		packages[p] = true
	}
	done := map[string]bool{}
	queue := []string{pkg}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if done[p] {
			continue
		}
		done[p] = true
		files := byPkg[p]
		sort.Strings(files)
		for _, f := range files {
			tm, err := Team(f, team.Modules[f], packages)
			if err != nil {
				return nil, false, false, err
			}
			mods = append(mods, tm)
			decisions = decisions || tm.Decisions
			standins = standins || len(tm.Standins) > 0
			queue = append(queue, tm.Packages...)
		}
	}
	sort.SliceStable(mods, func(i, j int) bool { return mods[i].Source < mods[j].Source })
	return mods, decisions, standins, nil
}

// decisionsLib gives a template OME's decisions (Decisions).
//
//go:embed evaluate.rego
var decisionsLib string

// decisionLibs are the libraries that give a template OME's decisions:
// those of selection (OMERuntimeSelection's, the stand-ins among them),
// its entry module moved under lib, and decisionsLib.
func decisionLibs(selection *admission.Check) ([]admission.LibModule, error) {
	if selection == nil {
		return nil, fmt.Errorf("it reads OME's decisions (%s), and no OMERuntimeSelection check was given to take them from", rules.DecisionsDocument)
	}
	const pkg = "package omeruntimeselection\n"
	if !strings.Contains(selection.Rego, pkg) {
		return nil, fmt.Errorf("OMERuntimeSelection's module has no line %q", strings.TrimSpace(pkg))
	}
	libs := slices.Clone(selection.Libs)
	return append(libs,
		admission.LibModule{Path: "lib/runtimeselection.rego", Text: strings.Replace(selection.Rego, pkg, "package lib.ome.runtimeselection\n", 1)},
		admission.LibModule{Path: "lib/evaluate.rego", Text: decisionsLib},
	), nil
}

func teamDescription(r rules.Rule) string {
	d := "A team's own rule, " + r.ID + ", from " + strings.Join(r.Files, ", ") + "."
	if r.Description != "" {
		d = strings.TrimSuffix(r.Description, ".") + ". " + d
	}
	return d
}

// compileTeamCheck compiles a team's check as Gatekeeper's OPA would: its
// Rego and its libraries, with no builtin of the project.
func compileCheck(c *admission.Check) error {
	mods := map[string]*ast.Module{}
	m, err := ast.ParseModuleWithOpts(c.Name+".rego", c.Rego, ast.ParserOptions{RegoVersion: ast.RegoV1})
	if err != nil {
		return fmt.Errorf("the template's Rego does not parse: %w", err)
	}
	mods[c.Name+".rego"] = m
	for _, l := range c.Libs {
		lm, err := ast.ParseModuleWithOpts(l.Path, l.Text, ast.ParserOptions{RegoVersion: ast.RegoV1})
		if err != nil {
			return err
		}
		mods[l.Path] = lm
	}
	comp := ast.NewCompiler().WithDefaultRegoVersion(ast.RegoV1)
	if comp.Compile(mods); comp.Failed() {
		return fmt.Errorf("the template's Rego does not compile without the Go builtins: %v", comp.Errors)
	}
	return nil
}

// Policy is a team's ValidatingAdmissionPolicy with its expressions
// rewritten for a CEL target without the ome library
// (admission.TeamTranslator): plain CEL, which a ValidatingAdmissionPolicy,
// Gatekeeper and Kyverno (with kyverno, its environment) run. A validation
// without a message gets the one Kubernetes would give it, "failed
// expression: " and the expression as the team wrote it, not as it is
// rewritten. A call that has no stand-in there, or an omeVersion value
// taken where the stand-ins cannot follow it, refuses the rule for target.
func Policy(r rules.Rule, target string, kyverno bool) (map[string]any, error) {
	p := admission.DeepCopy(r.Policy)
	spec, _ := p["spec"].(map[string]any)
	env, err := teamEnv(kyverno)
	if err != nil {
		return nil, err
	}
	var vars []admission.CELVariable
	for _, x := range objects.MapsAt(spec, "variables") {
		vars = append(vars, admission.CELVariable{Name: objects.StringAt(x, "name"), Expression: objects.StringAt(x, "expression")})
	}
	tr, err := NewTeamTranslator(vars)
	if err != nil {
		return nil, err
	}
	for _, key := range []string{"matchConditions", "variables", "validations"} {
		list, _ := spec[key].([]any)
		for i, x := range list {
			e, _ := x.(map[string]any)
			written := strings.TrimSpace(objects.StringAt(e, "expression"))
			for _, field := range []string{"expression", "messageExpression"} {
				expr, ok := e[field].(string)
				if !ok {
					continue
				}
				at := fmt.Sprintf("spec.%s[%d].%s", key, i, field)
				out, err := tr.Translate(expr, key == "variables" && field == "expression")
				var missing *admission.NoStandIn
				var use *VersionUse
				switch {
				case errors.As(err, &missing) && missing.Why != "":
					return nil, &Refusal{Rule: r, Target: target, Reason: fmt.Sprintf("%s: calls %s, which has no stand-in there: %s", at, missing.Name, missing.Why)}
				case errors.As(err, &missing):
					return nil, &Refusal{Rule: r, Target: target, Reason: fmt.Sprintf("%s: calls %s, which has no stand-in there (its CEL has no ome library)", at, missing.Name)}
				case errors.As(err, &use):
					return nil, &Refusal{Rule: r, Target: target, Reason: fmt.Sprintf("%s: %v", at, use)}
				case err != nil:
					return nil, &Refusal{Rule: r, Target: target, Reason: fmt.Sprintf("%s: %v", at, err)}
				}
				if _, iss := env.Compile(out); iss.Err() != nil {
					return nil, &Refusal{Rule: r, Target: target, Reason: fmt.Sprintf("%s: without the ome library, it does not compile there: %s",
						at, strings.Join(strings.Fields(iss.Err().Error()), " "))}
				}
				e[field] = out
			}
			if key != "validations" {
				continue
			}
			if err := wordAsKubernetes(e, written, kyverno); err != nil {
				return nil, &Refusal{Rule: r, Target: target, Reason: fmt.Sprintf("spec.validations[%d]: %v", i, err)}
			}
		}
	}
	return p, nil
}

// wordAsKubernetes makes a validation (its expression written as the
// team wrote it) word its refusals as Kubernetes does, there: without a
// message, Kubernetes gives "failed expression: " and the expression as
// it is in the policy, which the rewrite changes, so the validation gets
// that message, written as the team wrote the expression, when it has
// one line; on several lines, a message cannot say it, and the rule is
// refused unless the expression is as written and the target is
// Kubernetes. For Kyverno, which gives a messageExpression's string as it
// is (empty, on several lines, or not a string), the messageExpression
// gives it only when Kubernetes would, and the message otherwise.
func wordAsKubernetes(e map[string]any, written string, kyverno bool) error {
	message := strings.TrimSpace(objects.StringAt(e, "message"))
	if message == "" {
		rewritten := strings.TrimSpace(objects.StringAt(e, "expression")) != written
		switch {
		case !strings.Contains(written, "\n"):
			message = "failed expression: " + written
			e["message"] = message
		case rewritten || kyverno:
			return fmt.Errorf("it has no message, so a refusal that its messageExpression does not word says \"failed expression: \" and the expression, " +
				"which is rewritten there, and a message has one line: give the validation a message")
		}
	}
	if m, ok := e["messageExpression"].(string); ok && kyverno {
		out, err := celrewrite.Fill(`[__arg0].map(__m, type(__m) == string && __m.trim() != "" && !__m.trim().contains("\n") && bytes(__m.trim()).size() <= 5120 ? __m.trim() : __arg1)[0]`,
			m, admission.CELString(message))
		if err != nil {
			return err
		}
		e["messageExpression"] = out
	}
	return nil
}

// teamEnv is the CEL environment of a team's policy on a target without
// the ome library: Kubernetes' (as rules.vapEnv has it, the ome library
// aside), or Kyverno's.
func teamEnv(kyverno bool) (*cel.Env, error) {
	opts := rules.KubernetesEnvOptions()
	if kyverno {
		opts = admission.KyvernoEnvOptions()
		for _, v := range []string{"object", "oldObject", "request", "params", "namespaceObject"} {
			opts = append(opts, cel.Variable(v, cel.DynType))
		}
		opts = append(opts, cel.Variable("variables", cel.MapType(cel.StringType, cel.DynType)))
	}
	return cel.NewEnv(opts...)
}

// CELCheck is a team's ValidatingAdmissionPolicy as a Gatekeeper check
// whose code is CEL (K8sNativeValidation, which Gatekeeper evaluates with
// Kubernetes' own validator): its matchConditions, variables, validations
// (with their messages) and failurePolicy, the expressions in plain CEL
// (Policy). Its constraint matches the kinds the policy judges; a policy
// that names objects (resourceNames) cannot be a constraint's match, and
// is refused.
func CELCheck(r rules.Rule, release, generator string) (*admission.Check, error) {
	if r.ByName {
		return nil, &Refusal{Rule: r, Target: TargetGatekeeper, Reason: "its matchConstraints name objects (resourceNames), which a constraint's match cannot say"}
	}
	p, err := Policy(r, TargetGatekeeper, false)
	if err != nil {
		return nil, err
	}
	return &admission.Check{
		Team:        &r,
		Name:        strings.ToLower(Kind(r.ID)),
		Kind:        Kind(r.ID),
		Title:       r.ID,
		Release:     release,
		Description: strings.TrimPrefix(strings.TrimSuffix(r.Description, ".")+". ", ". ") + "A team's own rule, the ValidatingAdmissionPolicy " + r.ID + " of " + r.File + ".",
		Parameters:  admission.Mapping("type", "object"),
		Generator:   generator,
		CEL:         PolicyCode(p),
		Sources:     []string{r.File},
	}, nil
}

// PolicyCode is the CEL code of a policy (a ValidatingAdmissionPolicy, or
// a Kyverno ValidatingPolicy, whose spec says it alike): its
// matchConditions, variables, validations and failurePolicy.
func PolicyCode(policy map[string]any) *admission.CELBlock {
	spec, _ := policy["spec"].(map[string]any)
	b := &admission.CELBlock{FailurePolicy: objects.StringAt(spec, "failurePolicy")}
	for _, x := range objects.MapsAt(spec, "matchConditions") {
		b.MatchConditions = append(b.MatchConditions, admission.CELVariable{Name: objects.StringAt(x, "name"), Expression: objects.StringAt(x, "expression")})
	}
	for _, x := range objects.MapsAt(spec, "variables") {
		b.Variables = append(b.Variables, admission.CELVariable{Name: objects.StringAt(x, "name"), Expression: objects.StringAt(x, "expression")})
	}
	for _, x := range objects.MapsAt(spec, "validations") {
		b.Validations = append(b.Validations, admission.CELValidation{Expression: objects.StringAt(x, "expression"),
			Message: objects.StringAt(x, "message"), MessageExpression: objects.StringAt(x, "messageExpression")})
	}
	return b
}

// Compile compiles every rule of team for each of targets: for
// Gatekeeper, a Rego rule as RegoCheck, a policy as CELCheck; for the
// ValidatingAdmissionPolicies and Kyverno, a policy as Policy, and a
// Rego rule is refused (the API server and Kyverno run CEL only). Every
// rule a target cannot hold is a Refusal, all of them at once as
// Refusals, unless leaveOut names the rule: it is then left out of every
// target that cannot hold it, and Left says so. An id of leaveOut that
// is no rule of team is an error.
func Compile(team *rules.Set, targets, leaveOut []string, release, generator string, selection *admission.Check) (Rules, error) {
	var out Rules
	if team.Len() == 0 {
		if len(leaveOut) > 0 {
			return out, fmt.Errorf("--leave-out %s: no --rules to leave out of", strings.Join(leaveOut, ","))
		}
		return out, nil
	}
	known := map[string]bool{}
	for _, r := range team.Rules {
		known[r.ID] = true
	}
	left := map[string]bool{}
	for _, id := range leaveOut {
		if !known[id] {
			return out, fmt.Errorf("--leave-out: %q is no rule of --rules", id)
		}
		left[id] = true
	}
	out.Set = team
	var refusals Refusals
	for _, r := range team.Rules {
		for _, target := range targets {
			var err error
			switch {
			case target == TargetGatekeeper && r.Language == rules.Rego:
				var c *admission.Check
				if c, err = RegoCheck(r, team, release, generator, selection); err == nil {
					out.Gatekeeper = append(out.Gatekeeper, c)
				}
			case r.Language == rules.CEL && r.Decisions:
				err = &Refusal{Rule: r, Target: target, Reason: decisionsRefusal[target]}
			case target == TargetGatekeeper:
				var c *admission.Check
				if c, err = CELCheck(r, release, generator); err == nil {
					out.Gatekeeper = append(out.Gatekeeper, c)
				}
			case r.Language == rules.Rego:
				err = &Refusal{Rule: r, Target: target, Reason: "it is Rego, and only CEL runs there"}
			default:
				var p map[string]any
				if p, err = Policy(r, target, target == TargetKyverno); err == nil && target == TargetKyverno {
					out.Kyverno = append(out.Kyverno, KyvernoDocs(r, p)...)
				} else if err == nil {
					out.Native = append(out.Native, Doc{Rule: r, Policy: p, Name: r.ID, Validation: -1})
				}
			}
			var refusal *Refusal
			switch {
			case err == nil:
			case errors.As(err, &refusal) && left[r.ID]:
				out.Left = append(out.Left, fmt.Sprintf("rule %s is left out of %s (--leave-out): %s", r.ID, target, refusal.Reason))
			case errors.As(err, &refusal):
				refusals = append(refusals, refusal)
			default:
				return out, err
			}
		}
	}
	if len(refusals) > 0 {
		return out, refusals
	}
	return out, accounted(team, targets, out)
}

// accounted checks that every rule of team went into each of targets, or
// was left out of it on purpose: never a bundle written without one of
// the rules, unsaid.
func accounted(team *rules.Set, targets []string, out Rules) error {
	in := map[string]bool{}
	for _, c := range out.Gatekeeper {
		in[TargetGatekeeper+" "+c.Team.ID] = true
	}
	for _, d := range out.Native {
		in[TargetNative+" "+d.Rule.ID] = true
	}
	for _, d := range out.Kyverno {
		in[TargetKyverno+" "+d.Rule.ID] = true
	}
	for _, r := range team.Rules {
		for _, target := range targets {
			if !in[target+" "+r.ID] && !slices.ContainsFunc(out.Left, func(l string) bool { return strings.HasPrefix(l, "rule "+r.ID+" is left out of "+target+" ") }) {
				return fmt.Errorf("%s:%d: rule %s is neither written into %s nor refused: nothing written", r.File, r.Line, r.ID, target)
			}
		}
	}
	return nil
}

// KyvernoDocs are a team's policy, rewritten for Kyverno (Policy), as
// Kyverno's ValidatingPolicies: the policy itself when it has one
// validation; else a policy each, named after the rule and the
// validation's number (from 1), with the same match, matchConditions and
// variables. Kyverno stops at a policy's first failing validation and
// gives its message alone, where Kubernetes and evaluate lint give the
// message of each.
func KyvernoDocs(r rules.Rule, p map[string]any) []Doc {
	spec, _ := p["spec"].(map[string]any)
	vals, _ := spec["validations"].([]any)
	if len(vals) <= 1 {
		return []Doc{{Rule: r, Policy: p, Name: r.ID, Validation: -1}}
	}
	var out []Doc
	for i, v := range vals {
		one := admission.DeepCopy(p)
		name := fmt.Sprintf("%s-%d", r.ID, i+1)
		if meta, ok := one["metadata"].(map[string]any); ok {
			meta["name"] = name
		}
		one["spec"].(map[string]any)["validations"] = []any{admission.DeepCopy(map[string]any{"v": v})["v"]}
		out = append(out, Doc{Rule: r, Policy: one, Name: name, Validation: i})
	}
	return out
}

// decisionsRefusal says, by target, why a policy (CEL) that reads OME's
// decisions cannot go there (a Rego rule goes into a Gatekeeper template).
var decisionsRefusal = map[string]string{
	TargetGatekeeper: "it reads OME's decisions (" + rules.DecisionsDocument + "), which Gatekeeper's CEL (K8sNativeValidation) cannot take from its inventory: write it in Rego, whose template gets them",
	TargetNative:     "it reads OME's decisions (" + rules.DecisionsDocument + "), and a ValidatingAdmissionPolicy reads no object but the one under review",
	TargetKyverno:    "it reads OME's decisions (" + rules.DecisionsDocument + "), which evaluate does not write into Kyverno's CEL: write it in Rego, whose Gatekeeper template gets them",
}

// Advice is what to do about refusals: nothing was written, and what
// --leave-out (and, for the ValidatingAdmissionPolicies, --native-out ”)
// would write instead.
func (rs Refusals) Advice() string {
	var ids []string
	native := ""
	for _, r := range rs {
		if !slices.Contains(ids, r.Rule.ID) {
			ids = append(ids, r.Rule.ID)
		}
		if r.Target == TargetNative {
			native = " (--native-out '' writes no ValidatingAdmissionPolicies, for a cluster with Gatekeeper)"
		}
	}
	return "nothing written: a bundle without these rules would not enforce them; --leave-out " + strings.Join(ids, ",") +
		" writes the bundles without them, on purpose" + native
}
