package gatekeeper

import (
	"path"
	"sort"
)

// Bundle is a set of generated files: slash-separated path, relative to
// the folder they are written to, and content.
type Bundle map[string][]byte

// Paths returns the bundle's paths in order.
func (b Bundle) Paths() []string {
	out := make([]string, 0, len(b))
	for p := range b {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

func (b Bundle) add(prefix string, other Bundle) {
	for p, data := range other {
		b[path.Join(prefix, p)] = data
	}
}

// Target is the Gatekeeper target every template is for.
const Target = "admission.k8s.gatekeeper.sh"

// GroupVersion is the API group and version of OME's objects.
const GroupVersion = "ome.io/v1beta1"

// OMEKinds are the kinds selection reads from data.inventory; sync.yaml
// syncs exactly these.
var OMEKinds = []string{"BaseModel", "ClusterBaseModel", "ServingRuntime", "ClusterServingRuntime"}
