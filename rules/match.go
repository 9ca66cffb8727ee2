package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ome-policy/evaluator/objects"
)

// resourceMatch is a policy's matchConstraints: the objects it judges, as
// the API server picks them for a create.
type resourceMatch struct {
	include, exclude []resourceRule
	objectSelector   labelSelector
}

// resourceRule is one of resourceRules or excludeResourceRules.
type resourceRule struct {
	groups, versions, resources, operations, names []string
	scope                                          string
}

// labelSelector is a Kubernetes label selector: matchLabels and
// matchExpressions (In, NotIn, Exists, DoesNotExist).
type labelSelector struct {
	labels      map[string]string
	expressions []labelExpression
}

type labelExpression struct {
	key, operator string
	values        []string
}

// omeKinds are the kinds a rule can judge: those evaluate reads.
var omeKinds = []string{objects.KindBaseModel, objects.KindClusterBaseModel, objects.KindServingRuntime,
	objects.KindClusterServingRuntime, objects.KindInferenceService}

// readMatch reads a policy's matchConstraints. What evaluate cannot judge
// offline (a namespaceSelector, which reads the namespace's labels) is a
// problem, as is a policy that selects none of OME's kinds.
func readMatch(d vapDocument) (resourceMatch, Problems) {
	var m resourceMatch
	var probs Problems
	spec, _ := d.value["spec"].(map[string]any)
	mc, _ := spec["matchConstraints"].(map[string]any)
	if mc == nil {
		return m, Problems{d.problem("spec.matchConstraints", "a rule's policy names the kinds it judges in matchConstraints.resourceRules")}
	}
	read := func(key string) []resourceRule {
		var out []resourceRule
		for i, r := range objects.MapsAt(mc, key) {
			field := objects.IndexPath("spec.matchConstraints."+key, i)
			rr := resourceRule{groups: strs(r, "apiGroups"), versions: strs(r, "apiVersions"), resources: strs(r, "resources"),
				operations: strs(r, "operations"), names: strs(r, "resourceNames"), scope: objects.StringAt(r, "scope")}
			switch rr.scope {
			case "", "*", "Cluster", "Namespaced":
			default:
				probs = append(probs, d.problem(field+".scope", "%q is not a scope (*, Cluster or Namespaced)", rr.scope))
			}
			out = append(out, rr)
		}
		return out
	}
	m.include = read("resourceRules")
	m.exclude = read("excludeResourceRules")
	if ns, _ := mc["namespaceSelector"].(map[string]any); len(ns) > 0 {
		probs = append(probs, d.problem("spec.matchConstraints.namespaceSelector",
			"a namespaceSelector reads the labels of Namespaces, which evaluate does not read: select by the object (objectSelector, or a matchCondition on object.metadata.namespace)"))
	}
	sel, ps := readSelector(d, "spec.matchConstraints.objectSelector", mc["objectSelector"])
	m.objectSelector = sel
	probs = append(probs, ps...)
	if len(probs) > 0 {
		return m, probs
	}
	selected := false
	for _, k := range omeKinds {
		if m.selects(k) {
			selected = true
		}
	}
	if !selected {
		probs = append(probs, d.problem("spec.matchConstraints.resourceRules",
			"selects none of the kinds evaluate reads (%s of ome.io, on CREATE or UPDATE)", strings.Join(kindResources(), ", ")))
	}
	return m, probs
}

func kindResources() []string {
	out := make([]string, len(omeKinds))
	for i, k := range omeKinds {
		out[i] = resourceOf(k)
	}
	return out
}

func strs(m map[string]any, key string) []string {
	list, _ := m[key].([]any)
	out := make([]string, 0, len(list))
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func readSelector(d vapDocument, field string, v any) (labelSelector, Problems) {
	var sel labelSelector
	m, _ := v.(map[string]any)
	if len(m) == 0 {
		return sel, nil
	}
	var probs Problems
	if ls, _ := m["matchLabels"].(map[string]any); len(ls) > 0 {
		sel.labels = map[string]string{}
		for k, x := range ls {
			s, _ := x.(string)
			sel.labels[k] = s
		}
	}
	for i, e := range objects.MapsAt(m, "matchExpressions") {
		x := labelExpression{key: objects.StringAt(e, "key"), operator: objects.StringAt(e, "operator"), values: strs(e, "values")}
		switch x.operator {
		case "In", "NotIn", "Exists", "DoesNotExist":
		default:
			probs = append(probs, d.problem(objects.IndexPath(field+".matchExpressions", i)+".operator",
				"%q is not a label selector operator (In, NotIn, Exists, DoesNotExist)", x.operator))
		}
		sel.expressions = append(sel.expressions, x)
	}
	return sel, probs
}

// selects reports whether the rules take an object of kind at all (its
// name and labels aside): whether the policy can ever judge the kind. An
// exclusion of some names only leaves the kind to judge.
func (m resourceMatch) selects(kind string) bool {
	o := &objects.Object{Kind: kind}
	for _, r := range m.exclude {
		if len(r.names) == 0 && r.matches(o, false) {
			return false
		}
	}
	return m.anyRule(m.include, o, false)
}

// matches reports whether the policy judges o.
func (m resourceMatch) matches(o *objects.Object) bool {
	return m.anyRule(m.include, o, true) && !m.anyRule(m.exclude, o, true) && m.objectSelector.matches(o)
}

func (m resourceMatch) anyRule(rules []resourceRule, o *objects.Object, byName bool) bool {
	for _, r := range rules {
		if r.matches(o, byName) {
			return true
		}
	}
	return false
}

func (r resourceRule) matches(o *objects.Object, byName bool) bool {
	clusterScoped := o.Kind == objects.KindClusterBaseModel || o.Kind == objects.KindClusterServingRuntime
	switch {
	case !matchesAny(r.groups, groupOf(o)), !matchesAny(r.versions, versionOf(o)):
		return false
	case !slices.Contains(r.resources, "*") && !slices.Contains(r.resources, "*/*") && !slices.Contains(r.resources, resourceOf(o.Kind)):
		return false
	case !matchesAny(r.operations, "CREATE") && !slices.Contains(r.operations, "UPDATE"):
		return false
	case r.scope == "Cluster" && !clusterScoped, r.scope == "Namespaced" && clusterScoped:
		return false
	case byName && len(r.names) > 0 && !slices.Contains(r.names, o.Name):
		return false
	}
	return true
}

func matchesAny(list []string, s string) bool {
	return slices.Contains(list, "*") || slices.Contains(list, s)
}

func (s labelSelector) matches(o *objects.Object) bool {
	meta, _ := o.Value["metadata"].(map[string]any)
	raw, _ := meta["labels"].(map[string]any)
	labels := map[string]string{}
	for k, v := range raw {
		labels[k] = fmt.Sprint(v)
	}
	for k, v := range s.labels {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	for _, e := range s.expressions {
		got, ok := labels[e.key]
		switch e.operator {
		case "In":
			if !ok || !slices.Contains(e.values, got) {
				return false
			}
		case "NotIn":
			if ok && slices.Contains(e.values, got) {
				return false
			}
		case "Exists":
			if !ok {
				return false
			}
		case "DoesNotExist":
			if ok {
				return false
			}
		}
	}
	return true
}
