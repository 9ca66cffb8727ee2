package admission

import (
	"fmt"
	"io/fs"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/ome-policy/evaluator/admission/celrewrite"
	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/policies/policyset"
)

// Runtime selection as a Kyverno ValidatingPolicy: the webhook policy of
// policies/cel/select.yaml, with the match policies (policies/cel/match.yaml)
// written into it where it calls omeVerdict, the ome library replaced by
// the stand-ins of kyvernocel.go, and the cluster's models and runtimes read
// with Kyverno's resource.List. src/omeruntimeselection.kyverno.yaml says
// how the inputs are read and what the policy leaves to Gatekeeper.

// kyvernoSelectionSource is the path of the selection policy's source.
const kyvernoSelectionSource = "src/omeruntimeselection.kyverno.yaml"

type kyvernoSelectSource struct {
	// Renames are the webhook policy's inputs that admission has under
	// another name (inferenceService is Kyverno's object).
	Renames map[string]string `yaml:"renames"`
	// Inputs are the webhook policy's inputs that admission reads, as
	// variables; they come first.
	Inputs []CELVariable `yaml:"inputs"`
	// Unstated are the inputs that the stand-ins cannot decide: when one's
	// expression is true, every validation from the one named by from on
	// passes.
	Unstated []struct {
		Name       string `yaml:"name"`
		From       string `yaml:"from"`
		Expression string `yaml:"expression"`
	} `yaml:"unstated"`
}

// CELRule is one validation of a CEL policy.
type CELRule struct {
	Name              string `yaml:"name"`
	Expression        string `yaml:"expression"`
	Message           string `yaml:"message"`
	MessageExpression string `yaml:"messageExpression"`
}

// message is the rule's message as a CEL expression.
func (c CELRule) message(r *celTranslator) (string, error) {
	if c.MessageExpression != "" {
		return r.rewrite(c.MessageExpression)
	}
	return celString(c.Message), nil
}

// KyvernoSelection is the selection policy's variables and validations.
type KyvernoSelection struct {
	Variables   []CELVariable
	Validations []CELRule
	Sources     []string // the files it is made of, for the header
}

// celPolicies reads the CEL policies of set, with the release's changes
// applied, that want names, and the files they come from.
func celPolicies(set *policyset.Set, want func(name string) bool) (map[string]celPolicy, []string, error) {
	policies := map[string]celPolicy{}
	var sources []string
	for _, f := range set.Sources(engine.CEL, false) {
		text, err := f.Source()
		if err != nil {
			return nil, nil, err
		}
		dec := yaml.NewDecoder(strings.NewReader(text))
		used := false
		for {
			var p celPolicy
			if err := dec.Decode(&p); err != nil {
				break
			}
			if p.Kind == "CELPolicy" && p.Metadata.Name != "" && want(p.Metadata.Name) {
				policies[p.Metadata.Name] = p
				used = true
			}
		}
		if used {
			sources = append(sources, policySource(set, f))
			sources = append(sources, changeSources(set, f)...)
		}
	}
	return policies, sources, nil
}

// selectionPolicies reads the entry, runtime and webhook CEL policies of
// set, with the release's changes applied, and the files they come from.
func selectionPolicies(set *policyset.Set) (map[string]celPolicy, []string, error) {
	policies, sources, err := celPolicies(set, func(name string) bool {
		return name == "entry" || name == "runtime" || name == "webhook"
	})
	if err != nil {
		return nil, nil, err
	}
	for _, n := range []string{"entry", "runtime", "webhook"} {
		if _, ok := policies[n]; !ok {
			return nil, nil, fmt.Errorf("CEL policy %s not found", n)
		}
	}
	return policies, sources, nil
}

