// Package about writes what evaluate says of itself: its version and the
// versions it follows (evaluate version), and the policies and builtins it
// runs (evaluate policies). It imports the policy sources and the builtins'
// declarations, and nothing of the engines or of the other writers.
package about
