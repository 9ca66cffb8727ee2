package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// sourceFile is a Go file of the module that is not a test: its path from
// the module's root, its imports and the calls it makes of imported
// packages (debug.SetMemoryLimit).
type sourceFile struct {
	path    string
	imports map[string]string // import path by the name the file uses
	calls   []string          // "runtime/debug.SetMemoryLimit"
}

// sourceFiles parses every Go file of the module but the tests, the test
// module under e2e and the bench harness's own modules.
func sourceFiles(t *testing.T) []sourceFile {
	t.Helper()
	var out []sourceFile
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			if rel == "e2e" || rel == "bin" || rel == "testdata" || strings.HasPrefix(d.Name(), ".") && rel != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		sf := sourceFile{path: filepath.ToSlash(rel), imports: map[string]string{}}
		for _, im := range f.Imports {
			path, _ := strconv.Unquote(im.Path.Value)
			name := path[strings.LastIndex(path, "/")+1:]
			if im.Name != nil {
				name = im.Name.Name
			}
			sf.imports[name] = path
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if s, ok := n.(*ast.SelectorExpr); ok {
				if x, ok := s.X.(*ast.Ident); ok {
					if path, ok := sf.imports[x.Name]; ok {
						sf.calls = append(sf.calls, path+"."+s.Sel.Name)
					}
				}
			}
			return true
		})
		out = append(out, sf)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatal("no Go file found under the module's root")
	}
	return out
}

// TestEachConceptHasOneHome holds the module to where docs/architecture.md
// puts a concept: file I/O in input (objects is the model alone), the
// process's settings in cmd/ (and the bench harness), results apart from
// their writers, and a team's rules in the rules tree.
func TestEachConceptHasOneHome(t *testing.T) {
	processSettings := regexp.MustCompile(`^(runtime/pprof\..*|runtime/debug\.(Set[A-Za-z]+|FreeOSMemory))$`)
	teamFile := regexp.MustCompile(`^(team|own|rules)([_.]|$)`)
	teamPackage := regexp.MustCompile(`(^|/)(team|own)(/|$)`)
	files := sourceFiles(t)
	for _, f := range files {
		if strings.HasPrefix(f.path, "objects/") {
			for _, banned := range []string{"os", "io/fs", "path/filepath"} {
				if slices.Contains(slices.Collect(maps.Values(f.imports)), banned) {
					t.Errorf("%s imports %s: objects is the model alone, reading is input's", f.path, banned)
				}
			}
		}
		if !strings.HasPrefix(f.path, "cmd/") && !strings.HasPrefix(f.path, "bench/") {
			for _, c := range f.calls {
				if processSettings.MatchString(c) {
					t.Errorf("%s uses %s: the process's settings are cmd/'s", f.path, c)
				}
			}
		}
		base := strings.TrimSuffix(filepath.Base(f.path), ".go")
		if !strings.HasPrefix(f.path, "rules/") && teamFile.MatchString(base) {
			t.Errorf("%s is named after a team's rules, which live under rules/", f.path)
		}
	}
	for _, p := range modulePackages(t) {
		if p.Path == "runner" {
			for _, imp := range p.Imports {
				if imp == "output" || strings.HasPrefix(imp, "output/") {
					t.Errorf("runner imports %s: results are decided apart from their writers", imp)
				}
			}
		}
		if !strings.HasPrefix(p.Path, "rules") && teamPackage.MatchString(p.Path) {
			t.Errorf("package %s is named after a team's rules, which live under rules/", p.Path)
		}
	}
}
