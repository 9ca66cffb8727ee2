package objects

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// APIVersion is the only apiVersion whose objects are recognised.
const APIVersion = "ome.io/v1beta1"

// The recognised kinds.
const (
	KindBaseModel             = "BaseModel"
	KindClusterBaseModel      = "ClusterBaseModel"
	KindServingRuntime        = "ServingRuntime"
	KindClusterServingRuntime = "ClusterServingRuntime"
	KindInferenceService      = "InferenceService"
)

// Object is one recognised object.
type Object struct {
	APIVersion, Kind, Namespace, Name string
	File                              string // path as given ("<stdin>" for "-")
	Line                              int    // line where the object starts
	Value                             map[string]any
	Pos                               Positions // where each field sits, by path ("spec.modelFormat.version")
	// FromFolder marks a model made from a folder's config.json or
	// model_index.json (spec section 8) rather than read as a document.
	FromFolder bool
}

// Spec returns Value["spec"] as a map, or an empty map.
func (o *Object) Spec() map[string]any {
	if m, ok := o.Value["spec"].(map[string]any); ok {
		return m
	}
	return map[string]any{}
}

// IsModel reports whether o is a BaseModel or ClusterBaseModel.
func (o *Object) IsModel() bool { return o.Kind == KindBaseModel || o.Kind == KindClusterBaseModel }

// IsRuntime reports whether o is a ServingRuntime or ClusterServingRuntime.
func (o *Object) IsRuntime() bool {
	return o.Kind == KindServingRuntime || o.Kind == KindClusterServingRuntime
}

// IsService says whether o is an InferenceService.
func (o *Object) IsService() bool { return o.Kind == KindInferenceService }

// Ref names the object: "Kind/name" or, when namespaced, "Kind/namespace/name".
func (o *Object) Ref() string { return refText(RefOf(o)) }

// Where returns "file:line: field" for a field path of the object. A field
// that is absent borrows the line of its nearest present parent, so a
// message about a missing field still points into the right block.
func (o *Object) Where(field string) string {
	s := FileLine(o.File, o.LineOf(field))
	if field != "" {
		s += ": " + field
	}
	return s
}

// Ref names an object in results.
type Ref struct {
	Kind      string `json:"kind" yaml:"kind"`
	Namespace string `json:"namespace" yaml:"namespace"`
	Name      string `json:"name" yaml:"name"`
}

// RefOf returns the reference to o.
func RefOf(o *Object) Ref { return Ref{Kind: o.Kind, Namespace: o.Namespace, Name: o.Name} }

// RawScalars returns the source text of every scalar of o that YAML did
// not read as a string, by field path, so that a message can quote what was
// written (version: 1.10 reads as the number 1.1).
func RawScalars(o *Object) map[string]any {
	out := map[string]any{}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				walk(JoinPath(path, k), e)
			}
		case []any:
			for i, e := range x {
				walk(IndexPath(path, i), e)
			}
		case int64, float64, bool:
			if p := o.Pos.At(path); p.Raw != "" {
				out[path] = p.Raw
			}
		}
	}
	walk("", o.Value)
	return out
}

// InScope reports whether OME ever pairs the model with the runtime. OME
// selects a runtime for an InferenceService among the ServingRuntimes of
// the InferenceService's namespace and every ClusterServingRuntime, with a
// model that is a BaseModel of that namespace or a ClusterBaseModel. So a
// ClusterServingRuntime pairs with every model, and a ServingRuntime with
// the BaseModels of its own namespace and with every ClusterBaseModel (in
// an InferenceService of the runtime's namespace); a BaseModel never meets
// the ServingRuntimes of another namespace.
func InScope(model, runtime *Object) bool {
	return runtime.Kind != KindServingRuntime || model.Kind != KindBaseModel || model.Namespace == runtime.Namespace
}

// Applied says which of n objects, given in the order they are read,
// applying them in that order would leave: of the objects of one kind,
// namespace and name (ref), the last, which replaces the ones before it,
// as on kubectl apply. It is the rule every command reads its objects by.
func Applied(n int, ref func(i int) Ref) []bool {
	last := make(map[Ref]int, n)
	for i := 0; i < n; i++ {
		last[ref(i)] = i
	}
	left := make([]bool, n)
	for i := range left {
		left[i] = last[ref(i)] == i
	}
	return left
}

