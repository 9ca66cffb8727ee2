// Package objects reads what a user gives (YAML and JSON files, folders, a
// model folder's config.json or model_index.json, standard input) into
// checked OME objects, each with the file and line of every field.
//
// It owns decoding (duplicate keys, YAML's number and boolean readings kept
// as written), the recognised kinds and their field types, the positions
// that every message quotes, and the check against OME's CRD schemas. It
// knows no engine and no policy: what an object means for matching is
// decided elsewhere, from the values it returns.
package objects
