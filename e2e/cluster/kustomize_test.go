package cluster

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

const repoRoot = "../.."

// The bundles' kustomizations render exactly the objects of the files they
// list, in their order, as `kubectl apply -k` would apply them.
func TestKustomizeRendersTheBundles(t *testing.T) {
	for _, dir := range []string{"policies/gatekeeper", "policies/kubernetes", "policies/kyverno"} {
		t.Run(dir, func(t *testing.T) {
			root := filepath.Join(repoRoot, dir)
			got, err := Kustomize(root)
			if err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(filepath.Join(root, "kustomization.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			var k struct {
				Resources []string `json:"resources"`
			}
			if err := yaml.Unmarshal(data, &k); err != nil {
				t.Fatal(err)
			}
			var files []string
			for _, r := range k.Resources {
				files = append(files, filepath.Join(root, r))
			}
			want, err := readObjects(files...)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) || len(got) == 0 {
				t.Fatalf("%d objects rendered, %d in the files", len(got), len(want))
			}
			for i := range want {
				if !reflect.DeepEqual(got[i].Object, want[i].Object) {
					t.Errorf("object %d: rendered %s %s, the file has %s %s (or their content differs)",
						i, got[i].GetKind(), got[i].GetName(), want[i].GetKind(), want[i].GetName())
				}
			}
		})
	}
}

// docs/gatekeeper.md's dry-run kustomization turns every constraint of the
// bundle to dryrun and leaves the rest as it is.
func TestDryRunKustomizationOfTheDocs(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot, "docs", "gatekeeper.md"))
	if err != nil {
		t.Fatal(err)
	}
	var block []string
	in := false
	for _, l := range strings.Split(string(data), "\n") {
		switch {
		case !in && l == "```yaml":
			in, block = true, nil
		case in && l == "```":
			in = false
			if strings.Contains(strings.Join(block, "\n"), "kind: Kustomization") {
				goto found
			}
		case in:
			block = append(block, l)
		}
	}
	t.Fatal("docs/gatekeeper.md has no kustomization")
found:
	bundle := filepath.Join(repoRoot, "policies", "gatekeeper")
	text := strings.Join(block, "\n")
	if !strings.Contains(text, "../policies/gatekeeper") {
		t.Fatalf("the docs' kustomization does not use ../policies/gatekeeper:\n%s", text)
	}
	// kustomize takes a base by a relative path only: the folder is one
	// level deeper than the docs' my-gatekeeper/, in the ignored _scratch/.
	scratch := filepath.Join(repoRoot, "_scratch")
	if err := os.MkdirAll(scratch, 0o755); err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp(scratch, "kustomize-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	text = strings.ReplaceAll(text, "../policies/gatekeeper", "../../policies/gatekeeper")
	if err := os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Kustomize(dir)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := Kustomize(bundle)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(plain) {
		t.Fatalf("%d objects, the bundle has %d", len(got), len(plain))
	}
	constraints := 0
	for i, obj := range got {
		if obj.GroupVersionKind().Group == "constraints.gatekeeper.sh" {
			constraints++
			action, _, _ := unstructuredString(obj.Object, "spec", "enforcementAction")
			if action != "dryrun" {
				t.Errorf("%s %s: enforcementAction %q, want dryrun", obj.GetKind(), obj.GetName(), action)
			}
			continue
		}
		if !reflect.DeepEqual(obj.Object, plain[i].Object) {
			t.Errorf("%s %s changed", obj.GetKind(), obj.GetName())
		}
	}
	if constraints != 3 {
		t.Errorf("%d constraints, want the bundle's 3", constraints)
	}
}

func unstructuredString(obj map[string]any, fields ...string) (string, bool, error) {
	var cur any = obj
	for _, f := range fields {
		m, ok := cur.(map[string]any)
		if !ok {
			return "", false, nil
		}
		cur = m[f]
	}
	s, ok := cur.(string)
	return s, ok, nil
}

// Up installs the bundle's sync config and templates, and of its
// constraints those of UpConstraints.
func TestSplitConstraints(t *testing.T) {
	objs, err := Kustomize(filepath.Join(repoRoot, "policies", "gatekeeper"))
	if err != nil {
		t.Fatal(err)
	}
	others, constraints, err := splitConstraints(objs, UpConstraints)
	if err != nil {
		t.Fatal(err)
	}
	var kinds, names []string
	for _, o := range others {
		kinds = append(kinds, o.GetKind())
	}
	for _, c := range constraints {
		names = append(names, c.GetName())
	}
	if strings.Join(kinds, " ") != "Config ConstraintTemplate ConstraintTemplate" {
		t.Errorf("the others: %v", kinds)
	}
	if strings.Join(names, " ") != strings.Join(UpConstraints, " ") {
		t.Errorf("the constraints: %v", names)
	}
	if _, _, err := splitConstraints(objs, []string{"no-such-constraint"}); err == nil || !strings.Contains(err.Error(), "no-such-constraint") {
		t.Errorf("a missing constraint: %v", err)
	}
}

// The Kyverno the cluster runs is the one the Makefile builds.
func TestKyvernoVersionIsTheMakefiles(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^KYVERNO_VERSION\s*:=\s*(\S+)$`).FindSubmatch(data)
	if m == nil {
		t.Fatal("the Makefile sets no KYVERNO_VERSION")
	}
	if string(m[1]) != KyvernoVersion {
		t.Errorf("cluster.KyvernoVersion is %s, the Makefile's KYVERNO_VERSION %s", KyvernoVersion, m[1])
	}
}
