package admission

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/util/validation"

	"gopkg.in/yaml.v3"

	"github.com/ome-policy/evaluator/objects"
)

// Exemptions are the objects that a bundle's admission leaves alone, made
// the engines' way: namespaces whose objects no check reviews, and a label
// selector that the objects it reviews must match. Gatekeeper writes them
// into each constraint's match (excludedNamespaces, labelSelector), the
// ValidatingAdmissionPolicies into each binding's matchResources
// (namespaceSelector, objectSelector), Kyverno into each policy's
// matchConstraints. An object's own annotation (evaluate.ome.io/ignore)
// exempts it from nothing at admission: whoever writes the object would
// choose its exemption.
type Exemptions struct {
	// Namespaces are exempt, whole: their namespaced objects are never
	// reviewed (a cluster-scoped object has no namespace to exempt it).
	Namespaces []string
	// Selector is the label selector (kubectl's syntax) of the objects
	// reviewed; the others are exempt. "" reviews every object.
	Selector string

	selector labels.Selector
	labelSel *metav1.LabelSelector
}

// NewExemptions checks namespaces (exact names, as a
// ValidatingAdmissionPolicy's namespaceSelector matches them) and
// selector.
func NewExemptions(namespaces []string, selector string) (Exemptions, error) {
	e := Exemptions{Selector: strings.TrimSpace(selector)}
	for _, ns := range namespaces {
		ns = strings.TrimSpace(ns)
		if ns == "" {
			continue
		}
		if errs := validation.IsDNS1123Label(ns); len(errs) > 0 {
			return e, fmt.Errorf("--exempt-namespaces: %q is no namespace name: %s", ns, strings.Join(errs, "; "))
		}
		e.Namespaces = append(e.Namespaces, ns)
	}
	if e.Selector != "" {
		var err error
		if e.selector, err = labels.Parse(e.Selector); err != nil {
			return e, fmt.Errorf("--label-selector: %w", err)
		}
		if e.labelSel, err = labelSelectorOf(e.selector); err != nil {
			return e, fmt.Errorf("--label-selector: %w", err)
		}
	}
	return e, nil
}

// labelSelectorOf writes a parsed selector as the API's LabelSelector:
// key=value in matchLabels, key!=value as NotIn (which an object without
// the label matches too, as != does), the set operators and (!)key as
// they are; > and <, which a LabelSelector cannot say, are refused.
func labelSelectorOf(sel labels.Selector) (*metav1.LabelSelector, error) {
	reqs, _ := sel.Requirements()
	out := &metav1.LabelSelector{}
	for _, r := range reqs {
		vals := r.Values().List()
		var op metav1.LabelSelectorOperator
		switch r.Operator() {
		case selection.Equals, selection.DoubleEquals:
			if out.MatchLabels == nil {
				out.MatchLabels = map[string]string{}
			}
			out.MatchLabels[r.Key()] = vals[0]
			continue
		case selection.NotEquals, selection.NotIn:
			op = metav1.LabelSelectorOpNotIn
		case selection.In:
			op = metav1.LabelSelectorOpIn
		case selection.Exists:
			op = metav1.LabelSelectorOpExists
			vals = nil
		case selection.DoesNotExist:
			op = metav1.LabelSelectorOpDoesNotExist
			vals = nil
		default:
			return nil, fmt.Errorf("%s: the API's label selectors have no %s", r.String(), r.Operator())
		}
		out.MatchExpressions = append(out.MatchExpressions, metav1.LabelSelectorRequirement{Key: r.Key(), Operator: op, Values: vals})
	}
	return out, nil
}

// Any says whether some object may be exempt.
func (e Exemptions) Any() bool { return len(e.Namespaces) > 0 || e.Selector != "" }

// Exempt says whether admission leaves the object (its value) alone.
func (e Exemptions) Exempt(value map[string]any) bool {
	meta, _ := value["metadata"].(map[string]any)
	if ns, _ := meta["namespace"].(string); ns != "" && namespaced(value) {
		for _, x := range e.Namespaces {
			if x == ns {
				return true
			}
		}
	}
	if e.selector == nil {
		return false
	}
	set := labels.Set{}
	l, _ := meta["labels"].(map[string]any)
	for k, v := range l {
		if s, ok := v.(string); ok {
			set[k] = s
		}
	}
	return !e.selector.Matches(set)
}

