package crdschema

import (
	"bytes"
	"compress/gzip"
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"

	openapierrors "k8s.io/kube-openapi/pkg/validation/errors"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
	"k8s.io/kube-openapi/pkg/validation/validate"

	"github.com/ome-policy/evaluator/objects"
)

// The CRD schemas are the openAPIV3Schema of OME's CRDs, release by release
// (testdata/ome-crds, embedded as <release>/<Kind>.json.gz by `make
// crdschema`), checked with the validator the API server uses for CRDs
// (kube-openapi's), so that a file can be told what the API server of an
// OME release would refuse before any admission policy sees it. Lint
// reports these as its crd-schema rule.

// crdSchemaFiles holds a folder per OME release, named for its tag (v1.2.2).
//
//go:embed v*
var crdSchemaFiles embed.FS

// hasRelease says whether crdSchemaFiles has the release's folder.
func hasRelease(release string) bool {
	_, err := crdSchemaFiles.ReadDir(release)
	return err == nil && release != "."
}

var crdValidators sync.Map // release + "/" + kind -> func() (*crdValidator, error)

// crdValidator is a kind's schema, compiled once, in two parts that
// together validate what the whole schema does: the object with each of
// spec's fields taken as it is (top), and each of spec's fields on its own
// (fields, rooted at spec.<field>). A field's verdict is kept for its
// value (memo): the runtimes of a cluster are made from a few templates,
// so most of their engineConfigs are equal, and their validation is most
// of lint's time on a large dump. TestSchemaErrorsAreTheWholeSchemas holds
// the two parts to the whole schema.
type crdValidator struct {
	top    *validate.SchemaValidator
	fields map[string]*validate.SchemaValidator
	// items are the item schemas of spec's lists (supportedModelFormats),
	// whose items are validated each on its own, as the fields are: a
	// cluster's runtimes have nearly all different lists of entries, made
	// of a few hundred different entries. Their errors name the item
	// "[\x00]", which an item's index then replaces; fields then validate
	// the list with items taken as they are.
	items map[string]*validate.SchemaValidator

	mu   sync.Mutex
	memo map[string][]SchemaError // field + NUL + its value's JSON -> errors
}

// itemMark stands for an item's index in the errors of an item's schema.
const itemMark = "[\x00]"

// anything is a schema that takes any value as it is.
var anything = spec.Schema{VendorExtensible: spec.VendorExtensible{Extensions: spec.Extensions{"x-kubernetes-preserve-unknown-fields": true}}}

// memoSize bounds crdValidator.memo; past it, the memo starts again.
const memoSize = 20000

// compiledCRD compiles the kind's schema in an OME release once, on first
// use (nil for a kind without a CRD).
func compiledCRD(release, kind string) (*crdValidator, error) {
	f, _ := crdValidators.LoadOrStore(release+"/"+kind, sync.OnceValues(func() (*crdValidator, error) {
		s, err := crdSchema(release, kind)
		if s == nil || err != nil {
			return nil, err
		}
		v := &crdValidator{fields: map[string]*validate.SchemaValidator{}, items: map[string]*validate.SchemaValidator{}, memo: map[string][]SchemaError{}}
		top := *s
		if specSchema, ok := s.Properties["spec"]; ok && len(specSchema.Properties) > 0 {
			shallow := specSchema
			shallow.Properties = make(map[string]spec.Schema, len(specSchema.Properties))
			for field, fs := range specSchema.Properties {
				fs := fs
				if fs.Items != nil && fs.Items.Schema != nil && len(fs.Items.Schemas) == 0 {
					item := *fs.Items.Schema
					v.items[field] = validate.NewSchemaValidator(&item, nil, "spec."+field+itemMark, strfmt.Default)
					fs.Items = &spec.SchemaOrArray{Schema: &anything}
				}
				v.fields[field] = validate.NewSchemaValidator(&fs, nil, "spec."+field, strfmt.Default)
				shallow.Properties[field] = anything
			}
			top.Properties = make(map[string]spec.Schema, len(s.Properties))
			for k, p := range s.Properties {
				top.Properties[k] = p
			}
			top.Properties["spec"] = shallow
		}
		v.top = validate.NewSchemaValidator(&top, nil, "", strfmt.Default)
		return v, nil
	}))
	return f.(func() (*crdValidator, error))()
}

// crdSchema reads the kind's schema in an OME release (nil for a kind
// without a CRD). A release without schemas is an error.
func crdSchema(release, kind string) (*spec.Schema, error) {
	if !hasRelease(release) {
		return nil, fmt.Errorf("no CRDs of OME release %q", release)
	}
	gz, err := crdSchemaFiles.ReadFile(release + "/" + kind + ".json.gz")
	if err != nil {
		return nil, nil // not an OME kind with a CRD: nothing to check
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, fmt.Errorf("crd schema of %s: %w", kind, err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("crd schema of %s: %w", kind, err)
	}
	var s spec.Schema
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("crd schema of %s: %w", kind, err)
	}
	return &s, nil
}

