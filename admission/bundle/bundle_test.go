package bundle

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/ome-policy/evaluator/admission"
	"github.com/ome-policy/evaluator/admission/gatekeeper"
	"github.com/ome-policy/evaluator/admission/kyverno"
	"github.com/ome-policy/evaluator/cases"
	"github.com/ome-policy/evaluator/policies/policyset"
)

// The repository root, from this package's folder.
const root = "../.."

func repoPath(p string) string { return filepath.Join(root, filepath.FromSlash(p)) }

// What `make bundles` generates, with the same inputs: the project's
// own, which the binary carries.
func generated(t *testing.T) map[string]admission.Bundle {
	t.Helper()
	set, err := policyset.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	opts := projectOptions(t, set)
	bundles, err := Generate(opts)
	if err != nil {
		t.Fatal(err)
	}
	kyverno, err := kyverno.Generate(opts)
	if err != nil {
		t.Fatal(err)
	}
	sample, err := cases.ReadCases(repoPath("testdata/cases/sample-selection.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	suite, err := gatekeeper.SelectionSuite("sample-selection", sample, "testdata/gatekeeper/sample-selection", "policies/gatekeeper")
	if err != nil {
		t.Fatal(err)
	}
	return map[string]admission.Bundle{"policies/gatekeeper": bundles.Gatekeeper, "testdata/gatekeeper/sample-selection": suite,
		"policies/kubernetes": bundles.Native, "policies/kyverno": kyverno}
}

// projectOptions are the generators' inputs for set's release as the CLI
// makes them from the project's own files, which the binary carries.
func projectOptions(t *testing.T, set *policyset.Set) admission.Options {
	t.Helper()
	opts, err := admission.BundleInputs(set, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return opts
}

// TestGeneratedFilesAreCurrent fails when a generated file was edited, or
// the policies changed without `make bundles`.
func TestGeneratedFilesAreCurrent(t *testing.T) {
	owned := map[string][]string{
		"policies/gatekeeper":                  {"sync.yaml", "kustomization.yaml", "omeruntimeselection", "omeversionlint"},
		"testdata/gatekeeper/sample-selection": {"suite.yaml", "cases"},
		"policies/kubernetes":                  {"."},
		"policies/kyverno":                     {"."},
	}
	for dir, b := range generated(t) {
		for _, p := range b.Paths() {
			have, err := os.ReadFile(repoPath(dir + "/" + p))
			if err != nil || !bytes.Equal(have, b[p]) {
				t.Errorf("%s/%s is not what `make bundles` generates: run it, and do not edit generated files", dir, p)
			}
		}
		for _, o := range owned[dir] {
			_ = filepath.WalkDir(repoPath(dir+"/"+o), func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return nil
				}
				rel, _ := filepath.Rel(repoPath(dir), p)
				if _, ok := b[filepath.ToSlash(rel)]; !ok {
					t.Errorf("%s/%s is not generated any more: run `make bundles`", dir, filepath.ToSlash(rel))
				}
				return nil
			})
		}
	}
}
