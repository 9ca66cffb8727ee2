package diff

import (
	"reflect"
	"sort"

	"github.com/ome-policy/evaluator/objects"
)

// serverMetadata are the fields of metadata that the API server writes and
// that no decision reads: an object read from a cluster and the same
// object from a file differ only there. metadata.creationTimestamp is not
// among them: selection orders runtimes by it.
var serverMetadata = map[string]bool{
	"uid": true, "resourceVersion": true, "generation": true, "managedFields": true, "selfLink": true,
}

// lastApplied is the annotation kubectl apply writes: the object as last
// applied, which says nothing new.
const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// withoutServerFields is the object without what the API server writes (status, and
// serverMetadata), which is what a change to it is.
func withoutServerFields(v map[string]any) map[string]any {
	out := make(map[string]any, len(v))
	for k, e := range v {
		switch k {
		case "status":
			continue
		case "metadata":
			meta, ok := e.(map[string]any)
			if !ok {
				break
			}
			m := make(map[string]any, len(meta))
			for mk, me := range meta {
				if serverMetadata[mk] {
					continue
				}
				if ann, ok := me.(map[string]any); ok && mk == "annotations" {
					if _, has := ann[lastApplied]; has {
						a := make(map[string]any, len(ann))
						for ak, av := range ann {
							if ak != lastApplied {
								a[ak] = av
							}
						}
						if len(a) == 0 {
							continue
						}
						me = a
					}
				}
				m[mk] = me
			}
			e = m
		}
		out[k] = e
	}
	return out
}

// SameObject reports whether two copies of an object are the same but for
// what the API server writes (status, uid, resourceVersion, generation,
// managedFields, kubectl's last-applied annotation).
func SameObject(a, b *objects.Object) bool {
	return reflect.DeepEqual(withoutServerFields(a.Value), withoutServerFields(b.Value))
}

// FirstDifference is the path of the first field, in the order of sorted
// keys and list indexes, whose value differs between a and b, in the form
// of objects.Pos's keys ("spec.supportedModelFormats[0].version"); ""
// when they are equal but for what the API server writes.
func FirstDifference(a, b map[string]any) string {
	path, _ := firstDifference("", withoutServerFields(a), withoutServerFields(b))
	return path
}

func firstDifference(path string, a, b any) (string, bool) {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			return path, true
		}
		keys := make([]string, 0, len(x)+len(y))
		for k := range x {
			keys = append(keys, k)
		}
		for k := range y {
			if _, dup := x[k]; !dup {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			xv, inX := x[k]
			yv, inY := y[k]
			p := objects.JoinPath(path, k)
			if inX != inY {
				if !inY {
					return path, true // removed: its parent is where it was
				}
				return p, true
			}
			if d, ok := firstDifference(p, xv, yv); ok {
				return d, true
			}
		}
		return "", false
	case []any:
		y, ok := b.([]any)
		if !ok {
			return path, true
		}
		for i := range min(len(x), len(y)) {
			if d, ok := firstDifference(objects.IndexPath(path, i), x[i], y[i]); ok {
				return d, true
			}
		}
		if len(x) != len(y) {
			if len(y) > len(x) {
				return objects.IndexPath(path, len(x)), true
			}
			return path, true
		}
		return "", false
	}
	if !reflect.DeepEqual(a, b) {
		return path, true
	}
	return "", false
}
