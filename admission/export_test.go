package admission

import (
	"testing"

	"github.com/google/cel-go/cel"
)

// KyvernoCEL is kyvernoCEL, for the tests of package admission_test.
func KyvernoCEL(t testing.TB, vars ...cel.EnvOption) *cel.Env { return kyvernoCEL(t, vars...) }
