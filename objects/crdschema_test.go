package objects

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// crdSchemas extracts each OME CRD's openAPIV3Schema (of its served,
// stored version) from testdata/ome-crds as gzipped JSON, by kind.
func crdSchemas(t *testing.T) map[string][]byte {
	t.Helper()
	files, err := filepath.Glob("../testdata/ome-crds/*.yaml")
	require.NoError(t, err)
	out := map[string][]byte{}
	for _, f := range files {
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
			out[crd.Spec.Names.Kind] = buf.Bytes()
		}
	}
	require.Contains(t, out, KindClusterServingRuntime)
	return out
}

// TestCRDSchemasAreCurrent fails when objects/crdschema is not what
// testdata/ome-crds gives; `make crdschema` (go test -update) rewrites it.
func TestCRDSchemasAreCurrent(t *testing.T) {
	for kind, want := range crdSchemas(t) {
		path := filepath.Join("crdschema", kind+".json.gz")
		if *update {
			require.NoError(t, os.WriteFile(path, want, 0o644))
			continue
		}
		have, err := os.ReadFile(path)
		require.NoError(t, err, "run make crdschema")
		require.True(t, bytes.Equal(have, want), "%s is stale: run make crdschema", path)
	}
}

var update = flag.Bool("update", false, "rewrite generated files (crdschema/*.json.gz)")

func TestSchemaErrors(t *testing.T) {
	load := func(doc string) *Object {
		objs, err := LoadData("test.yaml", []byte(doc), LoadOptions{Lenient: true})
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
	} {
		t.Run(c.name, func(t *testing.T) {
			errs, err := SchemaErrors(load(c.doc))
			require.NoError(t, err)
			var got []string
			for _, e := range errs {
				got = append(got, e.Field+": "+e.Message)
			}
			require.Equal(t, c.want, got)
		})
	}
	// A model made from a folder is not a document: nothing to check.
	errs, err := SchemaErrors(&Object{Kind: KindClusterBaseModel, FromFolder: true, Value: map[string]any{}})
	require.NoError(t, err)
	require.Empty(t, errs)
}
