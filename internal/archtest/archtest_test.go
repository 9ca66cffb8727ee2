package archtest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// root is the module's root, from this package's folder.
const root = "../.."

// module is the module's path.
const module = "github.com/ome-policy/evaluator"

// pkg is a package of the module as `go list` gives it, with its imports
// of the module's packages, relative to the module (cmd/evaluate, ...).
type pkg struct {
	Path        string
	Imports     []string // of the package's own code
	TestImports []string // of its tests, in the package or beside it
}

// rowPattern is a row of the table of floors: | floor | `pkg`, `pkg` | ... |
var rowPattern = regexp.MustCompile("^\\|\\s*(\\d+)\\s*\\|([^|]*)\\|")

// readFloors reads the table of floors of docs/architecture.md: each
// package's floor, 1 being the ground.
func readFloors(doc string) (map[string]int, error) {
	floors := map[string]int{}
	sc := bufio.NewScanner(strings.NewReader(doc))
	for sc.Scan() {
		m := rowPattern.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		for _, cell := range strings.Split(m[2], ",") {
			p := strings.Trim(strings.TrimSpace(cell), "`")
			if p == "" {
				continue
			}
			if _, twice := floors[p]; twice {
				return nil, fmt.Errorf("%s is on two floors", p)
			}
			floors[p] = n
		}
	}
	if len(floors) == 0 {
		return nil, errors.New("no table of floors (| floor | packages | owns |)")
	}
	return floors, nil
}

// beside says whether a package is beside the floors: bench/ (programs)
// or internal/ (test support).
func beside(p string) (bench, internal bool) {
	return p == "bench" || strings.HasPrefix(p, "bench/"), p == "internal" || strings.HasPrefix(p, "internal/")
}

