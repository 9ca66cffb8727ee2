package e2e

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/ome-policy/evaluator/e2e/cluster"
)

// The repository's objects that a user may apply: the examples, OME's
// catalog, the lint fixtures, the Gatekeeper samples and lint objects, and
// the objects of the selection cases. Left out: testdata/bad (inputs built
// to fail loading, not to apply), the loader's own fixtures under engine/,
// and the match cases, whose models and runtimes are bare specs.
var objectRoots = []string{
	"testdata/examples",
	"testdata/catalog",
	"testdata/lint",
	"testdata/gatekeeper",
	"policies/gatekeeper/omeruntimeselection/samples",
	"policies/gatekeeper/omeversionlint/samples",
}

// update rewrites testdata/refused-by-crds.txt from what the API server says.
var update = flag.Bool("update", false, "rewrite the golden files under e2e/testdata")

// refusedByCRDs is the golden file that names every repository object
// OME's CRDs refuse, and why (the API server's causes). Every other object
// is refused exactly when `evaluate gatekeeper violations` says so.
const refusedByCRDs = "testdata/refused-by-crds.txt"

// repoObjects reads the OME objects under objectRoots and the selection
// cases' objects, in a stable order.
func repoObjects(t *testing.T) []object {
	t.Helper()
	var out []object
	for _, root := range objectRoots {
		var files []string
		err := filepath.WalkDir(filepath.Join(repo, root), func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			switch filepath.Ext(path) {
			case ".yaml", ".yml", ".json":
				if !d.IsDir() && filepath.Base(path) != "suite.yaml" {
					files = append(files, path)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		sort.Strings(files)
		for _, f := range files {
			objs, err := cluster.ReadObjects(f)
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			rel, _ := filepath.Rel(repo, f)
			for _, o := range objs {
				if isOME(o) {
					out = append(out, object{File: rel, Obj: o})
				}
			}
		}
	}
	for _, c := range selectionCases(t) {
		for _, o := range c.Objects {
			out = append(out, object{File: c.File + "#" + c.Name, Obj: o})
		}
	}
	return out
}

// selectionCase is one selection case of testdata/cases.
type selectionCase struct {
	File, Name       string
	InferenceService *unstructured.Unstructured
	Objects          []*unstructured.Unstructured
	// Message is the refusal the case file expects ("" when it expects
	// none, or for an example).
	Message string
	// Releases are the OME releases the case holds for (its omeVersions,
	// else its file's); none: every one.
	Releases []string
}

func (c selectionCase) holdsFor(release string) bool {
	return len(c.Releases) == 0 || slices.Contains(c.Releases, release)
}

func selectionCases(t *testing.T) []selectionCase {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(repo, "testdata", "cases", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var out []selectionCase
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var file struct {
			OMEVersions []string `json:"omeVersions"`
			Cases       []struct {
				OMEVersions      []string         `json:"omeVersions"`
				Name             string           `json:"name"`
				InferenceService map[string]any   `json:"inferenceService"`
				Objects          []map[string]any `json:"objects"`
				Expect           struct {
					Message string `json:"message"`
				} `json:"expect"`
			} `json:"cases"`
		}
		if err := yaml.Unmarshal(data, &file); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		rel, _ := filepath.Rel(repo, f)
		for _, c := range file.Cases {
			if c.InferenceService == nil {
				continue
			}
			sc := selectionCase{File: rel, Name: c.Name, InferenceService: &unstructured.Unstructured{Object: c.InferenceService}, Message: c.Expect.Message, Releases: file.OMEVersions}
			if c.OMEVersions != nil {
				sc.Releases = c.OMEVersions
			}
			for _, o := range c.Objects {
				sc.Objects = append(sc.Objects, &unstructured.Unstructured{Object: o})
			}
			out = append(out, sc)
		}
	}
	return out
}

// checkGolden compares got with the golden file, or rewrites it with -update.
func checkGolden(t *testing.T, file, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if string(want) != got {
		t.Errorf("e2e/%s differs from what the API server says (review, then rewrite with go test -update):\n%s", file, lineDiff(string(want), got))
	}
}

// lineDiff lists the lines only in want (-) and only in got (+).
func lineDiff(want, got string) string {
	count := map[string]int{}
	for _, l := range strings.Split(want, "\n") {
		count[l]++
	}
	for _, l := range strings.Split(got, "\n") {
		count[l]--
	}
	var b strings.Builder
	for _, l := range strings.Split(want, "\n") {
		if count[l] > 0 {
			b.WriteString("- " + l + "\n")
		}
	}
	for _, l := range strings.Split(got, "\n") {
		if count[l] < 0 {
			b.WriteString("+ " + l + "\n")
		}
	}
	return b.String()
}

// checkObjects dry-run creates every model and runtime of the repository
// and checks the API server's answer: refused by OME's CRDs exactly for the
// objects of refusedBySchema, else refused by OMEVersionLint exactly when
// `evaluate lint` finds an error, with the same rule ids and messages, from
// the refuser `by` ("policy": the ValidatingAdmissionPolicy Gatekeeper
// generated, status 422; "webhook": Gatekeeper's webhook, status 403;
// "native": policies/kubernetes' ome-version-lint-error, status 422;
// "kyverno": policies/kyverno's ome-version-lint-error in Kyverno's webhook).
func checkObjects(t *testing.T, by string) {
	objs := repoObjects(t)
	var models []object
	for _, o := range objs {
		if o.Obj.GetKind() != "InferenceService" {
			models = append(models, o)
		}
	}
	ensureNamespaces(t, models)
	want := lintViolations(t, models)
	errs := lintErrors(t, models)
	counts := map[string]int{}
	var schema strings.Builder
	for i, o := range models {
		_, err := kube.Create(ctxT(t), o.Obj, true)
		got := answer(err)
		// evaluate lint's crd-schema rule agrees with OME's CRDs: every
		// field the API server refuses has an error finding (crd-schema,
		// or a rule that already says what is wrong there), and an object
		// the CRDs accept has no crd-schema finding.
		if got.By == "schema" {
			for _, f := range got.Fields {
				if len(errs[i][f]) == 0 {
					t.Errorf("%s: OME's CRDs refuse %s; evaluate lint finds no error there (it finds %v)", o, f, errs[i])
				}
			}
		} else {
			for f, rules := range errs[i] {
				if slices.Contains(rules, "crd-schema") {
					t.Errorf("%s: evaluate lint says OME's CRDs refuse %s; the API server took the object", o, f)
				}
			}
		}
		if got.By == "schema" {
			counts["refused by OME's CRDs"]++
			fmt.Fprintf(&schema, "%s: %s\n", o, strings.Join(got.Messages, "; "))
			continue
		}
		if len(want[i]) == 0 {
			counts["admitted"]++
			if got.Code != 0 {
				t.Errorf("%s: OMEVersionLint admits it, but the API server refused it: %d %s", o, got.Code, got.Raw)
			}
			continue
		}
		counts["refused by OMEVersionLint"]++
		var wantMsgs []string
		switch by {
		case "webhook":
			for _, m := range want[i] {
				wantMsgs = append(wantMsgs, "[ome-version-lint-errors] "+m)
			}
			if got.Code != 403 {
				t.Errorf("%s: want status 403 from Gatekeeper's webhook, got %d: %s", o, got.Code, got.Raw)
			}
		case "policy", "native":
			wantMsgs = want[i][:1]
			if got.Code != 422 {
				t.Errorf("%s: want status 422 from the ValidatingAdmissionPolicy, got %d: %s", o, got.Code, got.Raw)
			}
		case "kyverno":
			// A ValidatingPolicy refuses with its first failing
			// validation, as the ValidatingAdmissionPolicy does.
			wantMsgs = want[i][:1]
			if !strings.Contains(got.Raw, "Policy ome-version-lint-error failed: ") {
				t.Errorf("%s: want the refusal from ome-version-lint-error, got %s", o, got.Raw)
			}
		}
		refuser := by
		if by == "native" {
			refuser = "policy"
			if !strings.Contains(got.Raw, "ValidatingAdmissionPolicy 'ome-version-lint-error'") {
				t.Errorf("%s: want the refusal from ome-version-lint-error, got %s", o, got.Raw)
			}
		}
		if got.By != refuser || strings.Join(got.Messages, "\n") != strings.Join(wantMsgs, "\n") {
			t.Errorf("%s: refused by %s with\n  %s\nwant %s with\n  %s", o, got.By, strings.Join(got.Messages, "\n  "), by, strings.Join(wantMsgs, "\n  "))
		}
	}
	checkGolden(t, refusedByCRDs, schema.String())
	t.Logf("%d models and runtimes: %v", len(models), counts)
}
