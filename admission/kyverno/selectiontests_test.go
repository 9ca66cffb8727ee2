package kyverno

import (
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/ome-policy/evaluator/admission"
	"github.com/ome-policy/evaluator/cases"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/policies/policyset"
)

// recordedCaseFile holds OME's recorded answers, which the Gatekeeper
// bundle runs as a suite of their own (testdata/gatekeeper/sample-selection)
// and the selection policy's Tests are made of here, beside the bundle's
// (the repository's root is two folders up).
const recordedCaseFile = "../../testdata/cases/sample-selection.yaml"

// recordedCases are the cases of recordedCaseFile that hold for release.
func recordedCases(t *testing.T, release string) []cases.Case {
	t.Helper()
	list, err := cases.ReadCases(recordedCaseFile)
	if err != nil {
		t.Fatal(err)
	}
	return cases.ForRelease(list, release)
}

// recordedSelectionFolder writes a policy folder as the bundle lays out the
// selection policy's: a copy of b's selection policy beside a .kyverno-test
// made of list by kyvernoSelectionTests. It returns the folder, for
// kubectl-kyverno test.
func recordedSelectionFolder(t *testing.T, b admission.Bundle, list []cases.Case) string {
	t.Helper()
	policy, ok := b[path.Join(kyvernoSelectionName, kyvernoSelectionName+".yaml")]
	if !ok {
		t.Fatalf("the bundle has no %s", kyvernoSelectionName)
	}
	dir := filepath.Join(t.TempDir(), kyvernoSelectionName)
	tests := admission.Bundle{kyvernoSelectionName + ".yaml": policy}
	tests.Add(".kyverno-test", kyvernoSelectionTests(list))
	if err := tests.Write(dir, tests.Paths(), nil); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestKyvernoSelectionTestsHoldTheCases reads the selection policy's Tests
// back, for every release: those of the bundle (the Gatekeeper suite's
// selection cases) and those made of OME's recorded answers. Each case that
// the policy decides (not KyvernoLeavesCase) is one result, of its
// InferenceService (namespace default when it has none), with its models
// and runtimes as the Test's cluster resources, expected to fail with the
// case's message in the comment above it, or to pass; no other result. None
// of the recorded answers is left to Gatekeeper.
func TestKyvernoSelectionTestsHoldTheCases(t *testing.T) {
	all, err := policyset.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range all.Releases() {
		b, opts := projectBundle(t, all, r)
		bundleTests := admission.Bundle{}
		prefix := path.Join(kyvernoSelectionName, ".kyverno-test") + "/"
		for p, data := range b {
			if strings.HasPrefix(p, prefix) {
				bundleTests[strings.TrimPrefix(p, prefix)] = data
			}
		}
		recorded := recordedCases(t, r)
		if len(recorded) == 0 && r == all.Newest() {
			t.Fatalf("%s: no case for %s", recordedCaseFile, r)
		}
		for _, tc := range []struct {
			name     string
			list     []cases.Case
			tests    admission.Bundle
			leftNone bool // every case is in the Tests
		}{
			{"suite", opts.SelectionCases, bundleTests, false},
			{"sample-selection", recorded, kyvernoSelectionTests(recorded), true},
		} {
			t.Run(r+"/"+tc.name, func(t *testing.T) {
				want := map[string]int{}
				names := map[string]string{} // key -> a case's place, for the errors
				for _, c := range tc.list {
					if c.InferenceService == nil || c.Expect.Admitted == nil {
						if tc.leftNone {
							t.Errorf("%s:%d: %s: not a selection case with a verdict", c.File, c.Line, c.Name)
						}
						continue
					}
					if admission.KyvernoLeavesCase(c) {
						if tc.leftNone {
							t.Errorf("%s:%d: %s: left to Gatekeeper, so not in the Tests", c.File, c.Line, c.Name)
						}
						continue
					}
					isvc := admission.DeepCopy(c.InferenceService.Value)
					meta, _ := isvc["metadata"].(map[string]any)
					if ns, _ := meta["namespace"].(string); ns == "" {
						meta["namespace"] = "default"
					}
					result := "pass"
					if !*c.Expect.Admitted {
						result = "fail"
						if c.Expect.Message != nil {
							result += ": " + *c.Expect.Message
						}
					}
					kept, _ := objects.Deduplicate(c.Objects)
					objs := make([]any, len(kept))
					for i, o := range kept {
						objs[i] = o.Value
					}
					key := selectionTestKey(t, meta["namespace"].(string)+"/"+c.InferenceService.Name, result, isvc, objs)
					want[key]++
					names[key] = fmt.Sprintf("%s:%d: %s", c.File, c.Line, c.Name)
				}
				if len(want) == 0 && len(tc.list) > 0 {
					t.Fatal("no case in the Tests")
				}
				got := readSelectionTests(t, tc.tests)
				for k, n := range want {
					if got[k] != n {
						t.Errorf("%s: %d results, want %d:\n%.600s", names[k], got[k], n, k)
					}
				}
				for k, n := range got {
					if _, ok := want[k]; !ok {
						t.Errorf("%d results of no case:\n%.600s", n, k)
					}
				}
			})
		}
	}
}

// selectionTestKey is one expected result of the selection Tests: the
// InferenceService's namespace/name, its result ("pass", "fail" or "fail:
// the message"), the InferenceService and the models and runtimes beside
// it, as JSON.
func selectionTestKey(t *testing.T, ref, result string, isvc map[string]any, objs []any) string {
	t.Helper()
	a, err := json.Marshal(isvc)
	if err != nil {
		t.Fatal(err)
	}
	o, err := json.Marshal(objs)
	if err != nil {
		t.Fatal(err)
	}
	return ref + " " + result + "\n" + string(a) + "\n" + string(o)
}

// readSelectionTests reads a selection .kyverno-test folder (kyverno-test.yaml
// and the files its Tests name) into the results it expects, by
// selectionTestKey.
func readSelectionTests(t *testing.T, tests admission.Bundle) map[string]int {
	t.Helper()
	got := map[string]int{}
	if len(tests) == 0 {
		return got
	}
	data, ok := tests["kyverno-test.yaml"]
	if !ok {
		t.Fatal("no kyverno-test.yaml")
	}
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	for {
		var doc yaml.Node
		if err := dec.Decode(&doc); err != nil {
			break
		}
		var test struct {
			Policies         []string `yaml:"policies"`
			Resources        []string `yaml:"resources"`
			ClusterResources []string `yaml:"clusterResources"`
			Results          []struct {
				Policy    string   `yaml:"policy"`
				Kind      string   `yaml:"kind"`
				Resources []string `yaml:"resources"`
				Result    string   `yaml:"result"`
			} `yaml:"results"`
		}
		if err := doc.Decode(&test); err != nil {
			t.Fatal(err)
		}
		if len(test.Policies) != 1 || test.Policies[0] != "../"+kyvernoSelectionName+".yaml" || len(test.Resources) != 1 || len(test.ClusterResources) != 1 {
			t.Fatalf("a Test with policies %v, resources %v, clusterResources %v", test.Policies, test.Resources, test.ClusterResources)
		}
		var comments []string
		top := doc.Content[0]
		for i := 0; i+1 < len(top.Content); i += 2 {
			if top.Content[i].Value == "results" {
				for _, r := range top.Content[i+1].Content {
					comments = append(comments, strings.TrimPrefix(r.HeadComment, "# "))
				}
			}
		}
		isvcs := decodeAll(t, test.Resources[0], tests[test.Resources[0]])
		cluster := decodeAll(t, test.ClusterResources[0], tests[test.ClusterResources[0]])
		if len(isvcs) != len(test.Results) || len(cluster) != 1 {
			t.Fatalf("%s: %d InferenceServices, %d results; %s: %d documents", test.Resources[0], len(isvcs), len(test.Results), test.ClusterResources[0], len(cluster))
		}
		objs := []any{}
		spec, _ := cluster[0]["spec"].(map[string]any)
		resources, _ := spec["resources"].([]any)
		for _, o := range resources {
			if m, _ := o.(map[string]any); m["kind"] != "Namespace" {
				objs = append(objs, o)
			}
		}
		refs := make([]string, 0, len(isvcs))
		for i, res := range test.Results {
			meta, _ := isvcs[i]["metadata"].(map[string]any)
			ns, _ := meta["namespace"].(string)
			name, _ := meta["name"].(string)
			if res.Policy != kyvernoSelectionName || res.Kind != "InferenceService" || len(res.Resources) != 1 || res.Resources[0] != ns+"/"+name {
				t.Errorf("%s: result %d is %+v; the InferenceService is %s/%s", test.Resources[0], i, res, ns, name)
			}
			refs = append(refs, ns+"/"+name)
			result := res.Result
			if result == "fail" && comments[i] != "" {
				result += ": " + comments[i]
			}
			got[selectionTestKey(t, ns+"/"+name, result, isvcs[i], objs)]++
		}
		sort.Strings(refs)
		for i := 1; i < len(refs); i++ {
			if refs[i] == refs[i-1] {
				t.Errorf("%s: two InferenceServices %s in one Test", test.Resources[0], refs[i])
			}
		}
	}
	return got
}
