package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoticeNamesEveryOMEFile: each file taken from OME (its CRDs, catalog
// runtimes and model configs) or from Kyverno (the PolicyReport CRDs) is
// named in NOTICE with its upstream path, and NOTICE names no file that is
// gone.
func TestNoticeNamesEveryOMEFile(t *testing.T) {
	data, err := os.ReadFile(at("NOTICE"))
	if err != nil {
		t.Fatal(err)
	}
	notice := string(data)
	named := map[string]bool{}
	for _, l := range strings.Split(notice, "\n") {
		if p, ok := strings.CutPrefix(l, "  testdata/"); ok {
			named["testdata/"+p] = true
		}
	}
	for _, dir := range []string{"testdata/ome-crds", "testdata/catalog/runtimes", "testdata/catalog/models", "testdata/policyreport"} {
		err := filepath.WalkDir(at(dir), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || d.Name() == "README.md" {
				return err
			}
			rel, err := filepath.Rel(repo, p)
			if err != nil {
				return err
			}
			rel = filepath.ToSlash(rel)
			if !named[rel] {
				t.Errorf("NOTICE does not name %s", rel)
			}
			delete(named, rel)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(at(dir + "/README.md")); err != nil {
			t.Errorf("%s has no README.md saying where its files come from", dir)
		}
	}
	for p := range named {
		t.Errorf("NOTICE names %s, which does not exist", p)
	}
}
