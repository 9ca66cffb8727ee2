package input

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ome-policy/evaluator/objects"
)

// Spec section 8: what OME reads from a model's files. A model folder is a
// directory that directly holds config.json (a transformers model) or
// model_index.json (a diffusers pipeline); it becomes a ClusterBaseModel
// named after the folder, filled in as OME fills it.

const (
	configFile     = "config.json"
	modelIndexFile = "model_index.json"
	// maxConfigSize bounds what is read of a config file.
	maxConfigSize = 16 << 20
)

// IsModelFolder reports whether dir directly holds a config.json or a
// model_index.json.
func IsModelFolder(dir string) bool {
	for _, f := range []string{modelIndexFile, configFile} {
		if st, err := os.Stat(filepath.Join(dir, f)); err == nil && st.Mode().IsRegular() {
			return true
		}
	}
	return false
}

// ModelFromFolder reads a model folder into a ClusterBaseModel. A
// model_index.json wins over a config.json, as a diffusers pipeline holds
// both.
func ModelFromFolder(dir string) (*objects.Object, error) {
	name := filepath.Base(filepath.Clean(dir))
	if p := filepath.Join(dir, modelIndexFile); fileExists(p) {
		data, err := readConfig(p)
		if err != nil {
			return nil, err
		}
		return folderObject(name, p, specFromModelIndex(data)), nil
	}
	p := filepath.Join(dir, configFile)
	data, err := readConfig(p)
	if err != nil {
		return nil, err
	}
	return folderObject(name, p, specFromConfig(data)), nil
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

func readConfig(p string) (map[string]any, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, &objects.InputError{File: p, Msg: "cannot read: " + strings.TrimPrefix(err.Error(), "open "+p+": ")}
	}
	defer f.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(io.LimitReader(f, maxConfigSize+1)); err != nil {
		return nil, &objects.InputError{File: p, Msg: "cannot read: " + err.Error()}
	}
	if buf.Len() > maxConfigSize {
		return nil, &objects.InputError{File: p, Msg: fmt.Sprintf("larger than %d MiB", maxConfigSize>>20)}
	}
	dec := json.NewDecoder(&buf)
	dec.UseNumber()
	var v map[string]any
	if err := dec.Decode(&v); err != nil {
		return nil, &objects.InputError{File: p, Line: jsonErrorLine(buf.Bytes(), err), Msg: "not a JSON object: " + err.Error()}
	}
	return v, nil
}

// jsonErrorLine turns the byte offset of a JSON syntax error into a line.
func jsonErrorLine(data []byte, err error) int {
	var off int64
	switch e := err.(type) {
	case *json.SyntaxError:
		off = e.Offset
	case *json.UnmarshalTypeError:
		off = e.Offset
	default:
		return 0
	}
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	return bytes.Count(data[:off], []byte("\n")) + 1
}

func folderObject(name, file string, spec map[string]any) *objects.Object {
	return &objects.Object{
		APIVersion: objects.APIVersion,
		Kind:       objects.KindClusterBaseModel,
		Name:       name,
		File:       file,
		Line:       1,
		Value: map[string]any{
			"apiVersion": objects.APIVersion,
			"kind":       objects.KindClusterBaseModel,
			"metadata":   map[string]any{"name": name},
			"spec":       spec,
		},
		FromFolder: true,
	}
}

// specFromConfig fills a transformers model: format safetensors 1.0.0,
// framework transformers with config.json's transformers_version (no
// version when absent), the first architecture, and int4 or fp8 from
// quantization_config.quant_method.
func specFromConfig(cfg map[string]any) map[string]any {
	framework := map[string]any{"name": "transformers"}
	if v, ok := cfg["transformers_version"].(string); ok {
		framework["version"] = v
	}
	spec := map[string]any{
		"modelFormat":    map[string]any{"name": "safetensors", "version": "1.0.0"},
		"modelFramework": framework,
	}
	if archs, ok := cfg["architectures"].([]any); ok && len(archs) > 0 {
		if a, ok := archs[0].(string); ok {
			spec["modelArchitecture"] = a
		}
	}
	if q, ok := cfg["quantization_config"].(map[string]any); ok {
		if method, ok := q["quant_method"].(string); ok {
			lower := strings.ToLower(method)
			switch {
			case strings.Contains(lower, "int4"):
				spec["quantization"] = "int4"
			case strings.Contains(lower, "fp8"):
				spec["quantization"] = "fp8"
			}
		}
	}
	return spec
}

// diffusersComponents maps model_index.json keys to the pipeline's
// component fields.
var diffusersComponents = map[string]string{
	"scheduler":    "scheduler",
	"text_encoder": "textEncoder",
	"tokenizer":    "tokenizer",
	"transformer":  "transformer",
	"vae":          "vae",
}

