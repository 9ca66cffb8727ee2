// Package archtest holds the test of the module's layout: the floors of
// docs/architecture.md, which it reads, held against the imports that
// `go list` gives. It has no code of its own.
package archtest
