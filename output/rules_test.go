package output

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ome-policy/evaluator/engine"
)

// The rules as a table, input-error last.
func TestWriteRules(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, WriteRules(&b, []engine.Rule{
		{ID: "invalid-version", Severity: "error", Description: "a version that does not parse"},
		{ID: "name-case", Severity: "warning", Description: "names that differ only in case"},
	}))
	require.Equal(t, `RULE             SEVERITY  FINDS
invalid-version  error     a version that does not parse
name-case        warning   names that differ only in case
input-error      error     an input that cannot be read at all (YAML that does not parse, a template, an object without a name); never turned off
`, b.String())
}
