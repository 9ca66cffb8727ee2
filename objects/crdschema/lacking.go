package crdschema

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/ome-policy/evaluator/objects"
)

// Each OME release's CRDs lack some fields that another release's have:
// v0.1.4's InferenceService has no spec.runtime.revision, v1.2.2's
// runtimes no minComputeCapability. The API server of a release drops
// (prunes) such a field on create and apply, so OME never reads it.
// <release>/lacking.json lists them by kind, derived from the
// CRDs by `make crdschema` (LackingPaths), each as its path in the schema
// ("[]" for a list's items, "{}" for a map's values) with the releases
// whose CRDs have it.

// LackedField is a field of an object that its kind's CRD in an OME
// release lacks, and the CRD of another release has.
type LackedField struct {
	// Field is its path in the object, as a finding names it.
	Field string
	// Release is the release whose CRD lacks it, Kind the object's kind.
	Release, Kind string
	// Newer and Older are the releases whose CRDs have it, newer and
	// older than Release, newest first.
	Newer, Older []string
}

// Message says what happens to the field, and what to do about it.
func (f LackedField) Message() string {
	have := append(append([]string{}, f.Newer...), f.Older...)
	verb := "has"
	if len(have) > 1 {
		verb = "have"
	}
	msg := fmt.Sprintf("OME %s's %s CRD has no %s (OME %s's %s): the API server drops the field on apply, so OME never reads it. Remove it",
		f.Release, f.Kind, f.Field, strings.Join(have, "'s and "), verb)
	if len(f.Newer) > 0 {
		oldest := f.Newer[len(f.Newer)-1]
		msg += ", or upgrade OME to " + oldest
		if len(f.Newer) > 1 {
			msg += " or later"
		}
	}
	return msg + "."
}

// LackingPath is a field that a kind's CRD lacks in a release, as
// lacking.json lists it: its path in the schema, and the releases whose
// CRDs have it.
type LackingPath struct {
	Path  string   `json:"path"`
	Newer []string `json:"newer,omitempty"`
	Older []string `json:"older,omitempty"`
}

// LackingPaths is, for the release at index i of releases (newest first),
// the fields each kind's CRD lacks that another release's has: the
// outermost such field of each, sorted by path. schemas are the kinds'
// schemas by release.
func LackingPaths(schemas map[string]map[string]*spec.Schema, releases []string, i int) map[string][]LackingPath {
	out := map[string][]LackingPath{}
	release := releases[i]
	for kind, mine := range schemas[release] {
		byPath := map[string]*LackingPath{}
		for j, other := range releases {
			s := schemas[other][kind]
			if j == i || s == nil {
				continue
			}
			for _, p := range lackedPaths(mine, s, "") {
				lp := byPath[p]
				if lp == nil {
					lp = &LackingPath{Path: p}
					byPath[p] = lp
				}
				if j < i {
					lp.Newer = append(lp.Newer, other)
				} else {
					lp.Older = append(lp.Older, other)
				}
			}
		}
		// A field lacked under one that is lacked too is pruned with it.
		var list []LackingPath
		for p, lp := range byPath {
			if !underAny(p, byPath) {
				list = append(list, *lp)
			}
		}
		sort.Slice(list, func(a, b int) bool { return list[a].Path < list[b].Path })
		if len(list) > 0 {
			out[kind] = list
		}
	}
	return out
}

// underAny says whether path lies under another of paths.
func underAny(path string, paths map[string]*LackingPath) bool {
	for p := range paths {
		if p != path && (strings.HasPrefix(path, p+".") || strings.HasPrefix(path, p+"[]") || strings.HasPrefix(path, p+"{}")) {
			return true
		}
	}
	return false
}

// lackedPaths are the fields that other's schema has and mine prunes,
// below path.
func lackedPaths(mine, other *spec.Schema, path string) []string {
	if mine == nil || other == nil || preservesUnknown(mine) {
		return nil
	}
	var out []string
	for name := range other.Properties {
		o := other.Properties[name]
		sub := name
		if path != "" {
			sub = path + "." + name
		}
		if m, ok := mine.Properties[name]; ok {
			out = append(out, lackedPaths(&m, &o, sub)...)
			continue
		}
		if mine.AdditionalProperties != nil && (mine.AdditionalProperties.Allows || mine.AdditionalProperties.Schema != nil) {
			out = append(out, lackedPaths(mine.AdditionalProperties.Schema, &o, sub)...)
			continue
		}
		out = append(out, sub)
	}
	if mine.Items != nil && other.Items != nil {
		out = append(out, lackedPaths(mine.Items.Schema, other.Items.Schema, path+"[]")...)
	}
	if mine.AdditionalProperties != nil && other.AdditionalProperties != nil {
		out = append(out, lackedPaths(mine.AdditionalProperties.Schema, other.AdditionalProperties.Schema, path+"{}")...)
	}
	return out
}

func preservesUnknown(s *spec.Schema) bool {
	v, _ := s.Extensions["x-kubernetes-preserve-unknown-fields"].(bool)
	return v
}