// Deduplicate keeps of objs what applying them in order would leave
// (Applied), in input order, and gives back the ones replaced.
func Deduplicate(objs []*Object) (kept, replaced []*Object) {
	left := Applied(len(objs), func(i int) Ref { return RefOf(objs[i]) })
	for i, o := range objs {
		if left[i] {
			kept = append(kept, o)
		} else {
			replaced = append(replaced, o)
		}
	}
	return kept, replaced
}

// Replacement is an object that a later one of the same kind, namespace
// and name replaces, as kubectl apply would.
type Replacement struct {
	Ref    Ref
	File   string // where the replaced object is
	Line   int
	ByFile string // where the later one is
	ByLine int
}

// Notice says where the object is and where the one that replaces it is.
func (r Replacement) Notice() string {
	return fmt.Sprintf("%s: notice: %s is given again at %s; the later one replaces it, as on apply",
		FileLine(r.File, r.Line), refText(r.Ref), FileLine(r.ByFile, r.ByLine))
}

// refText names a Ref as Object.Ref does.
func refText(r Ref) string {
	if r.Namespace != "" {
		return r.Kind + "/" + r.Namespace + "/" + r.Name
	}
	return r.Kind + "/" + r.Name
}

// LineOf is the line of a field path of the object; a field that is absent
// borrows the line of its nearest present parent (the object's own line at
// worst).
func (o *Object) LineOf(field string) int { return LineAt(o.Pos, field, o.Line) }

// InputError is every error about bad input: unreadable files, YAML that
// doesn't parse, fields of the wrong type, malformed case files.
type InputError struct {
	File  string
	Line  int
	Case  string // the case's name, for errors in case files
	Field string
	Msg   string
}

// Error reads "file:line: case "name": field: message"; the line, case and
// field parts are left out when unknown.
func (e *InputError) Error() string {
	var b strings.Builder
	b.WriteString(FileLine(e.File, e.Line))
	if e.Case != "" {
		fmt.Fprintf(&b, ": case %q", e.Case)
	}
	if e.Field != "" {
		b.WriteString(": " + e.Field)
	}
	b.WriteString(": " + e.Msg)
	return b.String()
}

// IsOMEKind reports whether kind is one of the five recognised kinds.
func IsOMEKind(kind string) bool {
	switch kind {
	case KindBaseModel, KindClusterBaseModel, KindServingRuntime, KindClusterServingRuntime, KindInferenceService:
		return true
	}
	return false
}

func IsClusterScoped(kind string) bool {
	return kind == KindClusterBaseModel || kind == KindClusterServingRuntime
}

// NewObject builds an Object from a decoded recognised document. The name is
// checked even when loading leniently: without it the object can't be named
// in any output.
func NewObject(file string, v map[string]any, pos Positions) (*Object, error) {
	o := &Object{File: file, Value: v, Pos: pos, Line: pos.At("").Line}
	o.APIVersion, _ = v["apiVersion"].(string)
	o.Kind, _ = v["kind"].(string)
	meta, _ := v["metadata"].(map[string]any)
	name, present := meta["name"]
	o.Name, _ = name.(string)
	if o.Name == "" {
		msg := "is required"
		if present {
			msg = "must be a non-empty string, got " + DescribeValue(name, pos.At("metadata.name").Raw)
		}
		return nil, &InputError{File: file, Line: o.Line, Field: "metadata.name", Msg: msg}
	}
	// Kubernetes ignores the namespace of cluster-scoped objects; so do we,
	// so that Ref and outputs agree with what the cluster would hold.
	if !IsClusterScoped(o.Kind) {
		o.Namespace, _ = meta["namespace"].(string)
	}
	return o, nil
}