// bindAll writes body inside one cel.bind per variable of p, each named
// prefix + its name (a binding is evaluated when first used, as a
// variable is).
func bindAll(p celPolicy, prefix string, r *celTranslator, body string) (string, error) {
	var b strings.Builder
	for _, v := range p.Spec.Variables {
		expr, err := r.rewrite(v.Expression)
		if err != nil {
			return "", fmt.Errorf("CEL policy %s, variable %s: %w", p.Metadata.Name, v.Name, err)
		}
		fmt.Fprintf(&b, "cel.bind(%s%s, %s, ", prefix, v.Name, strings.TrimSpace(expr))
	}
	b.WriteString(body)
	b.WriteString(strings.Repeat(")", len(p.Spec.Variables)))
	return b.String(), nil
}

// policyRewriter renames p's inputs (to) and variables (prefix + name).
func policyRewriter(p celPolicy, prefix string, to map[string]string) *celTranslator {
	inputs := map[string]string{}
	for k, v := range to {
		inputs[k] = v
	}
	for _, v := range p.Spec.Variables {
		inputs["variables."+v.Name] = prefix + v.Name
	}
	return &celTranslator{renames: inputs, calls: kyvernoCalls, methods: kyvernoVersionMethods, kyverno: true}
}

// kyvernoVerdict is omeVerdict(model, runtime, classes) in Kyverno's CEL:
// the entry policy on each of the runtime's entries (every failing
// validation is a difference), then the runtime policy (the first failing
// validation is the reason), as engine/cel's matcher runs them.
func kyvernoVerdict(entry, runtime celPolicy) (func(args []string) string, error) {
	er := policyRewriter(entry, "__e_", map[string]string{"model": "__vm", "entry": "__en"})
	var diffs []string
	for _, v := range entry.Spec.Validations {
		cond, err := er.rewrite(v.Expression)
		if err != nil {
			return nil, err
		}
		msg, err := v.message(er)
		if err != nil {
			return nil, err
		}
		diffs = append(diffs, fmt.Sprintf("(%s ? [] : [%s])", strings.TrimSpace(cond), strings.TrimSpace(msg)))
	}
	if len(diffs) == 0 {
		diffs = []string{"[]"}
	}
	entryBody := `cel.bind(__ed, ` + strings.Join(diffs, " + ") + `, {"matched": dyn(__ed.size() == 0), "differences": dyn(__ed), "score": dyn(__e_score)})`
	entryExpr, err := bindAll(entry, "__e_", er, entryBody)
	if err != nil {
		return nil, err
	}

	rr := policyRewriter(runtime, "__r_", map[string]string{"model": "__vm", "runtime": "__vr", "entries": "__entries", "acceleratorClasses": "__vc"})
	var oks, reason strings.Builder
	var binds []string
	for i, v := range runtime.Spec.Validations {
		cond, err := rr.rewrite(v.Expression)
		if err != nil {
			return nil, err
		}
		msg, err := v.message(rr)
		if err != nil {
			return nil, err
		}
		binds = append(binds, fmt.Sprintf("cel.bind(__ok%d, %s, ", i, strings.TrimSpace(cond)))
		if i > 0 {
			oks.WriteString(" && ")
		}
		fmt.Fprintf(&oks, "__ok%d", i)
		fmt.Fprintf(&reason, "!__ok%d ? %s : ", i, strings.TrimSpace(msg))
	}
	if len(binds) == 0 {
		oks.WriteString("true")
	}
	reason.WriteString(`""`)
	runtimeBody := strings.Join(binds, "") +
		`{"compatible": dyn(` + oks.String() + `), "reason": dyn(` + reason.String() + `), "score": dyn(__r_score), "autoSelect": dyn(__r_autoSelect)}` +
		strings.Repeat(")", len(binds))
	runtimeExpr, err := bindAll(runtime, "__r_", rr, runtimeBody)
	if err != nil {
		return nil, err
	}
	return func(a []string) string {
		return "cel.bind(__vm, " + a[0] + ", cel.bind(__vr, " + a[1] + ", cel.bind(__vc, " + a[2] + ", " +
			"cel.bind(__entries, __vr.?supportedModelFormats.orValue([]).map(__en, " + entryExpr + "), " +
			runtimeExpr + "))))"
	}, nil
}

