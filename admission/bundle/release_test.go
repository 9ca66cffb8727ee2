package bundle

import (
	"github.com/ome-policy/evaluator/input"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/ome-policy/evaluator/admission"
	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/policies/policyset"
)

// annotatedDoc is what the release test reads of a generated document.
type annotatedDoc struct {
	Kind     string `yaml:"kind"`
	Metadata struct {
		Name        string            `yaml:"name"`
		Annotations map[string]string `yaml:"annotations"`
	} `yaml:"metadata"`
}

// bundleDocs decodes every document of the bundle's YAML files that
// Kubernetes stores (kind set), by file.
func bundleDocs(t *testing.T, b admission.Bundle) map[string][]annotatedDoc {
	t.Helper()
	out := map[string][]annotatedDoc{}
	for _, p := range b.Paths() {
		if !strings.HasSuffix(p, ".yaml") {
			continue
		}
		dec := yaml.NewDecoder(strings.NewReader(string(b[p])))
		for {
			var d annotatedDoc
			if err := dec.Decode(&d); err != nil {
				break
			}
			out[p] = append(out[p], d)
		}
	}
	return out
}

// TestBundlesNameTheirRelease: in the bundles of each release, every
// ConstraintTemplate, constraint, ValidatingAdmissionPolicy and binding
// carries ome.io/release with that release, the descriptions name it, and
// OMERuntimeSelection's description names a check of OME's webhook
// exactly when that release's policies make it (each probed with an
// InferenceService that only that check refuses).
func TestBundlesNameTheirRelease(t *testing.T) {
	all, err := policyset.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	// Each probe is refused by one check alone, in the releases that make
	// it; the phrase is how releases.yaml names that check.
	probes := []struct {
		name, phrase, isvc string
	}{
		{"model-not-found", "the model it names exists",
			"{apiVersion: ome.io/v1beta1, kind: InferenceService, metadata: {name: probe, namespace: team-a}, spec: {model: {name: missing}}}"},
		{"runtime-revision", "spec.runtime.revision",
			"{apiVersion: ome.io/v1beta1, kind: InferenceService, metadata: {name: probe, namespace: team-a}, spec: {runtime: {name: vllm, revision: cr-vllm-0123abcd}}}"},
		{"keda refused", "keda is refused",
			"{apiVersion: ome.io/v1beta1, kind: InferenceService, metadata: {name: probe, namespace: team-a, annotations: {ome.io/autoscalerClass: keda}}}"},
	}
	refusedIn := map[string]int{}
	for _, r := range all.Releases() {
		t.Run(r, func(t *testing.T) {
			set, err := all.ForRelease(r)
			if err != nil {
				t.Fatal(err)
			}
			if len(set.WebhookChecks()) == 0 {
				t.Fatalf("releases.yaml says nothing of what %s's webhook checks (webhook:)", r)
			}
			b, err := Generate(admission.Options{Policies: set})
			if err != nil {
				t.Fatal(err)
			}
			descriptions := map[string]string{}
			n := 0
			for file, docs := range bundleDocs(t, merged(b)) {
				for _, d := range docs {
					switch d.Kind {
					case "ConstraintTemplate", "OMERuntimeSelection", "OMEVersionLint", "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding":
					default:
						continue
					}
					n++
					if got := d.Metadata.Annotations[policyset.ReleaseAnnotation]; got != r {
						t.Errorf("%s: %s %s: %s is %q, want %q", file, d.Kind, d.Metadata.Name, policyset.ReleaseAnnotation, got, r)
					}
					if desc, ok := d.Metadata.Annotations["description"]; ok {
						descriptions[d.Kind+" "+d.Metadata.Name] = desc
						if !strings.Contains(desc, "OME "+r) {
							t.Errorf("%s: %s %s: the description does not name OME %s: %s", file, d.Kind, d.Metadata.Name, r, desc)
						}
					}
				}
			}
			// Two templates, four sample constraints, two policies with their bindings.
			if n != 10 {
				t.Errorf("%d documents that name a release, want 10", n)
			}
			desc := descriptions["ConstraintTemplate omeruntimeselection"]
			if desc == "" {
				t.Fatal("OMERuntimeSelection has no description")
			}
			sel, err := engine.NewSelector(engine.Rego, set)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range probes {
				objs, err := input.LoadData(p.name+".yaml", []byte(p.isvc), input.LoadOptions{})
				if err != nil {
					t.Fatal(err)
				}
				d, err := sel.Select(objs[0], nil)
				if err != nil {
					t.Fatal(err)
				}
				if !d.Admitted {
					refusedIn[p.name]++
				}
				if says := strings.Contains(desc, p.phrase); says == d.Admitted {
					t.Errorf("probe %s: admitted %v (%q), but the description names %q: %v\n%s", p.name, d.Admitted, d.Message, p.phrase, says, desc)
				}
			}
		})
	}
	// Each probe tells the releases apart: some make its check, some not.
	for _, p := range probes {
		if n := refusedIn[p.name]; n == 0 || n == len(all.Releases()) {
			t.Errorf("probe %s is refused by %d of %d releases: it tells none apart", p.name, n, len(all.Releases()))
		}
	}
}

// merged is both bundles in one, the native one under kubernetes/.
func merged(b Bundles) admission.Bundle {
	out := admission.Bundle{}
	out.Add("", b.Gatekeeper)
	out.Add("kubernetes", b.Native)
	return out
}
