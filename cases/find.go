package cases

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// FindTests finds the tests among paths, as `evaluate test` runs them: a
// file is taken as given (a .rego file is a Rego unit test, *_test.rego;
// anything else must be a case file); a folder yields its case files and
// *_test.rego files, recursively, the case files in lexical order.
func FindTests(paths []string) (caseFiles, regoFiles []string, err error) {
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: no such file or directory", p)
		}
		if !st.IsDir() {
			if strings.HasSuffix(p, ".rego") {
				if !strings.HasSuffix(p, "_test.rego") {
					return nil, nil, fmt.Errorf("%s: not a Rego test file (*_test.rego); to test policies of your own, load them with --policies DIR", p)
				}
				regoFiles = append(regoFiles, p)
			} else {
				caseFiles = append(caseFiles, p)
			}
			continue
		}
		var found []string
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				return nil
			}
			switch strings.ToLower(filepath.Ext(path)) {
			case ".rego":
				if strings.HasSuffix(path, "_test.rego") {
					regoFiles = append(regoFiles, path)
				}
			case ".yaml", ".yml", ".json":
				isCase, err := IsCaseFile(path)
				if err != nil {
					return err
				}
				if isCase {
					found = append(found, path)
				}
			}
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
		sort.Strings(found)
		caseFiles = append(caseFiles, found...)
	}
	return caseFiles, regoFiles, nil
}