// KyvernoSelectionCEL builds the selection policy of set.
func KyvernoSelectionCEL(set *policyset.Set) (*KyvernoSelection, error) {
	b, err := fs.ReadFile(sources, kyvernoSelectionSource)
	if err != nil {
		return nil, err
	}
	var src kyvernoSelectSource
	if err := yaml.Unmarshal(b, &src); err != nil {
		return nil, fmt.Errorf("%s: %w", kyvernoSelectionSource, err)
	}
	policies, files, err := selectionPolicies(set)
	if err != nil {
		return nil, err
	}
	verdict, err := kyvernoVerdict(policies["entry"], policies["runtime"])
	if err != nil {
		return nil, err
	}
	calls := map[string]func([]string) string{"omeVerdict": verdict}
	for k, v := range kyvernoCalls {
		calls[k] = v
	}
	inputs := map[string]string{}
	for k, v := range src.Renames {
		inputs[k] = v
	}
	for _, in := range src.Inputs {
		inputs[in.Name] = "variables." + in.Name
	}
	r := &celTranslator{renames: inputs, calls: calls, methods: kyvernoVersionMethods, kyverno: true}
	webhook := policies["webhook"]

	// The variables the validations and src's predicates need.
	var used []string
	for _, v := range webhook.Spec.Validations {
		used = append(used, v.Expression, v.MessageExpression)
	}
	for _, u := range src.Unstated {
		used = append(used, u.Expression)
	}
	var names []string
	for _, u := range used {
		if strings.TrimSpace(u) == "" {
			continue
		}
		refs, err := celrewrite.Variables(u)
		if err != nil {
			return nil, fmt.Errorf("CEL policy webhook: %w", err)
		}
		names = append(names, refs...)
	}
	sel := &KyvernoSelection{Sources: append(files, "policies/gatekeeper/"+kyvernoSelectionSource)}
	sel.Variables = append(sel.Variables, src.Inputs...)
	for _, v := range neededVariables(webhook.Spec.Variables, names...) {
		expr, err := r.rewrite(v.Expression)
		if err != nil {
			return nil, fmt.Errorf("CEL policy webhook, variable %s: %w", v.Name, err)
		}
		sel.Variables = append(sel.Variables, CELVariable{Name: v.Name, Expression: expr})
	}
	order := map[string]int{}
	for i, v := range webhook.Spec.Validations {
		order[v.Name] = i
	}
	guards := make([][]string, len(webhook.Spec.Validations))
	for _, u := range src.Unstated {
		from, ok := order[u.From]
		if !ok {
			return nil, fmt.Errorf("%s: unstated %s: no validation %q", kyvernoSelectionSource, u.Name, u.From)
		}
		expr, err := r.rewrite(u.Expression)
		if err != nil {
			return nil, fmt.Errorf("%s: unstated %s: %w", kyvernoSelectionSource, u.Name, err)
		}
		sel.Variables = append(sel.Variables, CELVariable{Name: u.Name, Expression: expr})
		for i := from; i < len(guards); i++ {
			guards[i] = append(guards[i], "variables."+u.Name)
		}
	}
	for i, v := range sel.Variables {
		h, err := homogenize(v.Expression)
		if err != nil {
			return nil, fmt.Errorf("CEL variable %s: %w", v.Name, err)
		}
		sel.Variables[i].Expression = h
	}
	for i, v := range webhook.Spec.Validations {
		cond, err := r.rewrite(v.Expression)
		if err != nil {
			return nil, fmt.Errorf("CEL policy webhook, validation %s: %w", v.Name, err)
		}
		msg, err := v.message(r)
		if err != nil {
			return nil, fmt.Errorf("CEL policy webhook, validation %s: %w", v.Name, err)
		}
		cond = strings.TrimSpace(cond)
		if len(guards[i]) > 0 {
			cond = strings.Join(guards[i], " || ") + " || (" + cond + ")"
		}
		if cond, err = homogenize(cond); err != nil {
			return nil, err
		}
		if msg, err = homogenize(strings.TrimSpace(msg)); err != nil {
			return nil, err
		}
		sel.Validations = append(sel.Validations, CELRule{Name: v.Name, Expression: cond, MessageExpression: msg})
	}
	return sel, nil
}