// LackingFile is the name of the list of lacking fields in each
// release's folder.
const LackingFile = "lacking.json"

var lackingTables sync.Map // release -> func() (map[string][]lackingField, error)

// lackingField is a LackingPath split into its steps.
type lackingField struct {
	steps        []string // keys, "[]" for each item of a list, "{}" for each value of a map
	newer, older []string
}

// lackingTable reads a release's lacking.json once.
func lackingTable(release string) (map[string][]lackingField, error) {
	f, _ := lackingTables.LoadOrStore(release, sync.OnceValues(func() (map[string][]lackingField, error) {
		if !hasRelease(release) {
			return nil, fmt.Errorf("no CRDs of OME release %q", release)
		}
		data, err := crdSchemaFiles.ReadFile(release + "/" + LackingFile)
		if err != nil {
			return nil, nil // no field lacking
		}
		var byKind map[string][]LackingPath
		if err := json.Unmarshal(data, &byKind); err != nil {
			return nil, fmt.Errorf("crdschema/%s/%s: %w", release, LackingFile, err)
		}
		out := make(map[string][]lackingField, len(byKind))
		for kind, paths := range byKind {
			for _, p := range paths {
				out[kind] = append(out[kind], lackingField{steps: splitSchemaPath(p.Path), newer: p.Newer, older: p.Older})
			}
		}
		return out, nil
	}))
	return f.(func() (map[string][]lackingField, error))()
}

// splitSchemaPath splits "spec.supportedModelFormats[].diffusionPipeline"
// into its steps.
func splitSchemaPath(p string) []string {
	var steps []string
	for _, part := range strings.Split(p, ".") {
		key, marks := part, []string{}
		for {
			if k, ok := strings.CutSuffix(key, "[]"); ok {
				key, marks = k, append([]string{"[]"}, marks...)
			} else if k, ok := strings.CutSuffix(key, "{}"); ok {
				key, marks = k, append([]string{"{}"}, marks...)
			} else {
				break
			}
		}
		steps = append(append(steps, key), marks...)
	}
	return steps
}

// LackedFields are the fields of o that its kind's CRD in the OME release
// lacks and another release's CRD has, in field order: the API server of
// that release drops them. Models made from a folder are not documents and
// have none.
func LackedFields(o *objects.Object, release string) ([]LackedField, error) {
	if o.FromFolder {
		return nil, nil
	}
	table, err := lackingTable(release)
	if err != nil {
		return nil, err
	}
	var out []LackedField
	for _, lf := range table[o.Kind] {
		walkSteps(o.Value, "", lf.steps, func(field string) {
			out = append(out, LackedField{Field: field, Release: release, Kind: o.Kind, Newer: lf.newer, Older: lf.older})
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Field < out[j].Field })
	return out, nil
}

// walkSteps calls found with the path of each value at steps below v.
func walkSteps(v any, path string, steps []string, found func(string)) {
	if len(steps) == 0 {
		found(path)
		return
	}
	switch step := steps[0]; step {
	case "[]":
		list, _ := v.([]any)
		for i, e := range list {
			walkSteps(e, objects.IndexPath(path, i), steps[1:], found)
		}
	case "{}":
		m, _ := v.(map[string]any)
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			walkSteps(m[k], objects.JoinPath(path, k), steps[1:], found)
		}
	default:
		m, _ := v.(map[string]any)
		if e, ok := m[step]; ok {
			walkSteps(e, objects.JoinPath(path, step), steps[1:], found)
		}
	}
}

// Pruned is o as the API server of an OME release stores it, without the
// fields that its kind's CRD there lacks (LackedFields), which it gives
// too. The result shares what it does not change with o, which is left as
// it is; it is o itself when nothing is lacked.
func Pruned(o *objects.Object, release string) (*objects.Object, []LackedField, error) {
	lacked, err := LackedFields(o, release)
	if len(lacked) == 0 || err != nil {
		return o, nil, err
	}
	table, _ := lackingTable(release)
	v := any(o.Value)
	for _, lf := range table[o.Kind] {
		v = withoutSteps(v, lf.steps)
	}
	c := *o
	c.Value = v.(map[string]any)
	return &c, lacked, nil
}

// withoutSteps is v without the values at steps, copying each map and
// list on the way to one.
func withoutSteps(v any, steps []string) any {
	switch x := v.(type) {
	case []any:
		if steps[0] != "[]" {
			return v
		}
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = withoutSteps(e, steps[1:])
		}
		return out
	case map[string]any:
		keys := []string{steps[0]}
		if steps[0] == "{}" {
			keys = keys[:0]
			for k := range x {
				keys = append(keys, k)
			}
		}
		var out map[string]any
		for _, k := range keys {
			e, ok := x[k]
			if !ok {
				continue
			}
			if out == nil {
				out = make(map[string]any, len(x))
				for k, e := range x {
					out[k] = e
				}
			}
			if len(steps) == 1 {
				delete(out, k)
			} else {
				out[k] = withoutSteps(e, steps[1:])
			}
		}
		if out == nil {
			return v
		}
		return out
	}
	return v
}