// CheckObject applies the strict type checks to the fields the policies read.
// Unknown fields are ignored; absent fields are fine. It returns the first
// problem, visiting fields in a fixed order.
func CheckObject(o *Object) error {
	c := &fieldChecker{o: o}
	if meta := c.object(o.Value, "", "metadata", ""); meta != nil {
		c.str(meta, "metadata", "namespace")
		c.stringMap(meta, "metadata", "labels")
		c.stringMap(meta, "metadata", "annotations")
	}
	spec := c.object(o.Value, "", "spec", "")
	switch {
	case o.IsModel():
		c.format(spec, "spec", "modelFormat")
		c.format(spec, "spec", "modelFramework")
		c.str(spec, "spec", "modelArchitecture", "quantization", "modelParameterSize", "modelType")
		c.boolean(spec, "spec", "disabled")
		c.pipeline(spec, "spec")
	case o.IsRuntime():
		for i, e := range c.list(spec, "spec", "supportedModelFormats") {
			p := IndexPath("spec.supportedModelFormats", i)
			m, ok := e.(map[string]any)
			if !ok {
				c.fail(p, "must be an object, got "+c.describeValue(e, p))
				continue
			}
			c.str(m, p, "name", "version", "modelType", "modelArchitecture", "quantization")
			c.format(m, p, "modelFormat")
			c.format(m, p, "modelFramework")
			c.pipeline(m, p)
			c.boolean(m, p, "autoSelect")
			c.integer(m, p, "priority")
		}
		c.boolean(spec, "spec", "disabled")
		if r := c.object(spec, "spec", "modelSizeRange", " with min and max"); r != nil {
			c.str(r, "spec.modelSizeRange", "min", "max")
		}
		if a := c.object(spec, "spec", "acceleratorRequirements", " with acceleratorClasses"); a != nil {
			for i, v := range c.list(a, "spec.acceleratorRequirements", "acceleratorClasses") {
				c.strValue(v, IndexPath("spec.acceleratorRequirements.acceleratorClasses", i))
			}
		}
	case o.Kind == KindInferenceService:
		if m := c.object(spec, "spec", "model", " with name"); m != nil {
			c.str(m, "spec.model", "name")
		}
		if r := c.object(spec, "spec", "runtime", " with name"); r != nil {
			c.str(r, "spec.runtime", "name")
		}
		for _, component := range []string{"engine", "decoder"} {
			if m := c.object(spec, "spec", component, ""); m != nil {
				p := "spec." + component
				if o := c.object(m, p, "acceleratorOverride", " with acceleratorClass"); o != nil {
					c.str(o, p+".acceleratorOverride", "acceleratorClass")
				}
			}
		}
		if a := c.object(spec, "spec", "acceleratorSelector", " with acceleratorClass"); a != nil {
			c.str(a, "spec.acceleratorSelector", "acceleratorClass")
		}
		if k := c.object(spec, "spec", "kedaConfig", ""); k != nil {
			c.str(k, "spec.kedaConfig", "scalingOperator", "scalingThreshold", "promServerAddress", "authModes")
		}
	}
	return c.err
}

// fieldChecker keeps the first error; every check after it is a no-op, which
// keeps the check list above free of error plumbing.
type fieldChecker struct {
	o   *Object
	err error
}

func (c *fieldChecker) fail(path, msg string) {
	if c.err == nil {
		c.err = &InputError{File: c.o.File, Line: LineAt(c.o.Pos, path, c.o.Line), Field: path, Msg: msg}
	}
}

func (c *fieldChecker) describeValue(v any, path string) string {
	return DescribeValue(v, c.o.Pos.At(path).Raw)
}

// field returns m[key] and its path; ok is false when absent or after an error.
func (c *fieldChecker) field(m map[string]any, path, key string) (any, string, bool) {
	v, ok := m[key]
	return v, JoinPath(path, key), ok && c.err == nil
}

func (c *fieldChecker) str(m map[string]any, path string, keys ...string) {
	for _, k := range keys {
		if v, p, ok := c.field(m, path, k); ok {
			c.strValue(v, p)
		}
	}
}

// strValue requires a string. A number or boolean there is nearly always an
// unquoted YAML scalar (version: 1.0 reads as the float 1), so say how to fix it.
func (c *fieldChecker) strValue(v any, path string) {
	if _, ok := v.(string); ok {
		return
	}
	msg := "must be a string, got " + c.describeValue(v, path)
	switch v.(type) {
	case int64, float64, bool:
		raw := c.o.Pos.At(path).Raw
		if raw == "" {
			raw = fmt.Sprint(v)
		}
		msg += "; quote it: " + strconv.Quote(raw)
	}
	c.fail(path, msg)
}

func (c *fieldChecker) boolean(m map[string]any, path, key string) {
	if v, p, ok := c.field(m, path, key); ok {
		if _, isBool := v.(bool); !isBool {
			c.fail(p, "must be true or false, got "+c.describeValue(v, p))
		}
	}
}

func (c *fieldChecker) integer(m map[string]any, path, key string) {
	if v, p, ok := c.field(m, path, key); ok {
		if _, isInt := v.(int64); !isInt {
			c.fail(p, "must be an integer, got "+c.describeValue(v, p))
		}
	}
}

