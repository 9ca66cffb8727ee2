package kyverno

import (
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/ome-policy/evaluator/admission"
	"github.com/ome-policy/evaluator/cases"
	"github.com/ome-policy/evaluator/objects"
)

// The selection policy's .kyverno-test, made of the selection cases of the
// Gatekeeper suite. kyverno test feeds resource.List from a Test's
// clusterResources (a ClusterResource: the CRDs of OME's kinds, and the
// objects), so the cases that share their models and runtimes are one
// Test: cluster-N.yaml holds those objects and the Namespaces,
// resources-N.yaml the InferenceServices, each expected to fail (with the
// case's message in a comment) or to pass.

// kyvernoCRDKinds are OME's kinds that the Tests hold, with their plurals
// and scopes, for the CRDs that let kyverno test map them.
var kyvernoCRDKinds = []struct{ kind, plural, scope string }{
	{"BaseModel", "basemodels", "Namespaced"},
	{"ClusterBaseModel", "clusterbasemodels", "Cluster"},
	{"ServingRuntime", "servingruntimes", "Namespaced"},
	{"ClusterServingRuntime", "clusterservingruntimes", "Cluster"},
	{"InferenceService", "inferenceservices", "Namespaced"},
}

// kyvernoCRD is a CRD of an OME kind that names it and keeps every field:
// what kyverno test needs to map the kind and list its objects (the API
// server's schema is OME's; evaluate checks objects against it).
func kyvernoCRD(kind, plural, scope string) []byte {
	crd := admission.Mapping(
		"apiVersion", "apiextensions.k8s.io/v1",
		"kind", "CustomResourceDefinition",
		"metadata", admission.Mapping("name", plural+".ome.io"),
		"spec", admission.Mapping(
			"group", "ome.io",
			"names", admission.Mapping("kind", kind, "listKind", kind+"List", "plural", plural, "singular", strings.ToLower(kind)),
			"scope", scope,
			"versions", admission.Seq(admission.Mapping(
				"name", "v1beta1",
				"served", true,
				"storage", true,
				"schema", admission.Mapping("openAPIV3Schema", admission.Mapping("type", "object", "x-kubernetes-preserve-unknown-fields", true)),
			)),
		),
	)
	return admission.Document(admission.WithComment(crd, kyvernoGenerated+"\n"+kind+", as kyverno test needs it to map the kind: its names and scope, every field kept."))
}

// kyvernoSelectionTests writes the Tests of the selection cases that hold
// an InferenceService and say whether it is admitted.
func kyvernoSelectionTests(list []cases.Case) admission.Bundle {
	type member struct {
		isvc    map[string]any
		ref     string
		fails   bool
		message string
	}
	type group struct {
		objects []any
		refs    map[string]bool
		members []member
	}
	var groups []*group
	byKey := map[string][]*group{}
	for _, c := range list {
		if c.InferenceService == nil || c.Expect.Admitted == nil || admission.KyvernoLeavesCase(c) {
			continue
		}
		isvc := admission.DeepCopy(c.InferenceService.Value)
		meta, _ := isvc["metadata"].(map[string]any)
		if ns, _ := meta["namespace"].(string); ns == "" {
			meta["namespace"] = "default" // where OME and Kyverno take it
		}
		ref := meta["namespace"].(string) + "/" + c.InferenceService.Name
		var objs []any
		kept, _ := objects.Deduplicate(c.Objects) // what apply leaves
		for _, o := range kept {
			objs = append(objs, admission.DeepCopy(o.Value))
		}
		key, err := json.Marshal(objs)
		if err != nil {
			panic(err)
		}
		var g *group
		for _, h := range byKey[string(key)] {
			if !h.refs[ref] {
				g = h
				break
			}
		}
		if g == nil {
			g = &group{objects: objs, refs: map[string]bool{}}
			groups = append(groups, g)
			byKey[string(key)] = append(byKey[string(key)], g)
		}
		g.refs[ref] = true
		m := member{isvc: isvc, ref: ref, fails: !*c.Expect.Admitted}
		if m.fails && c.Expect.Message != nil {
			m.message = *c.Expect.Message
		}
		g.members = append(g.members, m)
	}
	if len(groups) == 0 {
		return admission.Bundle{}
	}
	b := admission.Bundle{}
	var crds []string
	for _, k := range kyvernoCRDKinds {
		file := path.Join("crds", k.plural+".yaml")
		b[file] = kyvernoCRD(k.kind, k.plural, k.scope)
		crds = append(crds, file)
	}
	var tests []*yaml.Node
	for i, g := range groups {
		n := i + 1
		namespaces := map[string]bool{"default": true}
		var isvcs []*yaml.Node
		var results []*yaml.Node
		for _, m := range g.members {
			namespaces[strings.SplitN(m.ref, "/", 2)[0]] = true
			isvcs = append(isvcs, admission.Value(m.isvc))
			result := "pass"
			if m.fails {
				result = "fail"
			}
			r := admission.Mapping(
				"policy", kyvernoSelectionName,
				"isValidatingPolicy", true,
				"kind", "InferenceService",
				"resources", admission.Strs([]string{m.ref}),
				"result", result,
			)
			if m.message != "" {
				r.HeadComment = m.message
			}
			results = append(results, r)
		}
		var resources []*yaml.Node
		for _, o := range g.objects {
			om, _ := o.(map[string]any)
			if meta, _ := om["metadata"].(map[string]any); meta != nil {
				if ns, _ := meta["namespace"].(string); ns != "" {
					namespaces[ns] = true
				}
			}
		}
		names := make([]string, 0, len(namespaces))
		for ns := range namespaces {
			names = append(names, ns)
		}
		sort.Strings(names)
		for _, ns := range names {
			resources = append(resources, admission.Mapping("apiVersion", "v1", "kind", "Namespace", "metadata", admission.Mapping("name", ns)))
		}
		for _, o := range g.objects {
			resources = append(resources, admission.Value(o))
		}
		cluster := fmt.Sprintf("cluster-%d.yaml", n)
		res := fmt.Sprintf("resources-%d.yaml", n)
		b[cluster] = admission.Document(admission.Mapping(
			"apiVersion", "cli.kyverno.io/v1alpha1",
			"kind", "ClusterResource",
			"metadata", admission.Mapping("name", fmt.Sprintf("%s-%d", kyvernoSelectionName, n)),
			"spec", admission.Mapping("crds", admission.Strs(crds), "resources", admission.Seq(resources...)),
		))
		b[res] = admission.Document(isvcs...)
		tests = append(tests, admission.Mapping(
			"apiVersion", "cli.kyverno.io/v1alpha1",
			"kind", "Test",
			"metadata", admission.Mapping("name", fmt.Sprintf("%s-%d", kyvernoSelectionName, n)),
			"policies", admission.Strs([]string{"../" + kyvernoSelectionName + ".yaml"}),
			"resources", admission.Strs([]string{res}),
			"clusterResources", admission.Strs([]string{cluster}),
			"results", admission.Seq(results...),
		))
	}
	tests[0] = admission.WithComment(tests[0], kyvernoGenerated+"\n"+
		"Run: kubectl-kyverno test <the policy's folder>\n"+
		"The InferenceServices of the selection cases; resource.List reads the\n"+
		"models and runtimes of each Test's clusterResources. A failing result's\n"+
		"comment is the message Kyverno gives, OME's.")
	b["kyverno-test.yaml"] = admission.Document(tests...)
	return b
}
