package kyverno

import (
	"path"
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/ome-policy/evaluator/admission"
	"github.com/ome-policy/evaluator/admission/vap"
	"github.com/ome-policy/evaluator/policies/policyset"
)

// decodeAll decodes every YAML document of data.
func decodeAll(t *testing.T, name string, data []byte) []map[string]any {
	t.Helper()
	var out []map[string]any
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	for {
		var d map[string]any
		if err := dec.Decode(&d); err != nil {
			if err.Error() != "EOF" {
				t.Fatalf("%s: %v", name, err)
			}
			return out
		}
		out = append(out, d)
	}
}

// For each release, the Kyverno bundle's ValidatingPolicies hold exactly
// the code of the ValidatingAdmissionPolicies (objects reviewed,
// variables, validations), with the validation action of their binding;
// their tests expect of every lint object what OMEVersionLint gives it
// (fail when it has a violation of the severity, with the first one, the
// message Kyverno gives, in a comment), and
// the InferenceServices of the selection cases are there, one per
// namespace and name, for the policies to admit.
func TestKyvernoBundleHoldsTheNativeCode(t *testing.T) {
	all, err := policyset.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range all.Releases() {
		t.Run(r, func(t *testing.T) {
			set, err := all.ForRelease(r)
			if err != nil {
				t.Fatal(err)
			}
			opts := projectOptions(t, set)
			checks, err := admission.Checks(set)
			if err != nil {
				t.Fatal(err)
			}
			nativeBundle, err := vap.Generate(checks, admission.Extra{}, admission.Exemptions{})
			if err != nil {
				t.Fatal(err)
			}
			ky, err := Generate(opts)
			if err != nil {
				t.Fatal(err)
			}
			native := map[string]map[string]any{}
			actions := map[string]any{}
			for _, d := range decodeAll(t, "ome-version-lint.yaml", nativeBundle["ome-version-lint.yaml"]) {
				meta := d["metadata"].(map[string]any)
				spec := d["spec"].(map[string]any)
				switch d["kind"] {
				case "ValidatingAdmissionPolicy":
					native[meta["name"].(string)] = spec
				case "ValidatingAdmissionPolicyBinding":
					actions[meta["name"].(string)] = spec["validationActions"]
				}
			}
			if len(native) != len(Severities) {
				t.Fatalf("%d ValidatingAdmissionPolicies, want %d", len(native), len(Severities))
			}
			for name, want := range native {
				docs := decodeAll(t, name, ky[path.Join(name, name+".yaml")])
				if len(docs) != 1 || docs[0]["kind"] != "ValidatingPolicy" || docs[0]["apiVersion"] != APIVersion {
					t.Fatalf("%s: want one %s ValidatingPolicy, got %v", name, APIVersion, docs)
				}
				meta := docs[0]["metadata"].(map[string]any)
				ann := meta["annotations"].(map[string]any)
				if ann[policyset.ReleaseAnnotation] != r || !strings.Contains(ann["policies.kyverno.io/description"].(string), "OME "+r) {
					t.Errorf("%s does not name OME %s: %v", name, r, ann)
				}
				got := docs[0]["spec"].(map[string]any)
				for _, k := range []string{"matchConstraints", "variables", "validations", "failurePolicy"} {
					if !reflect.DeepEqual(got[k], want[k]) {
						t.Errorf("%s: spec.%s differs from the ValidatingAdmissionPolicy's", name, k)
					}
				}
				if !reflect.DeepEqual(got["validationActions"], actions[name]) {
					t.Errorf("%s: validationActions %v, want the binding's %v", name, got["validationActions"], actions[name])
				}
				checkKyvernoTests(t, ky, name, opts)
			}
		})
	}
}

