// Package objects reads what a user gives (YAML and JSON files, folders, a
// model folder's config.json or model_index.json, standard input) into
// checked OME objects, each with the file and line of every field.
//
// It owns decoding (duplicate keys, YAML's number and boolean readings kept
// as written), the recognised kinds and their field types, and the
// positions that every message quotes. It knows no engine and no policy:
// what an object means for matching is decided elsewhere, from the values
// it returns. The check against OME's CRD schemas, their defaults and the
// fields a release's CRDs lack are objects/crdschema's.
//
// It imports no package of the module: it is the ground floor that every
// other reads objects through.
package objects
