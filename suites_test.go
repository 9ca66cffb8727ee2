package evaluator

import (
	"io/fs"
	"slices"
	"strings"
	"testing"
)

// TestSuiteInputsAreListed: the lists and the go:embed lines name the same
// files, so that nothing listed is missing from the binary and nothing is
// carried that no list reads.
func TestSuiteInputsAreListed(t *testing.T) {
	listed := slices.Concat(SuiteCaseFiles, SuiteLintObjects)
	for _, p := range listed {
		if _, err := fs.Stat(SuiteInputs, p); err != nil {
			t.Errorf("%s is listed but not embedded: %v", p, err)
		}
	}
	files := 0
	err := fs.WalkDir(SuiteInputs, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files++
		if !slices.ContainsFunc(listed, func(l string) bool { return p == l || strings.HasPrefix(p, l+"/") }) {
			t.Errorf("%s is embedded but in no list", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < len(listed) {
		t.Errorf("%d files embedded for %d paths listed", files, len(listed))
	}
}