// checkKyvernoTests holds a policy's .kyverno-test to the lint objects'
// violations and the selection cases' InferenceServices.
func checkKyvernoTests(t *testing.T, ky admission.Bundle, policy string, opts admission.Options) {
	t.Helper()
	severity := strings.TrimPrefix(policy, "ome-version-lint-")
	dir := path.Join(policy, ".kyverno-test")
	testFile := ky[path.Join(dir, "kyverno-test.yaml")]
	var node yaml.Node
	want := map[string][]string{} // "Kind ns/name" -> expected results, in order
	for _, l := range opts.Lint {
		key := l.Object.Kind + " " + l.Object.Namespace + "/" + l.Object.Name
		result := "pass"
		if msgs := admission.LintViolations(l.Findings, l.Object, severity); len(msgs) > 0 {
			result = "fail: " + msgs[0]
			if !strings.Contains(string(testFile), "# "+msgs[0]+"\n") {
				t.Errorf("%s: %s: no comment with the message %q", dir, key, msgs[0])
			}
		}
		want[key] = append(want[key], result)
	}
	got := map[string][]string{}
	dec := yaml.NewDecoder(strings.NewReader(string(testFile)))
	for dec.Decode(&node) == nil {
		var test struct {
			Policies  []string `yaml:"policies"`
			Resources []string `yaml:"resources"`
			Results   []struct {
				Policy             string   `yaml:"policy"`
				IsValidatingPolicy bool     `yaml:"isValidatingPolicy"`
				Kind               string   `yaml:"kind"`
				Resources          []string `yaml:"resources"`
				Result             string   `yaml:"result"`
			} `yaml:"results"`
		}
		if err := node.Decode(&test); err != nil {
			t.Fatal(err)
		}
		if len(test.Policies) != 1 || test.Policies[0] != "../"+policy+".yaml" || len(test.Resources) != 1 {
			t.Fatalf("%s: policies %v, resources %v", dir, test.Policies, test.Resources)
		}
		objs := decodeAll(t, test.Resources[0], ky[path.Join(dir, test.Resources[0])])
		if len(objs) != len(test.Results) {
			t.Fatalf("%s: %d resources, %d results", test.Resources[0], len(objs), len(test.Results))
		}
		names := map[string]bool{}
		for i, res := range test.Results {
			meta := objs[i]["metadata"].(map[string]any)
			ns, _ := meta["namespace"].(string)
			name, _ := meta["name"].(string)
			ref := name
			if ns != "" {
				ref = ns + "/" + name
			}
			if names[ref] {
				t.Errorf("%s: two resources named %s in one Test", dir, ref)
			}
			names[ref] = true
			if res.Policy != policy || !res.IsValidatingPolicy || res.Kind != objs[i]["kind"] || len(res.Resources) != 1 || res.Resources[0] != ref {
				t.Errorf("%s: result %d names %v, resource is %v %s", dir, i, res, objs[i]["kind"], ref)
			}
			key := res.Kind + " " + ns + "/" + name
			result := res.Result
			if result == "fail" {
				// The comment above it, as the test file has it.
				result = "fail: " + kyvernoComment(t, testFile, key, len(got[key]))
			}
			got[key] = append(got[key], result)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: the results differ from OMEVersionLint's violations\n got %v\nwant %v", dir, got, want)
	}
	services := decodeAll(t, "inferenceservices.yaml", ky[path.Join(dir, "inferenceservices.yaml")])
	if len(services) != len(servicesOf(opts.SelectionCases)) || len(services) == 0 {
		t.Errorf("%s: %d InferenceServices, want the %d of the selection cases", dir, len(services), len(servicesOf(opts.SelectionCases)))
	}
	for _, s := range services {
		if s["kind"] != "InferenceService" {
			t.Errorf("%s: inferenceservices.yaml holds a %v", dir, s["kind"])
		}
	}
}

// kyvernoComment is the comment above the n-th failing result of the
// object key ("Kind ns/name") in a kyverno-test.yaml: the message.
func kyvernoComment(t *testing.T, testFile []byte, key string, n int) string {
	t.Helper()
	var root yaml.Node
	dec := yaml.NewDecoder(strings.NewReader(string(testFile)))
	seen := 0
	for dec.Decode(&root) == nil {
		doc := root.Content[0]
		for i := 0; i+1 < len(doc.Content); i += 2 {
			if doc.Content[i].Value != "results" {
				continue
			}
			for _, r := range doc.Content[i+1].Content {
				var res struct {
					Kind      string   `yaml:"kind"`
					Resources []string `yaml:"resources"`
				}
				if err := r.Decode(&res); err != nil {
					t.Fatal(err)
				}
				ref := res.Resources[0]
				if !strings.Contains(ref, "/") {
					ref = "/" + ref
				}
				if res.Kind+" "+ref == key {
					if seen == n {
						return strings.TrimPrefix(r.HeadComment, "# ")
					}
					seen++
				}
			}
		}
	}
	return ""
}

// projectOptions are the generators' inputs for set's release as the CLI
// makes them from the project's own files, which the binary carries.
// projectBundle is the bundle of release r of all, with the project's
// inputs (projectOptions), and those inputs.
func projectBundle(t *testing.T, all *policyset.Set, r string) (admission.Bundle, admission.Options) {
	t.Helper()
	set, err := all.ForRelease(r)
	if err != nil {
		t.Fatal(err)
	}
	opts := projectOptions(t, set)
	b, err := Generate(opts)
	if err != nil {
		t.Fatal(err)
	}
	return b, opts
}

func projectOptions(t *testing.T, set *policyset.Set) admission.Options {
	t.Helper()
	opts, err := admission.BundleInputs(set, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return opts
}
