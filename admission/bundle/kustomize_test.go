package bundle

import (
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/ome-policy/evaluator/admission/kyverno"
)

// TestKustomizationsListTheBundle: each kustomization names files of its
// bundle only, and the Gatekeeper one lists the sync config, both templates
// and their default constraints, templates before constraints; the Kyverno
// one the RBAC, then the policies.
func TestKustomizationsListTheBundle(t *testing.T) {
	for dir, b := range generated(t) {
		k, ok := b["kustomization.yaml"]
		if dir == "testdata/gatekeeper/sample-selection" {
			if ok {
				t.Errorf("%s: a gator suite needs no kustomization", dir)
			}
			continue
		}
		if !ok {
			t.Fatalf("%s has no kustomization.yaml", dir)
		}
		var doc struct {
			Kind      string   `yaml:"kind"`
			Resources []string `yaml:"resources"`
		}
		if err := yaml.Unmarshal(k, &doc); err != nil {
			t.Fatal(err)
		}
		if doc.Kind != "Kustomization" || len(doc.Resources) == 0 {
			t.Errorf("%s/kustomization.yaml: %+v", dir, doc)
		}
		kinds := map[string]int{}
		for i, r := range doc.Resources {
			data, ok := b[r]
			if !ok {
				t.Errorf("%s/kustomization.yaml lists %s, which the bundle does not have", dir, r)
				continue
			}
			var obj struct {
				Kind string `yaml:"kind"`
			}
			if err := yaml.Unmarshal(data, &obj); err != nil {
				t.Fatal(err)
			}
			if _, seen := kinds[obj.Kind]; !seen {
				kinds[obj.Kind] = i
			}
		}
		if dir == "policies/gatekeeper" {
			for _, kind := range []string{"Config", "ConstraintTemplate", "OMERuntimeSelection", "OMEVersionLint"} {
				if _, ok := kinds[kind]; !ok {
					t.Errorf("%s/kustomization.yaml installs no %s", dir, kind)
				}
			}
			if kinds["ConstraintTemplate"] > kinds["OMERuntimeSelection"] || kinds["ConstraintTemplate"] > kinds["OMEVersionLint"] {
				t.Errorf("%s/kustomization.yaml lists a constraint before the templates", dir)
			}
		}
		// The RBAC, both lint policies and the selection policy, never a
		// test's resources.
		if dir == "policies/kyverno" && (len(doc.Resources) != 2+len(kyverno.Severities) || kinds["ClusterRole"] != 0 || kinds["ValidatingPolicy"] != 1) {
			t.Errorf("%s/kustomization.yaml: %v", dir, doc.Resources)
		}
		if dir == "policies/kubernetes" && (kinds["ValidatingAdmissionPolicy"] != 0 || len(doc.Resources) != len(b)-1) {
			t.Errorf("%s/kustomization.yaml does not list every policy file: %v", dir, doc.Resources)
		}
	}
}
