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
		{ID: "unread-field", Severity: "warning", Releases: []string{"v0.1.4", "v0.1.3"}, Description: "a field the release does not read"},
	}))
	require.Equal(t, `RULE             SEVERITY  OME             FINDS
invalid-version  error     all             a version that does not parse
name-case        warning   all             names that differ only in case
unread-field     warning   v0.1.4, v0.1.3  a field the release does not read
input-error      error     all             an input that cannot be read at all (YAML that does not parse, a template, an object without a name); never turned off
`, b.String())
}