// wholeValidator validates with the kind's schema in one piece, as the
// API server does (for the test that holds the two parts to it).
func wholeValidator(release, kind string) (*validate.SchemaValidator, error) {
	s, err := crdSchema(release, kind)
	if s == nil || err != nil {
		return nil, err
	}
	return validate.NewSchemaValidator(s, nil, "", strfmt.Default), nil
}

// fieldErrors validates one of spec's fields (and each item of a list), or
// gives the errors its value had before.
func (v *crdValidator) fieldErrors(field string, value any) []SchemaError {
	fv, ok := v.fields[field]
	if !ok {
		return nil
	}
	errs := v.remembered(field, value, fv)
	if iv, ok := v.items[field]; ok {
		list, _ := value.([]any)
		for i, item := range list {
			index := "[" + strconv.Itoa(i) + "]"
			for _, e := range v.remembered(field+itemMark, item, iv) {
				errs = append(errs, SchemaError{
					Field:   strings.ReplaceAll(e.Field, itemMark, index),
					Message: strings.ReplaceAll(e.Message, itemMark, index),
				})
			}
		}
	}
	return errs
}

// remembered validates value with sv, or gives the errors that an equal
// value of the same key had.
func (v *crdValidator) remembered(key string, value any, sv *validate.SchemaValidator) []SchemaError {
	text, err := json.Marshal(value)
	if err != nil {
		return schemaErrors(sv.Validate(value))
	}
	k := key + "\x00" + string(text)
	v.mu.Lock()
	errs, seen := v.memo[k]
	v.mu.Unlock()
	if seen {
		return errs
	}
	errs = schemaErrors(sv.Validate(value))
	v.mu.Lock()
	if len(v.memo) >= memoSize {
		v.memo = map[string][]SchemaError{}
	}
	v.memo[k] = errs
	v.mu.Unlock()
	return errs
}

// SchemaError is one cause the API server gives for refusing an object:
// the field, and the message in its words ("Required value").
type SchemaError struct {
	Field, Message string
}

// SchemaErrors validates an object read from a document against its kind's
// CRD schema in an OME release, as the API server does on create, and
// words each cause as the API server does. Models made from a folder are
// not documents and have none; neither have kinds without a CRD. The
// errors are in field order, then message order.
func SchemaErrors(o *objects.Object, release string) ([]SchemaError, error) {
	if o.FromFolder {
		return nil, nil
	}
	v, err := compiledCRD(release, o.Kind)
	if v == nil || err != nil {
		return nil, err
	}
	out := schemaErrors(v.top.Validate(o.Value))
	if specValue, ok := o.Value["spec"].(map[string]any); ok {
		for field, value := range specValue {
			out = append(out, v.fieldErrors(field, value)...)
		}
	}
	sortSchemaErrors(out)
	return out, nil
}

// sortSchemaErrors puts errors in field order (then message order).
func sortSchemaErrors(errs []SchemaError) {
	sort.Slice(errs, func(i, j int) bool {
		if errs[i].Field != errs[j].Field {
			return errs[i].Field < errs[j].Field
		}
		return errs[i].Message < errs[j].Message
	})
}

// schemaErrors words a validation's errors as the API server does.
func schemaErrors(res *validate.Result) []SchemaError {
	if res.IsValid() {
		return nil
	}
	out := make([]SchemaError, 0, len(res.Errors))
	for _, e := range res.Errors {
		field, msg := causeOf(e)
		out = append(out, SchemaError{Field: field, Message: msg})
	}
	return out
}

// causeOf is a validation error's field and message in the API server's
// words (apiextensions-apiserver turns kube-openapi's errors into
// field.Errors the same way).
func causeOf(e error) (field, msg string) {
	ve, ok := e.(*openapierrors.Validation)
	if !ok {
		return "", "Invalid value: \"\": " + e.Error()
	}
	field = strings.TrimPrefix(ve.Name, ".")
	if field == "." {
		field = ""
	}
	switch ve.Code() {
	case openapierrors.RequiredFailCode:
		return field, "Required value"
	case openapierrors.EnumFailCode:
		var vals []string
		for _, a := range ve.Values {
			if s, ok := a.(string); ok {
				vals = append(vals, fmt.Sprintf("%q", s))
			} else {
				j, _ := json.Marshal(a)
				vals = append(vals, string(j))
			}
		}
		return field, fmt.Sprintf("Unsupported value: %s: supported values: %s", quoteValue(ve.Value), strings.Join(vals, ", "))
	}
	return field, fmt.Sprintf("Invalid value: %s: %s", quoteValue(ve.Value), ve.Error())
}

// quoteValue prints a value as field.Error does: strings quoted.
func quoteValue(v any) string {
	switch t := v.(type) {
	case nil:
		return `""`
	case string:
		return fmt.Sprintf("%q", t)
	}
	return fmt.Sprintf("%v", v)
}
