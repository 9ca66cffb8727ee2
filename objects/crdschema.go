package objects

import (
	"bytes"
	"compress/gzip"
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"

	openapierrors "k8s.io/kube-openapi/pkg/validation/errors"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
	"k8s.io/kube-openapi/pkg/validation/validate"
)

// The CRD schemas are the openAPIV3Schema of OME's CRDs (testdata/ome-crds,
// embedded as crdschema/<Kind>.json.gz by `make crdschema`), checked with the
// validator the API server uses for CRDs (kube-openapi's), so that a file can
// be told what the API server would refuse before any admission policy sees
// it. Lint reports these as its crd-schema rule.

//go:embed crdschema/*.json.gz
var crdSchemaFiles embed.FS

var crdValidators sync.Map // kind -> func() (*validate.SchemaValidator, error)

// crdValidator compiles the kind's schema once, on first use.
func crdValidator(kind string) (*validate.SchemaValidator, error) {
	f, _ := crdValidators.LoadOrStore(kind, sync.OnceValues(func() (*validate.SchemaValidator, error) {
		gz, err := crdSchemaFiles.ReadFile("crdschema/" + kind + ".json.gz")
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
		return validate.NewSchemaValidator(&s, nil, "", strfmt.Default), nil
	}))
	return f.(func() (*validate.SchemaValidator, error))()
}

// SchemaError is one cause the API server gives for refusing an object:
// the field, and the message in its words ("Required value").
type SchemaError struct {
	Field, Message string
}

// SchemaErrors validates an object read from a document against its kind's
// CRD schema, as the API server does on create, and words each cause as the
// API server does. Models made from a folder are not documents and have
// none; neither have kinds without a CRD. The errors are in field order.
func SchemaErrors(o *Object) ([]SchemaError, error) {
	if o.FromFolder {
		return nil, nil
	}
	v, err := crdValidator(o.Kind)
	if v == nil || err != nil {
		return nil, err
	}
	res := v.Validate(o.Value)
	if res.IsValid() {
		return nil, nil
	}
	var out []SchemaError
	for _, e := range res.Errors {
		field, msg := causeOf(e)
		out = append(out, SchemaError{Field: field, Message: msg})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Field < out[j].Field })
	return out, nil
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
