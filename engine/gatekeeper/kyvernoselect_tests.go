package gatekeeper

import (
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

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
	crd := mapping(
		"apiVersion", "apiextensions.k8s.io/v1",
		"kind", "CustomResourceDefinition",
		"metadata", mapping("name", plural+".ome.io"),
		"spec", mapping(
			"group", "ome.io",
			"names", mapping("kind", kind, "listKind", kind+"List", "plural", plural, "singular", strings.ToLower(kind)),
			"scope", scope,
			"versions", seq(mapping(
				"name", "v1beta1",
				"served", true,
				"storage", true,
				"schema", mapping("openAPIV3Schema", mapping("type", "object", "x-kubernetes-preserve-unknown-fields", true)),
			)),
		),
	)
	return document(withComment(crd, kyvernoGenerated+"\n"+kind+", as kyverno test needs it to map the kind: its names and scope, every field kept."))
}

var (
	floatSyntaxRE  = regexp.MustCompile(floatSyntax)
	floatInRangeRE = regexp.MustCompile(floatInRange)
	plainURLRE     = regexp.MustCompile(plainURL)
)

// KyvernoLeaves reports whether an InferenceService, with the models and
// runtimes of its cluster, may hold what the Kyverno selection policy
// leaves to Gatekeeper (src/omeruntimeselection.kyverno.yaml's unstated):
// a KEDA address that is not plain, a number beyond float64's range in a
// KEDA setting or a size, or more models and runtimes, or runtime entries,
// than it can look at within CEL's cost limit. The policy admits such an InferenceService
// unless a check before the one it cannot decide refuses it.
func KyvernoLeaves(isvc map[string]any, objs []map[string]any) bool {
	far := func(s string) bool {
		s = strings.TrimRight(s, "TBM")
		return floatSyntaxRE.MatchString(s) && !floatInRangeRE.MatchString(s)
	}
	leaves := false
	var walk func(key string, v any)
	walk = func(key string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				walk(k, e)
			}
		case []any:
			for _, e := range x {
				walk(key, e)
			}
		case string:
			address := key == "promServerAddress" || key == "autoscaling.keda.sh/prometheus.serverAddress"
			if address && !plainURLRE.MatchString(x) || far(x) {
				leaves = true
			}
		}
	}
	walk("", isvc)
	entries := 0
	for _, o := range objs {
		walk("", o)
		spec, _ := o["spec"].(map[string]any)
		list, _ := spec["supportedModelFormats"].([]any)
		entries += len(list)
	}
	return leaves || len(objs) > kyvernoMaxObjects || entries > kyvernoMaxEntries
}

// The most models and runtimes, and runtime entries, that the Kyverno
// selection policy looks at (its unstatedScale): beyond, it admits.
const kyvernoMaxObjects, kyvernoMaxEntries = 600, 600

// kyvernoLeaves is KyvernoLeaves of a case. Such cases are not in the
// Tests; TestKyvernoSelectionAgrees checks that the policy refuses none of
// them wrongly.
func kyvernoLeaves(c cases.Case) bool {
	objs := make([]map[string]any, len(c.Objects))
	for i, o := range c.Objects {
		objs[i] = o.Value
	}
	return KyvernoLeaves(c.InferenceService.Value, objs)
}

// kyvernoSelectionTests writes the Tests of the selection cases that hold
// an InferenceService and say whether it is admitted.
func kyvernoSelectionTests(list []cases.Case) Bundle {
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
		if c.InferenceService == nil || c.Expect.Admitted == nil || kyvernoLeaves(c) {
			continue
		}
		isvc := deepCopy(c.InferenceService.Value)
		meta, _ := isvc["metadata"].(map[string]any)
		if ns, _ := meta["namespace"].(string); ns == "" {
			meta["namespace"] = "default" // where OME and Kyverno take it
		}
		ref := meta["namespace"].(string) + "/" + c.InferenceService.Name
		var objs []any
		kept, _ := objects.Deduplicate(c.Objects) // what apply leaves
		for _, o := range kept {
			objs = append(objs, deepCopy(o.Value))
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
		return Bundle{}
	}
	b := Bundle{}
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
			isvcs = append(isvcs, value(m.isvc))
			result := "pass"
			if m.fails {
				result = "fail"
			}
			r := mapping(
				"policy", kyvernoSelectionName,
				"isValidatingPolicy", true,
				"kind", "InferenceService",
				"resources", strs([]string{m.ref}),
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
			resources = append(resources, mapping("apiVersion", "v1", "kind", "Namespace", "metadata", mapping("name", ns)))
		}
		for _, o := range g.objects {
			resources = append(resources, value(o))
		}
		cluster := fmt.Sprintf("cluster-%d.yaml", n)
		res := fmt.Sprintf("resources-%d.yaml", n)
		b[cluster] = document(mapping(
			"apiVersion", "cli.kyverno.io/v1alpha1",
			"kind", "ClusterResource",
			"metadata", mapping("name", fmt.Sprintf("%s-%d", kyvernoSelectionName, n)),
			"spec", mapping("crds", strs(crds), "resources", seq(resources...)),
		))
		b[res] = document(isvcs...)
		tests = append(tests, mapping(
			"apiVersion", "cli.kyverno.io/v1alpha1",
			"kind", "Test",
			"metadata", mapping("name", fmt.Sprintf("%s-%d", kyvernoSelectionName, n)),
			"policies", strs([]string{"../" + kyvernoSelectionName + ".yaml"}),
			"resources", strs([]string{res}),
			"clusterResources", strs([]string{cluster}),
			"results", seq(results...),
		))
	}
	tests[0] = withComment(tests[0], kyvernoGenerated+"\n"+
		"Run: kubectl-kyverno test <the policy's folder>\n"+
		"The InferenceServices of the selection cases; resource.List reads the\n"+
		"models and runtimes of each Test's clusterResources. A failing result's\n"+
		"comment is the message Kyverno gives, OME's.")
	b["kyverno-test.yaml"] = document(tests...)
	return b
}
