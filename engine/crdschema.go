package engine

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

// RuleCRDSchema is the lint rule for what OME's CRDs refuse. Unlike the
// other rules it is no policy: it is the check the API server itself makes
// before any admission policy sees an object, with the validator the API
// server uses for CRDs (kube-openapi's), on the openAPIV3Schema of OME's
// CRDs (testdata/ome-crds, embedded as crdschema/<Kind>.json.gz by `make
// crdschema`). Its messages are the API server's causes ("Required value",
// "Invalid value: ...").
const RuleCRDSchema = "crd-schema"

//go:embed crdschema/*.json.gz
var crdSchemaFiles embed.FS

// crdSchemaSuffix follows the API server's words in a crd-schema finding.
const crdSchemaSuffix = ". OME's CRD refuses the object: the API server will not take it"

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

// crdSchemaFindings validates an object read from a document against its
// kind's CRD schema, as the API server does on create, and words each
// cause as the API server does ("spec.storage: Required value").
func crdSchemaFindings(o *Object) ([]rawFinding, error) {
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
	var out []rawFinding
	for _, e := range res.Errors {
		field, msg := causeOf(e)
		out = append(out, rawFinding{index: -1, rule: RuleCRDSchema, severity: SeverityError, field: field,
			message: msg + crdSchemaSuffix})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].field < out[j].field })
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
