package crdschema

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"io"
	"io/fs"
	"maps"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/kube-openapi/pkg/validation/validate"

	"github.com/ome-policy/evaluator/input"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/policies"
)

// testRelease is the OME release whose CRDs the tests check against.
const testRelease = "v1.2.2"

// crdSchemas extracts each OME release's CRDs' openAPIV3Schema (of the
// served, stored version) as gzipped JSON, by release and kind.
// testdata/ome-crds holds the newest release's CRDs at its top and, in a
// folder per older release, the files in which it differs from the
// release after it (policies/releases.yaml lists them, newest first).
func crdSchemas(t *testing.T) map[string]map[string][]byte {
	t.Helper()
	b, err := fs.ReadFile(policies.FS, "releases.yaml")
	require.NoError(t, err)
	var list struct{ Releases []struct{ Name string } }
	require.NoError(t, yaml.Unmarshal(b, &list))
	files := map[string]string{} // base name -> path
	out := map[string]map[string][]byte{}
	for i, r := range list.Releases {
		dir := "../../testdata/ome-crds"
		if i > 0 {
			dir = filepath.Join(dir, r.Name)
		}
		paths, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
		require.NoError(t, err)
		for _, p := range paths {
			files[filepath.Base(p)] = p
		}
		out[r.Name] = map[string][]byte{}
		for _, f := range files {
			kind, schema := crdSchemaOf(t, f)
			out[r.Name][kind] = schema
		}
		require.Contains(t, out[r.Name], objects.KindClusterServingRuntime)
	}
	return out
}

// crdSchemaOf is a CRD file's kind and its v1beta1 schema, gzipped JSON.
func crdSchemaOf(t *testing.T, f string) (string, []byte) {
	data, err := os.ReadFile(f)
	require.NoError(t, err)
	var crd struct {
		Spec struct {
			Names    struct{ Kind string }
			Versions []struct {
				Name    string
				Storage bool
				Schema  struct {
					OpenAPIV3Schema map[string]any `yaml:"openAPIV3Schema"`
				}
			}
		}
	}
	require.NoError(t, yaml.Unmarshal(data, &crd), f)
	for _, v := range crd.Spec.Versions {
		if v.Name != "v1beta1" {
			continue
		}
		js, err := json.Marshal(v.Schema.OpenAPIV3Schema)
		require.NoError(t, err)
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		_, err = zw.Write(js)
		require.NoError(t, err)
		require.NoError(t, zw.Close())
		return crd.Spec.Names.Kind, buf.Bytes()
	}
	t.Fatalf("%s: no v1beta1", f)
	return "", nil
}

// TestCRDSchemasAreCurrent fails when the release folders of
// objects/crdschema are not what testdata/ome-crds gives; `make crdschema`
// (go test -update) rewrites them.
func TestCRDSchemasAreCurrent(t *testing.T) {
	all := crdSchemas(t)
	if *update {
		for _, dir := range releaseFolders(t) {
			require.NoError(t, os.RemoveAll(dir))
		}
	}
	for release, kinds := range all {
		lacking := filepath.Join(release, LackingFile)
		want := lackingJSON(t, all, release)
		if *update {
			require.NoError(t, os.MkdirAll(filepath.Dir(lacking), 0o755))
			require.NoError(t, os.WriteFile(lacking, want, 0o644))
		} else {
			require.True(t, hasRelease(release), "crdschema/%s is not embedded (the folders embedded are v*)", release)
			have, err := os.ReadFile(lacking)
			require.NoError(t, err, "run make crdschema")
			require.Equal(t, string(want), string(have), "crdschema/%s is stale: run make crdschema", lacking)
		}
		for kind, want := range kinds {
			path := filepath.Join(release, kind+".json.gz")
			if *update {
				require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
				require.NoError(t, os.WriteFile(path, want, 0o644))
				continue
			}
			have, err := os.ReadFile(path)
			require.NoError(t, err, "run make crdschema")
			require.True(t, bytes.Equal(have, want), "crdschema/%s is stale: run make crdschema", path)
		}
	}
	var files []string
	for _, dir := range releaseFolders(t) {
		require.NoError(t, fs.WalkDir(os.DirFS("."), dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				files = append(files, p)
			}
			return err
		}))
	}
	for _, f := range files {
		release, kind := filepath.Dir(f), strings.TrimSuffix(filepath.Base(f), ".json.gz")
		if filepath.Base(f) == LackingFile {
			require.Contains(t, all, release, "crdschema/%s is left from an earlier layout: run make crdschema", f)
			continue
		}
		require.Contains(t, all[release], kind, "crdschema/%s is left from an earlier layout: run make crdschema", f)
	}
}

// releaseFolders are the folders beside the package's Go files: one per
// OME release.
func releaseFolders(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(".")
	require.NoError(t, err)
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out
}

