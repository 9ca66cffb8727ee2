// Package synth makes synthetic clusters of OME models and runtimes: what
// `evaluate generate` writes, and what the benchmarks, load tests and the
// engines' tests run on. It owns only the shape of the data and its YAML;
// it reads and writes no file, evaluates nothing and knows no engine.
package synth

import (
	"fmt"
	"io"
	"math/rand"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/ome-policy/evaluator/objects"
)

// Shape is how varied a synthetic cluster is: how many distinct
// architectures, framework versions and format names its models and entries
// draw from. Matching costs depend on it (each distinct value is a check to
// make), so benchmarks run on more than one.
type Shape struct {
	Name          string
	Architectures int // distinct modelArchitecture values
	Versions      int // distinct modelFramework versions (0: OME's own 16)
	Formats       int // distinct modelFormat names (1 or 2: OME's safetensors and pytorch)
}

// The shapes `evaluate generate --shape` knows, from the least to the most
// varied. OME is what OME's catalog looks like, and the default.
var (
	Few  = Shape{Name: "few", Architectures: 3, Versions: 4, Formats: 1}
	OME  = Shape{Name: "ome", Architectures: 30, Formats: 2}
	Many = Shape{Name: "many", Architectures: 400, Versions: 600, Formats: 6}
)

// Shapes lists the named shapes in that order.
var Shapes = []Shape{Few, OME, Many}

// Dimensions are what of a shape Set can change.
var Dimensions = []string{"architectures", "versions", "formats"}

// Set sets one dimension of s (Dimensions) to n, at least 1.
func (s *Shape) Set(dimension string, n int) error {
	into := map[string]*int{"architectures": &s.Architectures, "versions": &s.Versions, "formats": &s.Formats}[dimension]
	switch {
	case into == nil:
		return fmt.Errorf("%s is none of %s", dimension, strings.Join(Dimensions, ", "))
	case n < 1:
		return fmt.Errorf("%s must be at least 1, got %d", dimension, n)
	}
	*into = n
	return nil
}

// ShapeNamed returns the shape of Shapes called name.
func ShapeNamed(name string) (Shape, error) {
	names := make([]string, len(Shapes))
	for i, sh := range Shapes {
		if sh.Name == name {
			return sh, nil
		}
		names[i] = sh.Name
	}
	return Shape{}, fmt.Errorf("unknown shape %q (want %s)", name, strings.Join(names, ", "))
}

// omeVersions are the framework versions of the OME shape.
var omeVersions = []string{"4.36.0", "4.38.2", "4.40.0.dev0", "4.41.2", "4.42.3", "4.43.0", "4.44.2",
	"4.45.0", "4.45.0.dev0", "4.46.0", "4.48.3", "4.50.0.dev0", "4.51.0", "4.51.3", "4.55.0.dev0", "4.57.1"}

// formatNames are the format names shapes draw from, OME's first.
var formatNames = []string{"safetensors", "pytorch", "gguf", "onnx", "tensorrt", "openvino", "mlx", "jax"}

// Cluster makes a synthetic cluster of the OME shape: see ShapedCluster.
func Cluster(seed int64, models, runtimes int) (ms, rs []map[string]any) {
	return ShapedCluster(seed, models, runtimes, OME)
}

// ShapedCluster makes a synthetic cluster, deterministically from seed:
// models ClusterBaseModels and runtimes ClusterServingRuntimes that look
// like OME's catalog (formats, architectures and framework versions as
// varied as shape says, operators, size ranges, accelerator classes, and a
// container spec of realistic size). Every entry has a format and framework
// name that some model has, so names alone rarely settle a pair. It is for
// benchmarks and load tests.
func ShapedCluster(seed int64, models, runtimes int, shape Shape) (ms, rs []map[string]any) {
	g := newShaper(seed, shape)
	for i := 0; i < models; i++ {
		ms = append(ms, g.model(i))
	}
	for i := 0; i < runtimes; i++ {
		rs = append(rs, g.runtime(i))
	}
	return ms, rs
}

// shaper draws a cluster's objects from one random source, in a fixed
// order, so that a seed always gives the same cluster.
type shaper struct {
	r            *rand.Rand
	archs        []string
	versions     []string
	modelFormats []string
	entryFormats []string
}

// sizes are the models' parameter sizes and the runtimes' size bounds.
var sizes = []string{"500M", "1.5B", "3B", "7B", "8B", "14B", "32B", "70B", "405B", "1T"}

func newShaper(seed int64, shape Shape) *shaper {
	g := &shaper{r: rand.New(rand.NewSource(seed)), archs: make([]string, max(1, shape.Architectures)), versions: omeVersions}
	for i := range g.archs {
		g.archs[i] = fmt.Sprintf("Arch%02dForCausalLM", i)
	}
	if shape.Versions > 0 {
		g.versions = make([]string, shape.Versions)
		for i := range g.versions {
			g.versions[i] = fmt.Sprintf("4.%d.%d", 30+i/5, i%5)
			if i%7 == 3 {
				g.versions[i] += ".dev0"
			}
		}
	}
	// OME's models are mostly safetensors, some pytorch; its entries all
	// safetensors. Other shapes spread both over their formats.
	g.modelFormats = []string{"safetensors", "safetensors", "safetensors", "pytorch"}
	g.entryFormats = []string{"safetensors"}
	if shape.Formats == 1 {
		g.modelFormats = g.entryFormats
	} else if shape.Formats > 2 {
		g.modelFormats = formatNames[:min(shape.Formats, len(formatNames))]
		g.entryFormats = g.modelFormats
	}
	return g
}

