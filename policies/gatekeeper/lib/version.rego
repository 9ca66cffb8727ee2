# The ome.version.* Go builtins, in plain Rego, for Gatekeeper.
#
# Gatekeeper evaluates templates with its own OPA, which has none of this
# project's Go builtins. `evaluate gatekeeper` puts this module in every
# template's libs and rewrites each call ome.version.f(...) of the policies
# into data.lib.ome.version.f(...). Every function here gives what the Go
# builtin of the same name gives (builtins/version.go, builtins/regolib/regolib.go) on
# every string: policies/gatekeeper/equivalence_test.go checks it on the
# version strings of testdata/ and the samples, on a generated corpus of
# valid, near-valid and hostile strings, and under `go test -fuzz`.
#
# As with the builtins, a string that does not parse makes every function
# but is_valid and problem undefined; is_valid is false for anything that is
# not a string, and problem is undefined for it.
package lib.ome.version

# Each function delegates to lib.ome.version_parser. A rule named "equal"
# would take the place of the == operator in every module of its package,
# so the package that defines it holds nothing else. (Gatekeeper moves
# library packages and rewrites the imports that name them, but not a
# data.lib reference inside a rule: library code refers to other library
# packages through imports only.)

import data.lib.ome.version_parser as parser

is_valid(x) := parser.is_valid(x)

problem(s) := parser.problem(s)

parse(s) := parser.parse(s)

has_suffix(s) := parser.has_suffix(s)

parts(s) := parser.parts(s)

has_v(s) := parser.has_v(s)

equal(a, b) := parser.equal_versions(a, b)

compare(a, b) := parser.compare(a, b)