// specFromModelIndex fills a diffusers pipeline: format and framework
// diffusers with _diffusers_version, className from _class_name, and each
// [library, type] pair as a component (unet standing in for a missing
// transformer) or else an additional component under its key.
func specFromModelIndex(idx map[string]any) map[string]any {
	versioned := func(name string) map[string]any {
		m := map[string]any{"name": name}
		if v, ok := idx["_diffusers_version"].(string); ok {
			m["version"] = v
		}
		return m
	}
	pipeline := map[string]any{}
	if c, ok := idx["_class_name"].(string); ok {
		pipeline["className"] = c
	}
	additional := map[string]any{}
	keys := make([]string, 0, len(idx))
	for k := range idx {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	_, hasTransformer := idx["transformer"]
	for _, k := range keys {
		if strings.HasPrefix(k, "_") {
			continue
		}
		comp, ok := componentPair(idx[k])
		if !ok {
			continue
		}
		field, known := diffusersComponents[k]
		if k == "unet" && !hasTransformer {
			field, known = "transformer", true
		}
		if known {
			pipeline[field] = comp
		} else {
			additional[k] = comp
		}
	}
	if len(additional) > 0 {
		pipeline["additionalComponents"] = additional
	}
	return map[string]any{
		"modelFormat":       versioned("diffusers"),
		"modelFramework":    versioned("diffusers"),
		"diffusionPipeline": pipeline,
	}
}

// componentPair reads a ["library", "type"] pair; anything else (such as
// [null, null] for an absent safety checker) is not a component.
func componentPair(v any) (map[string]any, bool) {
	list, ok := v.([]any)
	if !ok || len(list) != 2 {
		return nil, false
	}
	lib, ok1 := list[0].(string)
	typ, ok2 := list[1].(string)
	if !ok1 || !ok2 {
		return nil, false
	}
	return map[string]any{"library": lib, "type": typ}, true
}

// SkipConfigParsing is the annotation that stops OME from filling a model in
// from its files.
const SkipConfigParsing = "ome.oracle.com/skip-config-parsing"

// ModelNotices are the notices of objs before OME's rules judge them: each
// model whose fields OME would fill in from its files in a cluster, so
// that its verdicts there may differ (ConfigParsingNotice), and the model
// folders, which have no size, when a runtime of objs has a size range
// (SizeNotice).
func ModelNotices(objs []*objects.Object) []string {
	var out []string
	for _, o := range objs {
		if note := ConfigParsingNotice(o); note != "" {
			out = append(out, note)
		}
	}
	if note := SizeNotice(objs); note != "" {
		out = append(out, note)
	}
	return out
}

// ConfigParsingNotice returns a notice for a model read from YAML whose
// format or framework is empty and which OME will therefore fill in from
// the model's files (spec section 8), or "" when there is nothing to say.
func ConfigParsingNotice(o *objects.Object) string {
	if !o.IsModel() || o.Pos.Len() == 0 {
		return ""
	}
	meta, _ := o.Value["metadata"].(map[string]any)
	ann, _ := meta["annotations"].(map[string]any)
	if skip, _ := ann[SkipConfigParsing].(string); skip == "true" {
		return ""
	}
	spec := o.Spec()
	format, _ := spec["modelFormat"].(map[string]any)
	name, _ := format["name"].(string)
	_, hasFramework := spec["modelFramework"]
	var empty []string
	if name == "" {
		empty = append(empty, "modelFormat")
	}
	if !hasFramework {
		empty = append(empty, "modelFramework")
	}
	if len(empty) == 0 {
		return ""
	}
	return fmt.Sprintf("%s:%d: notice: %s has no %s; in a cluster OME fills it in from the model's files (unless annotated %s: \"true\"), so its verdicts there may differ from these",
		o.File, o.Line, o.Ref(), strings.Join(empty, " or "), SkipConfigParsing)
}

// SizeNotice says, of the models of objs read from model folders, which
// have no size, that the size ranges of the runtimes of objs are not
// checked for them; "" when every such model has a size or no runtime has
// a range. OME estimates a model's size from its weights, which a folder's
// config does not give. A model folder is a ClusterBaseModel, which OME
// pairs with every runtime, so the runtimes are the same for each.
func SizeNotice(objs []*objects.Object) string {
	var unsized, ranged []string
	var first *objects.Object
	for _, o := range objs {
		switch {
		case o.IsModel() && o.FromFolder:
			if _, sized := o.Spec()["modelParameterSize"]; !sized {
				if first == nil {
					first = o
				}
				unsized = append(unsized, o.Ref())
			}
		case o.IsRuntime():
			if _, ok := o.Spec()["modelSizeRange"].(map[string]any); ok {
				ranged = append(ranged, o.Name)
			}
		}
	}
	if len(unsized) == 0 || len(ranged) == 0 {
		return ""
	}
	what := objects.FileLine(first.File, first.Line) + ": notice: " + first.Ref() + " has no size"
	if len(unsized) > 1 {
		what = fmt.Sprintf("notice: %d model folders have no size (%s)", len(unsized), someOf(unsized))
	}
	sort.Strings(ranged)
	return fmt.Sprintf("%s: OME estimates one from the model's weights, which a model folder's config does not give, "+
		"so the modelSizeRange of %d runtime(s) (%s) is not checked here, and OME may decide otherwise in a cluster; "+
		"a model in YAML with spec.modelParameterSize is checked",
		what, len(ranged), someOf(ranged))
}

// someOf lists the first three of names, and how many more there are.
func someOf(names []string) string {
	if len(names) <= 3 {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:3], ", ") + fmt.Sprintf(" and %d more", len(names)-3)
}