func (g *shaper) pick(xs ...string) string { return xs[g.r.Intn(len(xs))] }

// choose picks from xs, drawing a random number only when there is a
// choice, so that the OME shape makes what it always made.
func (g *shaper) choose(xs []string) string {
	if len(xs) == 1 {
		return xs[0]
	}
	return xs[g.r.Intn(len(xs))]
}

// model is the i-th ClusterBaseModel.
func (g *shaper) model(i int) map[string]any {
	r := g.r
	spec := map[string]any{
		"modelFormat":        map[string]any{"name": g.choose(g.modelFormats), "version": "1.0.0"},
		"modelFramework":     map[string]any{"name": "transformers", "version": g.versions[r.Intn(len(g.versions))]},
		"modelArchitecture":  g.archs[r.Intn(len(g.archs))],
		"modelParameterSize": sizes[r.Intn(len(sizes))],
		"modelCapabilities":  []any{"TEXT_TO_TEXT"},
		"storage":            map[string]any{"storageUri": fmt.Sprintf("hf://org/model-%04d", i), "path": fmt.Sprintf("/mnt/data/models/model-%04d", i)},
	}
	if r.Intn(10) == 0 {
		spec["quantization"] = g.pick("fp8", "int4")
	}
	return map[string]any{
		"apiVersion": objects.APIVersion, "kind": objects.KindClusterBaseModel,
		"metadata": map[string]any{"name": fmt.Sprintf("model-%04d", i)},
		"spec":     spec,
	}
}

// entry is one supportedModelFormats entry of a runtime.
func (g *shaper) entry() map[string]any {
	r := g.r
	framework := map[string]any{"name": "transformers", "version": g.versions[r.Intn(len(g.versions))]}
	if r.Intn(3) == 0 {
		framework["operator"] = "GreaterThanOrEqual"
	}
	format := map[string]any{"name": g.choose(g.entryFormats), "version": "1.0.0"}
	if r.Intn(4) == 0 {
		format["operator"] = "GreaterThanOrEqual"
	}
	e := map[string]any{
		"modelFormat":       format,
		"modelFramework":    framework,
		"modelArchitecture": g.archs[r.Intn(len(g.archs))],
		"autoSelect":        r.Intn(2) == 0,
		"priority":          int64(1 + r.Intn(3)),
	}
	if r.Intn(10) == 0 {
		e["quantization"] = g.pick("fp8", "int4")
	}
	return e
}

// runtime is the i-th ClusterServingRuntime: one to three entries, a
// container spec of realistic size, and sometimes disabled, a size range or
// accelerator classes.
func (g *shaper) runtime(i int) map[string]any {
	r := g.r
	var entries []any
	for j := 0; j <= r.Intn(3); j++ {
		entries = append(entries, g.entry())
	}
	spec := map[string]any{
		"supportedModelFormats": entries,
		"protocolVersions":      []any{"openAI"},
		"engineConfig": map[string]any{
			"runner": map[string]any{
				"name":  "ome-container",
				"image": fmt.Sprintf("docker.io/lmsysorg/sglang:v0.4.%d", r.Intn(10)),
				"args":  []any{"--host=0.0.0.0", "--port=8080", "--model-path=$(MODEL_PATH)", "--tp-size=1"},
				"resources": map[string]any{
					"requests": map[string]any{"cpu": "10", "memory": "30Gi", "nvidia.com/gpu": "1"},
					"limits":   map[string]any{"cpu": "10", "memory": "30Gi", "nvidia.com/gpu": "1"},
				},
				"env": []any{map[string]any{"name": "MODEL_PATH", "value": "/mnt/models"}},
			},
		},
	}
	if r.Intn(20) == 0 {
		spec["disabled"] = true
	}
	if r.Intn(5) < 2 {
		lo := r.Intn(len(sizes) - 1)
		spec["modelSizeRange"] = map[string]any{"min": sizes[lo], "max": sizes[lo+1+r.Intn(len(sizes)-lo-1)]}
	}
	if r.Intn(3) == 0 {
		spec["acceleratorRequirements"] = map[string]any{"acceleratorClasses": []any{g.pick("nvidia-h100", "nvidia-a100", "amd-mi300x")}}
	}
	return map[string]any{
		"apiVersion": objects.APIVersion, "kind": objects.KindClusterServingRuntime,
		"metadata": map[string]any{"name": fmt.Sprintf("runtime-%04d", i)},
		"spec":     spec,
	}
}

// Encode writes objs to w as YAML documents, indented by two spaces, as
// `evaluate generate` writes a synthetic cluster's files.
func Encode(w io.Writer, objs []map[string]any) error {
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	for _, o := range objs {
		if err := enc.Encode(o); err != nil {
			return err
		}
	}
	return enc.Close()
}
