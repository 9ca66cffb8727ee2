// Package crdschema holds OME objects, as package objects reads them,
// against OME's CRDs of each release, as the API server of that release
// does: it checks an object against its kind's CRD schema (SchemaErrors,
// lint's crd-schema rule), fills in the defaults the CRD gives
// (WithDefaults), and finds the fields that the release's CRD lacks and
// another release's has, which the API server drops (LackedFields,
// Pruned).
//
// It owns the CRD schemas and the lists of lacking fields, embedded from
// its release folders (<release>/<Kind>.json.gz and <release>/lacking.json,
// written from testdata/ome-crds by `make crdschema`).
//
// It imports objects and no other package of the module; objects never
// imports it.
package crdschema
