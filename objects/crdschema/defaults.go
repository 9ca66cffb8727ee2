package crdschema

import (
	"encoding/json"
	"math"
	"sync"

	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/ome-policy/evaluator/objects"
)

var crdDefaultSchemas sync.Map // release + "/" + kind -> func() (*spec.Schema, error)

// schemaOf reads the kind's CRD schema in an OME release once (nil for a
// kind without one).
func schemaOf(release, kind string) (*spec.Schema, error) {
	f, _ := crdDefaultSchemas.LoadOrStore(release+"/"+kind, sync.OnceValues(func() (*spec.Schema, error) { return crdSchema(release, kind) }))
	return f.(func() (*spec.Schema, error))()
}

// WithDefaults is o as the API server of an OME release stores it:
// every field that o leaves out and OME's CRD gives a default (an entry's operator Equal and
// weight 1, a port's protocol TCP, ...) set to that default, as the API
// server does on create and apply. The result shares what it does not
// change with o, which is left as it is; it is o itself when nothing is
// missing, or when the kind has no CRD.
func WithDefaults(o *objects.Object, release string) (*objects.Object, error) {
	s, err := schemaOf(release, o.Kind)
	if s == nil || err != nil {
		return o, err
	}
	v, changed := withDefaults(o.Value, s)
	if !changed {
		return o, nil
	}
	c := *o
	c.Value = v.(map[string]any)
	return &c, nil
}

// withDefaults fills in the defaults of s that v leaves out, copying each
// map and list on the way to a change; changed says whether it made one.
func withDefaults(v any, s *spec.Schema) (any, bool) {
	switch x := v.(type) {
	case map[string]any:
		var out map[string]any
		set := func(k string, e any) {
			if out == nil {
				out = make(map[string]any, len(x)+1)
				for k, e := range x {
					out[k] = e
				}
			}
			out[k] = e
		}
		for name, ps := range s.Properties {
			cur, present := x[name]
			if !present {
				if ps.Default != nil {
					set(name, defaultValue(ps.Default))
				}
				continue
			}
			if e, changed := withDefaults(cur, &ps); changed {
				set(name, e)
			}
		}
		if out == nil {
			return v, false
		}
		return out, true
	case []any:
		if s.Items == nil || s.Items.Schema == nil {
			return v, false
		}
		var out []any
		for i, e := range x {
			if d, changed := withDefaults(e, s.Items.Schema); changed {
				if out == nil {
					out = append([]any{}, x...)
				}
				out[i] = d
			}
		}
		if out == nil {
			return v, false
		}
		return out, true
	}
	return v, false
}

// defaultValue is a schema's default as the loader reads values: whole
// numbers as int64, maps and lists of their own.
func defaultValue(d any) any {
	b, err := json.Marshal(d)
	if err != nil {
		return d
	}
	var v any
	if json.Unmarshal(b, &v) != nil {
		return d
	}
	return asLoaded(v)
}

func asLoaded(v any) any {
	switch x := v.(type) {
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int64(x)
		}
	case map[string]any:
		for k, e := range x {
			x[k] = asLoaded(e)
		}
	case []any:
		for i, e := range x {
			x[i] = asLoaded(e)
		}
	}
	return v
}
