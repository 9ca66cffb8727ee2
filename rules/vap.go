package rules

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/ext"
	"github.com/google/cel-go/interpreter"
	"gopkg.in/yaml.v3"

	"github.com/ome-policy/evaluator/builtins/cellib"
	"github.com/ome-policy/evaluator/objects"
)

// The kinds of a rules folder's YAML.
const (
	admissionGroup = "admissionregistration.k8s.io"
	admissionV1    = admissionGroup + "/v1"
	kindPolicy     = "ValidatingAdmissionPolicy"
	kindBinding    = "ValidatingAdmissionPolicyBinding"
)

// vapDocument is one policy or binding as read, with the line of each
// field.
type vapDocument struct {
	file  string
	line  int
	kind  string
	value map[string]any
	pos   objects.Positions
}

func (d vapDocument) where(field string) *objects.InputError {
	return &objects.InputError{File: d.file, Line: objects.LineAt(d.pos, field, d.line), Field: field}
}

func (d vapDocument) problem(field, format string, args ...any) *objects.InputError {
	p := d.where(field)
	p.Msg = fmt.Sprintf(format, args...)
	return p
}

// readDocuments reads the policies and bindings of one YAML or JSON file.
// A file of case lists (a cases: key) is no rule (isCases), nor is a
// Kustomization; any other document is a problem, so that nothing in a
// rules folder is silently taken for something it is not.
func readDocuments(file string, data []byte) (docs []vapDocument, isCases bool, err error) {
	var probs Problems
	err = objects.EachDocument(file, data, func(n *yaml.Node) error {
		v, pos, err := objects.DecodeValue(file, n, "")
		if err != nil {
			return err
		}
		if v == nil {
			return nil
		}
		line := 1
		if len(n.Content) > 0 {
			line = n.Content[0].Line
		}
		m, ok := v.(map[string]any)
		if !ok {
			probs = append(probs, &objects.InputError{File: file, Line: line, Msg: "not a rule: a document of a rules folder is a ValidatingAdmissionPolicy, a binding, or a case list"})
			return nil
		}
		kind, _ := m["kind"].(string)
		apiVersion, _ := m["apiVersion"].(string)
		switch {
		case kind == "" && m["cases"] != nil:
			isCases = true
		case kind == "Kustomization":
		case kind == kindPolicy || kind == kindBinding:
			if apiVersion != admissionV1 {
				probs = append(probs, &objects.InputError{File: file, Line: objects.LineAt(pos, "apiVersion", line), Field: "apiVersion",
					Msg: fmt.Sprintf("%s of %q: write it as %s", kind, apiVersion, admissionV1)})
				return nil
			}
			docs = append(docs, vapDocument{file: file, line: line, kind: kind, value: m, pos: pos})
		default:
			if kind == "" {
				kind = "a document without a kind"
			}
			probs = append(probs, &objects.InputError{File: file, Line: line, Field: "kind",
				Msg: fmt.Sprintf("not a rule: %s (a rules folder holds Rego files, ValidatingAdmissionPolicies with their bindings, and case lists)", kind)})
		}
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	if len(probs) > 0 {
		return docs, isCases, probs
	}
	return docs, isCases, nil
}

// vapRule is one ValidatingAdmissionPolicy, compiled.
type vapRule struct {
	rule       Rule
	match      resourceMatch
	conditions []namedProgram
	variables  []namedProgram
	checks     []validation
	failOpen   bool // failurePolicy: Ignore
	sandbox    Sandbox
	// bindingFiles are the files of its bindings.
	bindingFiles []string
	// stopped is set once the sandbox stopped the policy on an object:
	// it judges no object after it.
	stopped atomic.Bool
}

type namedProgram struct {
	name, expression string
	prg              cel.Program
	line             int // of the expression in its file
}

type validation struct {
	line                int // of the expression in its file
	expression, message string
	messageExpr         cel.Program // nil without a messageExpression
	prg                 cel.Program
}

// vapEnv is the CEL environment of a policy's expressions: Kubernetes'
// (KubernetesEnvOptions), the ome library, and OME's decisions for the
// rules that read them.
func vapEnv() (*cel.Env, error) {
	return cel.NewEnv(append(KubernetesEnvOptions(), cellib.Library(),
		cel.Variable(DecisionsDocument, cel.MapType(cel.StringType, cel.DynType)))...)
}

// KubernetesEnvOptions are the options of Kubernetes' CEL for a
// ValidatingAdmissionPolicy, as a team's rules are read with it: its
// variables (object, oldObject, request, params, namespaceObject,
// variables) and the cel-go libraries Kubernetes v1.35 offers. Kubernetes'
// own libraries (regex find, quantity, URLs, IP and CIDR, format, semver,
// authorizer) are not here: an expression that calls them does not
// compile, and says so.
func KubernetesEnvOptions() []cel.EnvOption {
	return []cel.EnvOption{
		cel.HomogeneousAggregateLiterals(), cel.EagerlyValidateDeclarations(true), cel.DefaultUTCTimeZone(true),
		cel.CrossTypeNumericComparisons(true), cel.OptionalTypes(),
		ext.Strings(ext.StringsVersion(2)), ext.Sets(), ext.TwoVarComprehensions(), ext.Lists(ext.ListsVersion(3)),
		// Costs as Kubernetes counts them: a presence test (has) is free.
		cel.CostEstimatorOptions(checker.PresenceTestHasCost(false)),
		cel.Variable("object", cel.DynType), cel.Variable("oldObject", cel.DynType),
		cel.Variable("request", cel.DynType), cel.Variable("params", cel.DynType),
		cel.Variable("namespaceObject", cel.DynType),
		cel.Variable("variables", cel.MapType(cel.StringType, cel.DynType)),
	}
}

// loadVAPs compiles the policies of docs and gives each the severity its
// bindings give it, to run under sb.
func loadVAPs(docs []vapDocument, sb Sandbox) ([]*vapRule, error) {
	if len(docs) == 0 {
		return nil, nil
	}
	env, err := vapEnv()
	if err != nil {
		return nil, err
	}
	var probs Problems
	byName := map[string]*vapRule{}
	var out []*vapRule
	for _, d := range docs {
		if d.kind != kindPolicy {
			continue
		}
		v, ps := compileVAP(env, d)
		probs = append(probs, ps...)
		if v == nil {
			continue
		}
		v.sandbox = sb
		if _, twice := byName[v.rule.ID]; !twice {
			byName[v.rule.ID] = v
		}
		out = append(out, v)
	}
	actions := map[string][]string{}
	for _, d := range docs {
		if d.kind != kindBinding {
			continue
		}
		name, acts, ps := readBinding(d)
		probs = append(probs, ps...)
		if name == "" || len(ps) > 0 {
			continue
		}
		if _, known := byName[name]; !known {
			probs = append(probs, d.problem("spec.policyName", "no ValidatingAdmissionPolicy %q among the rules", name))
			continue
		}
		actions[name] = append(actions[name], acts...)
	}
	for _, v := range out {
		v.rule.Severities = severities(actions[v.rule.ID])
	}
	for _, d := range docs {
		if d.kind == kindBinding {
			spec, _ := d.value["spec"].(map[string]any)
			if v := byName[objects.StringAt(spec, "policyName")]; v != nil {
				v.rule.Bindings = append(v.rule.Bindings, d.value)
				v.bindingFiles = append(v.bindingFiles, d.file)
			}
		}
	}
	if len(probs) > 0 {
		return nil, probs
	}
	return out, nil
}

// severities are the severities of a policy's findings by its bindings'
// validationActions: Deny an error, Warn a warning, Audit an info; no
// binding, an error.
func severities(actions []string) []string {
	switch {
	case len(actions) == 0 || slices.Contains(actions, "Deny"):
		return []string{Error}
	case slices.Contains(actions, "Warn"):
		return []string{Warning}
	}
	return []string{Info}
}

func readBinding(d vapDocument) (string, []string, Problems) {
	var probs Problems
	spec, _ := d.value["spec"].(map[string]any)
	name, _ := spec["policyName"].(string)
	if name == "" {
		probs = append(probs, d.problem("spec.policyName", "a binding names its ValidatingAdmissionPolicy"))
	}
	if spec["paramRef"] != nil {
		probs = append(probs, d.problem("spec.paramRef", "parameters are not supported: write the values into the policy"))
	}
	if mr, _ := spec["matchResources"].(map[string]any); len(mr) > 0 {
		probs = append(probs, d.problem("spec.matchResources", "a binding's matchResources is not supported: scope the policy's matchConstraints instead"))
	}
	list, _ := spec["validationActions"].([]any)
	if len(list) == 0 {
		probs = append(probs, d.problem("spec.validationActions", "a binding needs validationActions (Deny, Warn or Audit)"))
	}
	var acts []string
	for i, a := range list {
		s, _ := a.(string)
		switch s {
		case "Deny", "Warn", "Audit":
			acts = append(acts, s)
		default:
			probs = append(probs, d.problem(objects.IndexPath("spec.validationActions", i), "%s is not a validation action (Deny, Warn or Audit)", objects.DescribeValue(a, "")))
		}
	}
	return name, acts, probs
}

// compileVAP compiles one policy; nil with the problems when it does not.
func compileVAP(env *cel.Env, d vapDocument) (*vapRule, Problems) {
	var probs Problems
	meta, _ := d.value["metadata"].(map[string]any)
	name, _ := meta["name"].(string)
	if name == "" {
		return nil, Problems{d.problem("metadata.name", "a ValidatingAdmissionPolicy needs a name: it is the rule's id")}
	}
	spec, _ := d.value["spec"].(map[string]any)
	v := &vapRule{rule: Rule{ID: name, Language: CEL, File: d.file, Line: d.line, Policy: d.value}}
	if spec["paramKind"] != nil {
		probs = append(probs, d.problem("spec.paramKind", "parameters are not supported: write the values into the policy"))
	}
	switch fp, _ := spec["failurePolicy"].(string); fp {
	case "", "Fail":
	case "Ignore":
		v.failOpen = true
	default:
		probs = append(probs, d.problem("spec.failurePolicy", "%q is not a failure policy (Fail or Ignore)", fp))
	}
	m, ps := readMatch(d)
	probs = append(probs, ps...)
	v.match = m
	for _, k := range omeKinds {
		if m.selects(k) {
			v.rule.Kinds = append(v.rule.Kinds, k)
		}
	}
	for _, r := range append(append([]resourceRule(nil), m.include...), m.exclude...) {
		v.rule.ByName = v.rule.ByName || len(r.names) > 0
	}
	compile := func(field, expr string, want *cel.Type) cel.Program {
		if strings.TrimSpace(expr) == "" {
			probs = append(probs, d.problem(field, "an expression is required"))
			return nil
		}
		ast, iss := env.Compile(expr)
		if iss.Err() == nil {
			for _, ref := range ast.NativeRep().ReferenceMap() {
				v.rule.Decisions = v.rule.Decisions || ref.Name == DecisionsDocument
			}
		}
		if iss.Err() != nil {
			for _, e := range iss.Errors() {
				at := fmt.Sprintf("column %d", e.Location.Column()+1)
				if strings.Contains(expr, "\n") {
					at = fmt.Sprintf("line %d, column %d of the expression", e.Location.Line(), e.Location.Column()+1)
				}
				probs = append(probs, d.problem(field, "does not compile: %s (%s)", e.Message, at))
			}
			return nil
		}
		if t := ast.OutputType(); want != nil && !t.IsExactType(want) && !t.IsExactType(cel.DynType) {
			probs = append(probs, d.problem(field, "must give a %s, not a %s", want, t))
			return nil
		}
		// An estimate that CEL cannot bound (MaxUint64: a list whose size
		// comes of the object's, such as lists.range(size(x))) says
		// nothing; the runtime limit stops it where it runs away.
		if cost, err := env.EstimateCost(ast, emptyInputs{}); err == nil && cost.Max > PerCallCostLimit && cost.Max < math.MaxUint64 {
			probs = append(probs, d.problem(field, "its estimated cost is %d even on an object whose lists, maps and strings are empty, "+
				"over Kubernetes' limit of %d per expression: the API server would stop every evaluation of it", cost.Max, PerCallCostLimit))
			return nil
		}
		prg, err := env.Program(ast, cel.EvalOptions(cel.OptOptimize), cel.CostLimit(PerCallCostLimit),
			cel.CostTrackerOptions(interpreter.PresenceTestHasCost(false)), cel.InterruptCheckFrequency(checkFrequency))
		if err != nil {
			probs = append(probs, d.problem(field, "%s", err))
			return nil
		}
		return prg
	}
	for i, c := range objects.MapsAt(spec, "matchConditions") {
		field := objects.IndexPath("spec.matchConditions", i)
		n, _ := c["name"].(string)
		v.conditions = append(v.conditions, namedProgram{name: n, expression: objects.StringAt(c, "expression"), prg: compile(field+".expression", objects.StringAt(c, "expression"), cel.BoolType),
			line: objects.LineAt(d.pos, field+".expression", d.line)})
	}
	for i, c := range objects.MapsAt(spec, "variables") {
		field := objects.IndexPath("spec.variables", i)
		n, _ := c["name"].(string)
		if n == "" {
			probs = append(probs, d.problem(field+".name", "a variable needs a name"))
		}
		v.variables = append(v.variables, namedProgram{name: n, expression: objects.StringAt(c, "expression"), prg: compile(field+".expression", objects.StringAt(c, "expression"), nil),
			line: objects.LineAt(d.pos, field+".expression", d.line)})
	}
	checks := objects.MapsAt(spec, "validations")
	if len(checks) == 0 {
		probs = append(probs, d.problem("spec.validations", "a rule's policy needs validations: they are what it checks"))
	}
	for i, c := range checks {
		field := objects.IndexPath("spec.validations", i)
		val := validation{expression: objects.StringAt(c, "expression"), message: objects.StringAt(c, "message"), prg: compile(field+".expression", objects.StringAt(c, "expression"), cel.BoolType),
			line: objects.LineAt(d.pos, field+".expression", d.line)}
		if _, given := c["messageExpression"]; given {
			val.messageExpr = compile(field+".messageExpression", objects.StringAt(c, "messageExpression"), cel.StringType)
		}
		v.checks = append(v.checks, val)
		if v.rule.Description == "" {
			v.rule.Description = val.message
		}
	}
	if len(probs) > 0 {
		return nil, probs
	}
	return v, nil
}

// check runs the policy on o, as the API server would on its creation,
// within the sandbox's limits: a refusal is a finding. An expression that
// fails fails the object with the API server's message (failurePolicy
// Fail), and is a problem besides, naming the policy, the object and the
// error, whatever the failure policy: the rule is wrong, and says nothing
// of the object. Past the sandbox's limits the policy is stopped, named
// with the object, and run on no other.
func (v *vapRule) check(o *objects.Object, view *View, add func(rule, severity, field, msg string)) Problems {
	if v.stopped.Load() {
		return nil
	}
	ctx, done := v.sandbox.evaluation()
	defer done()
	r := v.review(ctx, o, view)
	if r.stop != nil {
		v.stopped.Store(true)
		return Problems{stopProblem(v.rule, o, r.stop)}
	}
	severity := v.rule.Severities[0]
	var probs Problems
	fail := func(x Verdict) {
		probs = append(probs, evalProblem(v.rule, v.rule.File, x.line, o, x.problem))
		if !v.failOpen {
			add(v.rule.ID, severity, "", x.Message)
		}
	}
	if r.Error.Failed {
		fail(r.Error)
	}
	for _, x := range r.Validations {
		switch {
		case x.Failed:
			fail(x)
		case x.Message != "":
			add(v.rule.ID, severity, "", x.Message)
		}
	}
	return probs
}

// Review is what a CEL rule's policy says of one object's creation, as
// the API server gives it.
type Review struct {
	// Reviewed says that the policy reviews the object: its
	// matchConstraints select it and no matchCondition is false.
	Reviewed bool
	// Error, when a matchCondition fails (and none is false), says so
	// (Failed); no validation then runs.
	Error Verdict
	// Validations are the verdicts of the policy's validations, in
	// order.
	Validations []Verdict

	stop *stopped // the sandbox stopped the review
}

// Verdict is what one validation says of an object: Message is its
// refusal's message, "" when the object passes; Failed says that the
// validation failed to evaluate (Message then says so as the API server
// does).
type Verdict struct {
	Message string
	Failed  bool

	problem string // of a failed evaluation: what failed and why
	line    int    // where what failed is written
}

// Review is the review of o by the CEL rule id, which reads no decision
// of OME's, within the sandbox's limits; ok is false when there is no
// such rule. A review the sandbox stops is Failed, and says why.
func (s *Set) Review(id string, o *objects.Object) (r Review, ok bool) {
	for _, v := range s.cel {
		if v.rule.ID == id && !v.rule.Decisions {
			ctx, done := v.sandbox.evaluation()
			defer done()
			r = v.review(ctx, o, nil)
			if r.stop != nil {
				r.Error = Verdict{Failed: true, Message: r.stop.Error()}
			}
			return r, true
		}
	}
	return Review{}, false
}

func (v *vapRule) review(ctx context.Context, o *objects.Object, view *View) Review {
	if !v.match.matches(o) {
		return Review{}
	}
	ns := any(nil)
	vars := map[string]any{}
	decisions := map[string]any{}
	if view != nil {
		decisions = map[string]any{"objects": view.Objects, "decision": view.Decision}
	}
	act := map[string]any{
		"object": o.Value, "oldObject": nil, "params": nil, "namespaceObject": ns, "variables": vars, DecisionsDocument: decisions,
		"request": map[string]any{
			"operation": "CREATE", "name": o.Name, "namespace": o.Namespace,
			"kind":     map[string]any{"group": groupOf(o), "version": versionOf(o), "kind": o.Kind},
			"resource": map[string]any{"group": groupOf(o), "version": versionOf(o), "resource": resourceOf(o.Kind)},
		},
	}
	// failed is the verdict of an evaluation that failed: what the API
	// server says (message), and the problem (what failed, and why).
	failed := func(line int, what string, err error, message string) Verdict {
		why := err.Error()
		if strings.Contains(why, "cost limit exceeded") {
			why = fmt.Sprintf("past Kubernetes' cost limit of %d per expression (%s)", PerCallCostLimit, why)
		}
		return Verdict{Failed: true, Message: message, problem: what + ": " + why, line: line}
	}
	// As Kubernetes' matcher: a condition that is false spares the
	// object, whatever the others give; else the first that fails fails
	// the review.
	var condition Verdict
	for _, c := range v.conditions {
		out, _, err := c.prg.ContextEval(ctx, act)
		switch {
		case err != nil && stopCause(ctx) != nil:
			return Review{stop: stopCause(ctx)}
		case err != nil && !condition.Failed:
			condition = failed(c.line, fmt.Sprintf("matchCondition %q", c.name), err, fmt.Sprintf("matchCondition %q resulted in error: %v", c.name, err))
		case err == nil && out != types.True:
			return Review{}
		}
	}
	if condition.Failed {
		return Review{Reviewed: true, Error: condition}
	}
	for _, x := range v.variables {
		// A variable that fails is left out: an expression that reads it
		// fails in turn, naming it.
		out, _, err := x.prg.ContextEval(ctx, act)
		if err == nil {
			vars[x.name] = out
		} else if s := stopCause(ctx); s != nil {
			return Review{stop: s}
		}
	}
	r := Review{Reviewed: true}
	for _, c := range v.checks {
		out, _, err := c.prg.ContextEval(ctx, act)
		switch {
		case err != nil && stopCause(ctx) != nil:
			return Review{stop: stopCause(ctx)}
		case err != nil:
			r.Validations = append(r.Validations, failed(c.line, fmt.Sprintf("expression '%s'", c.expression), err, fmt.Sprintf("expression '%s' resulted in error: %v", c.expression, err)))
		case out == types.False:
			r.Validations = append(r.Validations, Verdict{Message: c.messageFor(ctx, act)})
		case out != types.True:
			msg := fmt.Sprintf("expression '%s' gave %v, not a boolean", c.expression, out)
			r.Validations = append(r.Validations, Verdict{Failed: true, Message: msg, problem: msg, line: c.line})
		default:
			r.Validations = append(r.Validations, Verdict{})
		}
	}
	return r
}

// emptyInputs is a cost estimator that takes every list, map and string
// whose size CEL does not know (those of the object under review, and of
// what is made of them) as empty: the estimate is then what the expression
// costs at the least, on any object. The API server stops an evaluation
// past its limit however the policy was written, so one whose least cost
// is over it can never pass.
type emptyInputs struct{}

func (emptyInputs) EstimateSize(checker.AstNode) *checker.SizeEstimate {
	return &checker.SizeEstimate{}
}

func (emptyInputs) EstimateCallCost(string, string, *checker.AstNode, []checker.AstNode) *checker.CallEstimate {
	return nil
}

// messageFor is a failed validation's message, as the API server gives
// it: its messageExpression's string when that gives one (trimmed, not
// empty, on one line, at most maxMessage bytes), else its message
// (trimmed), else the expression that failed.
func (c validation) messageFor(ctx context.Context, act map[string]any) string {
	if c.messageExpr != nil {
		if out, _, err := c.messageExpr.ContextEval(ctx, act); err == nil {
			if s, ok := out.Value().(string); ok {
				if s = strings.TrimSpace(s); s != "" && len(s) <= maxMessage && !strings.Contains(s, "\n") {
					return s
				}
			}
		}
	}
	if m := strings.TrimSpace(c.message); m != "" {
		return m
	}
	return "failed expression: " + strings.TrimSpace(c.expression)
}

// maxMessage is the longest message a messageExpression may give the API
// server (Kubernetes' MaxEvaluatedMessageExpressionSizeBytes).
const maxMessage = 5 * 1024

func groupOf(o *objects.Object) string {
	g, _, _ := strings.Cut(apiVersionOf(o), "/")
	return g
}

func versionOf(o *objects.Object) string {
	_, v, _ := strings.Cut(apiVersionOf(o), "/")
	return v
}

// apiVersionOf is o's apiVersion (a model read from a folder has none of
// its own: it is OME's).
func apiVersionOf(o *objects.Object) string {
	if o.APIVersion != "" {
		return o.APIVersion
	}
	return objects.APIVersion
}

// resourceOf is the resource (plural) of one of OME's kinds.
func resourceOf(kind string) string { return strings.ToLower(kind) + "s" }
