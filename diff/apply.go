package diff

import (
	"time"

	"github.com/ome-policy/evaluator/objects"
)

// Apply is the cluster after the files are applied, as kubectl apply would: each file
// object replaces the cluster's of the same kind, namespace and name, in
// its place, with the cluster's metadata.creationTimestamp (the API server
// keeps it); the others are added after, created at now.
func Apply(cluster, files []*objects.Object, now time.Time) []*objects.Object {
	byRef := map[objects.Ref]*objects.Object{}
	for _, o := range files {
		byRef[objects.RefOf(o)] = o
	}
	out := make([]*objects.Object, 0, len(cluster)+len(files))
	for _, o := range cluster {
		f := byRef[objects.RefOf(o)]
		if f == nil {
			out = append(out, o)
			continue
		}
		delete(byRef, objects.RefOf(o))
		meta, _ := o.Value["metadata"].(map[string]any)
		out = append(out, withCreationTimestamp(f, meta["creationTimestamp"]))
	}
	for _, o := range files {
		if byRef[objects.RefOf(o)] != nil {
			out = append(out, withCreationTimestamp(o, now.Format(time.RFC3339)))
		}
	}
	return out
}

// withCreationTimestamp is o with metadata.creationTimestamp set to ts (a
// copy; o itself is unchanged); o when ts is nil.
func withCreationTimestamp(o *objects.Object, ts any) *objects.Object {
	if ts == nil {
		return o
	}
	c := *o
	c.Value = make(map[string]any, len(o.Value))
	for k, v := range o.Value {
		c.Value[k] = v
	}
	meta, _ := o.Value["metadata"].(map[string]any)
	m := make(map[string]any, len(meta)+1)
	for k, v := range meta {
		m[k] = v
	}
	m["creationTimestamp"] = ts
	c.Value["metadata"] = m
	return &c
}
