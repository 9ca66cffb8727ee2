package main

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Shell completion offers the values of the flags that take one of a
// list: what the shell's completion script gets from `evaluate __complete`.
func TestCompletionOffersFlagValues(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"lint", "--engine", ""}, []string{"cel", "rego", "both"}},
		{[]string{"select", "--ome-version", ""}, []string{"v1.2.2", "v0.1.5", "v0.1.4"}},
		{[]string{"match", "-o", ""}, []string{"text", "json", "summary"}},
		{[]string{"diff", "--fail-on", ""}, []string{"regressions", "changes", "never"}},
		{[]string{"match", "--only", ""}, []string{"compatible", "incompatible"}},
		{[]string{"lint", "--disable", ""}, []string{"invalid-version\t", "duplicate-name\t"}},
		{[]string{"lint", "--enable-only", ""}, []string{"crd-schema\t"}},
		{[]string{"gatekeeper", "violations", "--severities", ""}, []string{"error", "warning", "info"}},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			r := evaluate(t, 30*time.Second, "", append([]string{"__complete"}, tt.args...)...)
			require.Equal(t, 0, r.code, r.stderr)
			lines := strings.Split(r.stdout, "\n")
			require.Equal(t, ":4", lines[len(lines)-2], "no file names are offered: %s", r.stdout)
			for _, w := range tt.want {
				require.Contains(t, "\n"+r.stdout, "\n"+w, "%s offers %q", tt.args, w)
			}
		})
	}
}