// check gives every import that breaks the layout: code imports lower
// floors only, tests their own floor too; nothing imports bench/ but
// bench/, nothing imports cmd/, only tests and bench/ import internal/;
// every package is on a floor or beside them.
func check(floors map[string]int, pkgs []pkg) []string {
	var out []string
	for _, p := range pkgs {
		pBench, pInternal := beside(p.Path)
		floor, onFloor := floors[p.Path]
		if !onFloor && !pBench && !pInternal {
			out = append(out, fmt.Sprintf("%s is on no floor: give it a row in docs/architecture.md", p.Path))
		}
		for _, test := range []bool{false, true} {
			imports, what := p.Imports, "imports"
			if test {
				imports, what = p.TestImports, "has tests that import"
			}
			for _, imp := range imports {
				iBench, iInternal := beside(imp)
				switch {
				case imp == "cmd" || strings.HasPrefix(imp, "cmd/"):
					out = append(out, fmt.Sprintf("%s %s %s: nothing imports cmd/", p.Path, what, imp))
				case iBench && !pBench:
					out = append(out, fmt.Sprintf("%s %s %s: nothing imports bench/ but bench/", p.Path, what, imp))
				case iInternal:
					if !test && !pBench && !pInternal {
						out = append(out, fmt.Sprintf("%s %s %s: only tests and bench/ import internal/", p.Path, what, imp))
					}
				case onFloor:
					f, known := floors[imp]
					switch {
					case !known:
						// Reported as a package on no floor.
					case f > floor:
						out = append(out, fmt.Sprintf("%s (floor %d) %s %s (floor %d): an import that runs upward", p.Path, floor, what, imp, f))
					case f == floor && !test:
						out = append(out, fmt.Sprintf("%s (floor %d) %s %s of its own floor: only its tests may", p.Path, floor, what, imp))
					}
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

// goList runs the go command at the module's root.
func goList(t *testing.T, args ...string) []byte {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to list the packages: %v", err)
	}
	cmd := exec.Command(gobin, append([]string{"list"}, args...)...)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return out
}

// rel is a package path relative to the module, or "" for another module's.
func rel(path string) string {
	if path == module {
		return "."
	}
	if r, ok := strings.CutPrefix(path, module+"/"); ok {
		return r
	}
	return ""
}

// modulePackages lists the module's packages with their imports of the
// module's packages.
func modulePackages(t *testing.T) []pkg {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(goList(t, "-json", "./...")))
	var out []pkg
	for {
		var p struct {
			ImportPath                         string
			Imports, TestImports, XTestImports []string
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		q := pkg{Path: rel(p.ImportPath)}
		for _, i := range p.Imports {
			if r := rel(i); r != "" {
				q.Imports = append(q.Imports, r)
			}
		}
		for _, i := range append(p.TestImports, p.XTestImports...) {
			if r := rel(i); r != "" && r != q.Path {
				q.TestImports = append(q.TestImports, r)
			}
		}
		out = append(out, q)
	}
	return out
}

func docFloors(t *testing.T) map[string]int {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	floors, err := readFloors(string(doc))
	if err != nil {
		t.Fatalf("docs/architecture.md: %v", err)
	}
	return floors
}

// TestLayout holds the module to the floors of docs/architecture.md.
func TestLayout(t *testing.T) {
	floors := docFloors(t)
	pkgs := modulePackages(t)
	listed := map[string]bool{}
	for _, p := range pkgs {
		listed[p.Path] = true
	}
	for p := range floors {
		if !listed[p] {
			t.Errorf("docs/architecture.md puts %s on a floor, but the module has no such package", p)
		}
	}
	for _, v := range check(floors, pkgs) {
		t.Error(v)
	}
}

// TestBinaryLinksNoBenchOrTestSupport: the evaluate binary is built of the
// floors only.
func TestBinaryLinksNoBenchOrTestSupport(t *testing.T) {
	for _, path := range strings.Fields(string(goList(t, "-deps", "./cmd/evaluate"))) {
		r := rel(path)
		if bench, internal := beside(r); r != "" && (bench || internal) {
			t.Errorf("evaluate links %s", r)
		}
	}
}

// unusedKubernetes says whether a package is one of Kubernetes' that the
// evaluate binary must not link: the built-in API types (k8s.io/api/...)
// and client-go's registry of them (client-go/kubernetes/scheme), whose
// initialisers register every built-in kind at each start, though
// evaluate reads OME's objects as JSON and never uses those types.
func unusedKubernetes(path string) bool {
	return strings.HasPrefix(path, "k8s.io/api/") || path == "k8s.io/client-go/kubernetes/scheme"
}

// importChain is the shortest chain of imports from one package to
// another (from first, to last), nil when none leads there. Of two chains
// as short, the one through the imports listed first.
func importChain(imports map[string][]string, from, to string) []string {
	parent := map[string]string{from: ""}
	queue := []string{from}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if p == to {
			var chain []string
			for ; p != ""; p = parent[p] {
				chain = append(chain, p)
			}
			slices.Reverse(chain)
			return chain
		}
		for _, i := range imports[p] {
			if _, seen := parent[i]; !seen {
				parent[i] = p
				queue = append(queue, i)
			}
		}
	}
	return nil
}

// binaryImports are the packages the evaluate binary links, each with its
// imports, as `go list -deps` gives them.
func binaryImports(t *testing.T) map[string][]string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(goList(t, "-deps", "-json", "./cmd/evaluate")))
	out := map[string][]string{}
	for {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		out[p.ImportPath] = p.Imports
	}
	return out
}

// TestBinaryLinksNoKubernetesTypes: a run that reads only files does not
// pay for Kubernetes' built-in types. Each one linked is named with the
// chain of imports that brings it in.
func TestBinaryLinksNoKubernetesTypes(t *testing.T) {
	imports := binaryImports(t)
	main := module + "/cmd/evaluate"
	if _, ok := imports[main]; !ok {
		t.Fatalf("go list -deps ./cmd/evaluate does not list %s", main)
	}
	var linked []string
	for p := range imports {
		if unusedKubernetes(p) {
			linked = append(linked, p)
		}
	}
	sort.Strings(linked)
	for _, p := range linked {
		t.Errorf("evaluate links %s, through %s", p, strings.Join(importChain(imports, main, p), " -> "))
	}
}

// TestImportChain: the shortest chain, the first of two as short, none.
func TestImportChain(t *testing.T) {
	imports := map[string][]string{
		"cmd":    {"live", "output"},
		"live":   {"rest", "cli"},
		"output": {"cli"},
		"cli":    {"scheme", "rest"},
		"scheme": {"api/core"},
		"rest":   {"cli"}, // a cycle
	}
	for _, c := range []struct {
		to   string
		want []string
	}{
		{to: "cmd", want: []string{"cmd"}},
		{to: "cli", want: []string{"cmd", "live", "cli"}},
		{to: "api/core", want: []string{"cmd", "live", "cli", "scheme", "api/core"}},
		{to: "api/apps", want: nil},
	} {
		if got := importChain(imports, "cmd", c.to); !slices.Equal(got, c.want) {
			t.Errorf("importChain(cmd, %s) = %v, want %v", c.to, got, c.want)
		}
	}
	for _, c := range []struct {
		path string
		want bool
	}{
		{"k8s.io/api/core/v1", true},
		{"k8s.io/client-go/kubernetes/scheme", true},
		{"k8s.io/apimachinery/pkg/apis/meta/v1", false},
		{"k8s.io/client-go/rest", false},
		{"k8s.io/apiextensions-apiserver/pkg/apis", false},
		{"k8s.io/client-go/kubernetes", false},
	} {
		if got := unusedKubernetes(c.path); got != c.want {
			t.Errorf("unusedKubernetes(%s) = %v, want %v", c.path, got, c.want)
		}
	}
}

// TestCheckFindsEachKind: what check reports, on a module of a few
// packages that break each rule once.
func TestCheckFindsEachKind(t *testing.T) {
	floors := map[string]int{"cmd/evaluate": 4, "output": 3, "engine": 2, "engine/cel": 2, "objects": 1}
	pkgs := []pkg{
		{Path: "cmd/evaluate", Imports: []string{"output", "engine", "objects"}},
		{Path: "output", Imports: []string{"engine", "internal/reference"}},
		{Path: "engine", Imports: []string{"engine/cel", "objects"}, TestImports: []string{"engine/cel", "internal/reference", "output"}},
		{Path: "engine/cel", Imports: []string{"objects", "objects/synth"}, TestImports: []string{"bench/generate"}},
		{Path: "objects", Imports: []string{"engine", "cmd/evaluate"}},
		{Path: "objects/synth", Imports: []string{"objects"}},
		{Path: "bench/plaingo", Imports: []string{"output", "internal/reference", "bench/measure"}},
		{Path: "internal/reference", Imports: []string{"objects"}},
	}
	want := []string{
		"engine (floor 2) has tests that import output (floor 3): an import that runs upward",
		"engine (floor 2) imports engine/cel of its own floor: only its tests may",
		"engine/cel has tests that import bench/generate: nothing imports bench/ but bench/",
		"objects (floor 1) imports engine (floor 2): an import that runs upward",
		"objects imports cmd/evaluate: nothing imports cmd/",
		"objects/synth is on no floor: give it a row in docs/architecture.md",
		"output imports internal/reference: only tests and bench/ import internal/",
	}
	if got := check(floors, pkgs); !slices.Equal(got, want) {
		t.Errorf("check found\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// TestReadFloors: the table's rows, and a table that puts a package twice
// or is missing.
func TestReadFloors(t *testing.T) {
	floors, err := readFloors("| floor | packages | owns |\n|---|---|---|\n| 2 | `engine`, `engine/cel` | x |\n| 1 | `objects` | y |\n")
	if err != nil || len(floors) != 3 || floors["engine/cel"] != 2 || floors["objects"] != 1 {
		t.Errorf("got %v, %v", floors, err)
	}
	if _, err := readFloors("| 2 | `engine` | x |\n| 1 | `engine` | y |\n"); err == nil {
		t.Error("a package on two floors was read")
	}
	if _, err := readFloors("no table here\n"); err == nil {
		t.Error("a page without a table was read")
	}
}