// lackingJSON is crdschema/<release>/lacking.json: the fields each kind's
// CRD in the release lacks that another release's has, by kind.
func lackingJSON(t *testing.T, all map[string]map[string][]byte, release string) []byte {
	t.Helper()
	b, err := fs.ReadFile(policies.FS, "releases.yaml")
	require.NoError(t, err)
	var list struct{ Releases []struct{ Name string } }
	require.NoError(t, yaml.Unmarshal(b, &list))
	var names []string
	at := -1
	schemas := map[string]map[string]*spec.Schema{}
	for i, r := range list.Releases {
		names = append(names, r.Name)
		if r.Name == release {
			at = i
		}
		schemas[r.Name] = map[string]*spec.Schema{}
		for kind, gz := range all[r.Name] {
			zr, err := gzip.NewReader(bytes.NewReader(gz))
			require.NoError(t, err)
			data, err := io.ReadAll(zr)
			require.NoError(t, err)
			var s spec.Schema
			require.NoError(t, json.Unmarshal(data, &s))
			schemas[r.Name][kind] = &s
		}
	}
	require.GreaterOrEqual(t, at, 0)
	out, err := json.MarshalIndent(LackingPaths(schemas, names, at), "", "  ")
	require.NoError(t, err)
	return append(out, '\n')
}

// The CRDs of each release differ where OME's do: v0.1.4's models have no
// diffusionPipeline, and only v1.2.2 pins a runtime revision.
func TestCRDSchemasByRelease(t *testing.T) {
	model := "apiVersion: ome.io/v1beta1\nkind: ClusterBaseModel\nmetadata: {name: m}\nspec:\n  storage: {storageUri: \"hf://a/b\"}\n  modelFormat: {name: s}\n  diffusionPipeline: {className: 5}\n"
	o, err := input.LoadData("m.yaml", []byte(model), input.LoadOptions{Lenient: true})
	require.NoError(t, err)
	for release, want := range map[string]int{"v1.2.2": 1, "v0.1.5": 1, "v0.1.4": 0} {
		errs, err := SchemaErrors(o[0], release)
		require.NoError(t, err)
		require.Len(t, errs, want, "%s: %v", release, errs)
	}
	isvc := "apiVersion: ome.io/v1beta1\nkind: InferenceService\nmetadata: {name: s}\nspec:\n  runtime: {name: r, autoSync: false}\n"
	o, err = input.LoadData("s.yaml", []byte(isvc), input.LoadOptions{Lenient: true})
	require.NoError(t, err)
	d, err := WithDefaults(o[0], "v1.2.2")
	require.NoError(t, err)
	require.Equal(t, false, d.Spec()["runtime"].(map[string]any)["autoSync"])
	o, err = input.LoadData("s.yaml", []byte("apiVersion: ome.io/v1beta1\nkind: InferenceService\nmetadata: {name: s}\nspec:\n  runtime: {name: r}\n"), input.LoadOptions{Lenient: true})
	require.NoError(t, err)
	d, err = WithDefaults(o[0], "v1.2.2")
	require.NoError(t, err)
	require.Equal(t, true, d.Spec()["runtime"].(map[string]any)["autoSync"])
	d, err = WithDefaults(o[0], "v0.1.5")
	require.NoError(t, err)
	require.NotContains(t, d.Spec()["runtime"], "autoSync")
	_, err = SchemaErrors(o[0], "v9.9.9")
	require.EqualError(t, err, `no CRDs of OME release "v9.9.9"`)
}

var update = flag.Bool("update", false, "rewrite generated files (crdschema/*.json.gz)")

