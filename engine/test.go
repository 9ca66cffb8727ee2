package engine

import (
	"context"
	"time"

	"github.com/ome-policy/evaluator/engine/cel"
	"github.com/ome-policy/evaluator/engine/rego"
	"github.com/ome-policy/evaluator/policies/policyset"
)

// The policies' own tests, through the engine API: a CEL policy case runs
// one CEL policy on a given input (PolicyTester); Rego unit tests (the
// test_ rules of *_test.rego files) run with OPA's test runner and the
// builtins registered (RunRegoTests).

// PolicyTester evaluates one CEL policy on inputs given directly.
type PolicyTester = cel.PolicyTester

// NewPolicyTester compiles the CEL policies of set.
func NewPolicyTester(set *policyset.Set) (*PolicyTester, error) { return cel.NewPolicyTester(set) }

// RegoTestResult is one Rego unit test and its outcome.
type RegoTestResult = rego.TestResult

// RunRegoTests runs the test_ rules of the Rego test files (path ->
// source) against the Rego policies of set, each within timeout, all of
// them until ctx ends, in file, then line order.
func RunRegoTests(ctx context.Context, timeout time.Duration, set *policyset.Set, files map[string]string) ([]RegoTestResult, error) {
	return rego.RunTests(ctx, timeout, set, files)
}
