// Package about writes what evaluate says of itself: its version and the
// versions it follows (evaluate version), and the policies and builtins it
// runs (evaluate policies). It imports the policy sources, the builtins'
// declarations and results (the Version it writes), and none of the other
// writers.
package about