// namespaced says whether the object's kind has a namespace.
func namespaced(value map[string]any) bool {
	switch value["kind"] {
	case objects.KindClusterBaseModel, objects.KindClusterServingRuntime:
		return false
	}
	return true
}

// labelSelector is the selector as the API writes one (matchLabels,
// matchExpressions), or nil.
func (e Exemptions) labelSelector() map[string]any {
	if e.labelSel == nil {
		return nil
	}
	out := map[string]any{}
	if len(e.labelSel.MatchLabels) > 0 {
		m := map[string]any{}
		for k, v := range e.labelSel.MatchLabels {
			m[k] = v
		}
		out["matchLabels"] = m
	}
	var exprs []any
	for _, r := range e.labelSel.MatchExpressions {
		x := map[string]any{"key": r.Key, "operator": string(r.Operator)}
		if len(r.Values) > 0 {
			vals := make([]any, len(r.Values))
			for i, v := range r.Values {
				vals[i] = v
			}
			x["values"] = vals
		}
		exprs = append(exprs, x)
	}
	if len(exprs) > 0 {
		out["matchExpressions"] = exprs
	}
	return out
}

// GatekeeperMatch adds the exemptions to a constraint's match.
func (e Exemptions) GatekeeperMatch(match map[string]any) {
	if len(e.Namespaces) > 0 {
		match["excludedNamespaces"] = strs(e.Namespaces)
	}
	if s := e.labelSelector(); s != nil {
		match["labelSelector"] = s
	}
}

// MatchResources adds the exemptions to the matchResources of a
// ValidatingAdmissionPolicyBinding, or the matchConstraints of a Kyverno
// policy: a namespaceSelector that leaves out the exempt namespaces by
// their name label (kubernetes.io/metadata.name, which the API server
// sets on every namespace), and the selector as the objectSelector; each
// beside what the rule's own selectors ask, which must hold too.
func (e Exemptions) MatchResources(m map[string]any) {
	if len(e.Namespaces) > 0 {
		sel, _ := m["namespaceSelector"].(map[string]any)
		if sel == nil {
			sel = map[string]any{}
		}
		exprs, _ := sel["matchExpressions"].([]any)
		sel["matchExpressions"] = append(exprs, map[string]any{
			"key": "kubernetes.io/metadata.name", "operator": "NotIn", "values": strs(e.Namespaces)})
		m["namespaceSelector"] = sel
	}
	if s := e.labelSelector(); s != nil {
		sel, _ := m["objectSelector"].(map[string]any)
		if sel == nil {
			sel = map[string]any{}
		}
		if ml, ok := s["matchLabels"].(map[string]any); ok {
			own, _ := sel["matchLabels"].(map[string]any)
			if own == nil {
				own = map[string]any{}
			}
			for k, v := range ml {
				own[k] = v
			}
			sel["matchLabels"] = own
		}
		if me, ok := s["matchExpressions"].([]any); ok {
			exprs, _ := sel["matchExpressions"].([]any)
			sel["matchExpressions"] = append(exprs, me...)
		}
		m["objectSelector"] = sel
	}
}

func strs(list []string) []any {
	out := make([]any, len(list))
	for i, s := range list {
		out[i] = s
	}
	return out
}

// AddToMatch adds the exemptions to a constraint's match, a mapping node.
func (e Exemptions) AddToMatch(match *yaml.Node) {
	m := map[string]any{}
	e.GatekeeperMatch(m)
	addKeys(match, m, "excludedNamespaces", "labelSelector")
}

// AddToMatchResources adds the exemptions to a mapping node that says
// which objects a policy reviews and that has no selector of its own (a
// binding's matchResources, a Kyverno policy's matchConstraints).
func (e Exemptions) AddToMatchResources(n *yaml.Node) {
	m := map[string]any{}
	e.MatchResources(m)
	addKeys(n, m, "namespaceSelector", "objectSelector")
}

// addKeys appends the keys of m, in order, to the mapping node n.
func addKeys(n *yaml.Node, m map[string]any, keys ...string) {
	for _, k := range keys {
		if v, ok := m[k]; ok {
			n.Content = append(n.Content, Str(k), Value(v))
		}
	}
}
