package main

import (
	"os"
	"path/filepath"
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
		// A team's ids beside OME's, when the command line gives --rules.
		{[]string{"lint", "--rules", companyRules, "--disable", ""}, []string{"unknown-operator\t", "company.transformers_floor\t", "company-autoselect-pins-framework\t"}},
		{[]string{"diff", "--to-ome-version", ""}, []string{"v1.2.2", "v0.1.5", "v0.1.4"}},
		{[]string{"test", "--ome-version", ""}, []string{"v1.2.2", "v0.1.4", "all"}},
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

// --cpuprofile writes a profile that go tool pprof reads (gzip'd protocol
// buffers), whatever the command; a file it cannot create is bad usage.
func TestCPUProfile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "cpu.pprof")
	r := evaluate(t, time.Minute, "", "--cpuprofile", file, "match", "-m", exModels, "-r", exRuntimes)
	require.Equal(t, 0, r.code, r.stderr)
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	require.True(t, len(data) > 2 && data[0] == 0x1f && data[1] == 0x8b, "not a gzip'd profile: %d bytes", len(data))

	bad := evaluate(t, time.Minute, "", "--cpuprofile", filepath.Join(t.TempDir(), "no", "such", "cpu.pprof"), "version")
	require.Equal(t, 2, bad.code)
	require.Contains(t, bad.stderr, "evaluate: --cpuprofile: open ")
}
