package admission

// The plain-Rego stand-in for the Go builtins (policies/gatekeeper/lib),
// which every Check's Rego carries.

import (
	"io/fs"
	"sort"

	"github.com/ome-policy/evaluator/policies"
)

// sources are policies/gatekeeper's lib/*.rego and src/, by those paths.
var sources = mustSub(policies.Gatekeeper, "gatekeeper")

func mustSub(f fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(f, dir)
	if err != nil {
		panic(err) // a constant, valid path
	}
	return sub
}

// LibModule is one module of the stand-in library.
type LibModule struct {
	Path string // lib/version.rego, ...
	Text string
}

// Lib returns the modules of the stand-in library (packages lib.ome.version,
// lib.ome.size and lib.ome.plan), in path order.
func Lib() []LibModule {
	paths, _ := fs.Glob(sources, "lib/*.rego")
	sort.Strings(paths)
	out := make([]LibModule, 0, len(paths))
	for _, p := range paths {
		b, err := fs.ReadFile(sources, p)
		if err != nil {
			panic(err) // embedded: cannot fail
		}
		out = append(out, LibModule{Path: p, Text: string(b)})
	}
	return out
}