func TestSchemaErrors(t *testing.T) {
	load := func(doc string) *objects.Object {
		objs, err := input.LoadData("test.yaml", []byte(doc), input.LoadOptions{Lenient: true})
		require.NoError(t, err)
		require.Len(t, objs, 1)
		return objs[0]
	}
	for _, c := range []struct {
		name, doc string
		want      []string // "field: message prefix"
	}{
		{"a model without storage", "apiVersion: ome.io/v1beta1\nkind: ClusterBaseModel\nmetadata: {name: m}\nspec: {modelFormat: {name: safetensors}}\n",
			[]string{"spec.storage: Required value"}},
		{"a model with storage", "apiVersion: ome.io/v1beta1\nkind: BaseModel\nmetadata: {name: m, namespace: a}\nspec: {modelFormat: {name: safetensors}, storage: {storageUri: hf://x/y}}\n",
			nil},
		{"an entry without a framework, a version as a number", "apiVersion: ome.io/v1beta1\nkind: ClusterServingRuntime\nmetadata: {name: r}\nspec:\n  supportedModelFormats:\n  - modelFormat: {name: safetensors, version: 1.0}\n",
			[]string{
				`spec.supportedModelFormats[0].modelFormat.version: Invalid value: "number": spec.supportedModelFormats[0].modelFormat.version in body must be of type string: "number"`,
				"spec.supportedModelFormats[0].modelFramework: Required value",
			}},
		{"the same entry twice, each named by its index", "apiVersion: ome.io/v1beta1\nkind: ClusterServingRuntime\nmetadata: {name: r}\nspec:\n  supportedModelFormats:\n  - modelFormat: {name: safetensors, version: 1.0}\n  - modelFormat: {name: safetensors, version: 1.0}\n",
			[]string{
				`spec.supportedModelFormats[0].modelFormat.version: Invalid value: "number": spec.supportedModelFormats[0].modelFormat.version in body must be of type string: "number"`,
				"spec.supportedModelFormats[0].modelFramework: Required value",
				`spec.supportedModelFormats[1].modelFormat.version: Invalid value: "number": spec.supportedModelFormats[1].modelFormat.version in body must be of type string: "number"`,
				"spec.supportedModelFormats[1].modelFramework: Required value",
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			errs, err := SchemaErrors(load(c.doc), testRelease)
			require.NoError(t, err)
			var got []string
			for _, e := range errs {
				got = append(got, e.Field+": "+e.Message)
			}
			require.Equal(t, c.want, got)
		})
	}
	// A model made from a folder is not a document: nothing to check.
	errs, err := SchemaErrors(&objects.Object{Kind: objects.KindClusterBaseModel, FromFolder: true, Value: map[string]any{}}, testRelease)
	require.NoError(t, err)
	require.Empty(t, errs)
}

// The schema in two parts (the object with spec's fields taken as they
// are, then each field on its own, its verdict kept for its value) gives
// what the whole schema gives, on every object of testdata, on a
// generated cluster and on those objects with values of the wrong type
// put in at random.
func TestSchemaErrorsAreTheWholeSchemas(t *testing.T) {
	in := &input.Result{}
	in.Read([]string{"../../testdata/catalog", "../../testdata/examples", "../../testdata/lint", "../../testdata/bad", "../../testdata/gatekeeper",
		"../../testdata/namespaces", "../../testdata/dump"}, input.ReadOptions{Lenient: true, ModelFolders: true, Recursive: true})
	objs := in.Objects
	require.Greater(t, len(objs), 300)
	validators := map[string]*validate.SchemaValidator{}
	whole := func(o *objects.Object) []SchemaError {
		v, ok := validators[o.Kind]
		if !ok {
			var err error
			v, err = wholeValidator(testRelease, o.Kind)
			require.NoError(t, err)
			validators[o.Kind] = v
		}
		if v == nil || o.FromFolder {
			return nil
		}
		errs := schemaErrors(v.Validate(o.Value))
		sortSchemaErrors(errs)
		if len(errs) == 0 {
			return nil
		}
		return errs
	}
	r := rand.New(rand.NewSource(1))
	wrong := []any{int64(3), 1.5, true, "text", []any{"a"}, map[string]any{"x": int64(1)}, []any{}}
	checked, failing := 0, 0
	for round := 0; round < 2; round++ {
		for _, o := range objs {
			if round > 0 {
				o = &objects.Object{Kind: o.Kind, Name: o.Name, File: o.File, Line: o.Line, FromFolder: o.FromFolder, Value: mutate(r, deepCopy(o.Value).(map[string]any), wrong)}
			}
			want := whole(o)
			got, err := SchemaErrors(o, testRelease)
			require.NoError(t, err)
			require.Equal(t, want, got, "%s (%s:%d), round %d", o.Ref(), o.File, o.Line, round)
			checked++
			if len(want) > 0 {
				failing++
			}
		}
	}
	require.Greater(t, failing, checked/10, "the mutations give errors to compare")
}

func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = deepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = deepCopy(e)
		}
		return out
	}
	return v
}

// mutate replaces a value at a random place under spec with one of wrong.
func mutate(r *rand.Rand, v map[string]any, wrong []any) map[string]any {
	spec, ok := v["spec"].(map[string]any)
	if !ok || len(spec) == 0 {
		return v
	}
	var cur any = spec
	for depth := 0; depth < 1+r.Intn(5); depth++ {
		switch x := cur.(type) {
		case map[string]any:
			if len(x) == 0 {
				return v
			}
			keys := slices.Sorted(maps.Keys(x))
			k := keys[r.Intn(len(keys))]
			if r.Intn(3) == 0 {
				x[k] = wrong[r.Intn(len(wrong))]
				return v
			}
			cur = x[k]
		case []any:
			if len(x) == 0 {
				return v
			}
			i := r.Intn(len(x))
			if r.Intn(3) == 0 {
				x[i] = wrong[r.Intn(len(wrong))]
				return v
			}
			cur = x[i]
		default:
			return v
		}
	}
	return v
}
