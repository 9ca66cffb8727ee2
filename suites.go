// Package evaluator carries in the evaluate binary the project's own
// inputs of the Gatekeeper bundle's gator suites, so that `evaluate
// gatekeeper` makes the same bundle, for any OME release it states, from a
// clone or from an empty folder: the selection case files of
// OMERuntimeSelection's suite and the models and runtimes of
// OMEVersionLint's. The files stay where the project's tests read them
// (testdata/); this package, at the module's root, is the one folder that
// holds them all.
package evaluator

import "embed"

// SuiteCaseFiles are the selection case files of OMERuntimeSelection's
// suite, in SuiteInputs: together they cover every step and message of
// OME's webhook, with the cases of Gatekeeper's own concerns and of
// namespaces, and what each release decides otherwise (release-*.yaml).
// A bundle's suite holds the cases that hold for its release.
var SuiteCaseFiles = []string{
	"testdata/cases/spec-selection.yaml",
	"testdata/cases/webhook-checks.yaml",
	"testdata/cases/gatekeeper-selection.yaml",
	"testdata/cases/namespaces.yaml",
	"testdata/cases/release-v0.1.4.yaml",
	"testdata/cases/release-v1.2.2.yaml",
}

// SuiteLintObjects are the files and folders (read recursively, *.yaml,
// *.yml and *.json in lexical order) of the models and runtimes of
// OMEVersionLint's suite, in SuiteInputs.
var SuiteLintObjects = []string{
	"testdata/lint/bad",
	"testdata/lint/clean",
	"testdata/lint/v0.1.4",
	"testdata/gatekeeper/lint-objects.yaml",
}

// SuiteInputs holds SuiteCaseFiles and SuiteLintObjects, by the same
// paths.
//
//go:embed testdata/cases/spec-selection.yaml testdata/cases/webhook-checks.yaml testdata/cases/gatekeeper-selection.yaml testdata/cases/namespaces.yaml
//go:embed testdata/cases/release-v0.1.4.yaml testdata/cases/release-v1.2.2.yaml
//go:embed testdata/lint/bad testdata/lint/clean testdata/lint/v0.1.4 testdata/gatekeeper/lint-objects.yaml
var SuiteInputs embed.FS