// object returns m[key] as a map, or nil when absent or of another type
// (reporting the latter); hint names the fields expected, for the message.
func (c *fieldChecker) object(m map[string]any, path, key, hint string) map[string]any {
	v, p, ok := c.field(m, path, key)
	if !ok {
		return nil
	}
	r, isMap := v.(map[string]any)
	if !isMap {
		c.fail(p, "must be an object"+hint+", got "+c.describeValue(v, p))
	}
	return r
}

func (c *fieldChecker) list(m map[string]any, path, key string) []any {
	v, p, ok := c.field(m, path, key)
	if !ok {
		return nil
	}
	r, isList := v.([]any)
	if !isList {
		c.fail(p, "must be a list, got "+c.describeValue(v, p))
	}
	return r
}

func (c *fieldChecker) stringMap(m map[string]any, path, key string) {
	if sm := c.object(m, path, key, ""); sm != nil {
		p := JoinPath(path, key)
		for _, k := range sortedMapKeys(sm) {
			c.str(sm, p, k)
		}
	}
}

// format checks a modelFormat or modelFramework block.
func (c *fieldChecker) format(m map[string]any, path, key string) {
	if f := c.object(m, path, key, " with name and version"); f != nil {
		p := JoinPath(path, key)
		c.str(f, p, "name", "version", "operator")
		c.integer(f, p, "weight")
	}
}

func (c *fieldChecker) pipeline(m map[string]any, path string) {
	dp := c.object(m, path, "diffusionPipeline", "")
	if dp == nil {
		return
	}
	p := JoinPath(path, "diffusionPipeline")
	c.str(dp, p, "className")
	for _, k := range []string{"scheduler", "textEncoder", "tokenizer", "transformer", "vae"} {
		c.component(dp, p, k)
	}
	if ac := c.object(dp, p, "additionalComponents", ""); ac != nil {
		for _, k := range sortedMapKeys(ac) {
			c.component(ac, JoinPath(p, "additionalComponents"), k)
		}
	}
}

func (c *fieldChecker) component(m map[string]any, path, key string) {
	if x := c.object(m, path, key, " with library and type"); x != nil {
		c.str(x, JoinPath(path, key), "library", "type")
	}
}

// describe names a value's type for messages, with the value itself when it
// is a scalar (raw is its source text, so 1.0 shows as 1.0, not 1).
func DescribeValue(v any, raw string) string {
	switch x := v.(type) {
	case string:
		return fmt.Sprintf("a string (%q)", x)
	case bool, int64, float64:
		if raw == "" {
			raw = fmt.Sprint(x)
		}
		if _, ok := x.(bool); ok {
			return "a boolean (" + raw + ")"
		}
		return "a number (" + raw + ")"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

func sortedMapKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// join appends a key to a field path. Keys that would make the path
// ambiguous (dots, brackets, quotes, empty) are written as ["key"].
func JoinPath(path, key string) string {
	if key == "" || strings.ContainsAny(key, `.[]"`) {
		return path + "[" + strconv.Quote(key) + "]"
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

func IndexPath(path string, i int) string { return fmt.Sprintf("%s[%d]", path, i) }

// CheckTimestamps refuses a creationTimestamp that is not RFC 3339, as the
// API server would; selection orders runtimes by it.
func CheckTimestamps(objs []*Object) error {
	for _, o := range objs {
		meta, _ := o.Value["metadata"].(map[string]any)
		ts, present := meta["creationTimestamp"]
		if !present {
			continue
		}
		s, ok := ts.(string)
		if _, err := time.Parse(time.RFC3339, s); !ok || err != nil {
			return fmt.Errorf("%s: must be an RFC 3339 time such as 2025-01-31T12:00:00Z, got %v", o.Where("metadata.creationTimestamp"), ts)
		}
	}
	return nil
}

// MapsAt is the list at key of a decoded mapping, each element a mapping
// (nil for one that is not): what Kubernetes objects' lists of entries
// are read as.
func MapsAt(m map[string]any, key string) []map[string]any {
	list, _ := m[key].([]any)
	out := make([]map[string]any, 0, len(list))
	for _, x := range list {
		e, _ := x.(map[string]any)
		out = append(out, e)
	}
	return out
}

// StringAt is the string at key of a decoded mapping, "" when there is none.
func StringAt(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}
