package main

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/require"

	"github.com/ome-policy/evaluator/policies/policyset"
	"github.com/ome-policy/evaluator/rules"
)

// A team's rules that read OME's decisions set the collector of a command
// that holds what it reads (decisionsGCPercent), for the run only, when
// CEL decides; other rules, another engine, a streaming command and GOGC
// leave it as it was.
func TestRulesOverDecisionsSetTheCollector(t *testing.T) {
	plain := filepath.Join(t.TempDir(), "plain.rego")
	require.NoError(t, os.WriteFile(plain, []byte("package plain\n\ndeny contains \"x\" if input.kind == \"none\"\n"), 0o644))
	set, err := policyset.Embedded()
	require.NoError(t, err)
	root := newRoot(&globalOptions{stdin: strings.NewReader("")}, &bytes.Buffer{}, &bytes.Buffer{})
	command := func(name string) *cobra.Command {
		c, _, err := root.Find([]string{name})
		require.NoError(t, err)
		return c
	}
	for _, tc := range []struct {
		name, command, engine, rules, gogc string
		want                               int
	}{
		{"lint, rules over decisions", "lint", "cel", companyRules, "", decisionsGCPercent},
		{"report, rules over decisions", "report", "cel", companyRules, "", decisionsGCPercent},
		{"audit, rules over decisions", "audit", "cel", companyRules, "", decisionsGCPercent},
		{"lint, rules over decisions, on Rego", "lint", "rego", companyRules, "", 100},
		{"lint, on both engines", "lint", "both", companyRules, "", 100},
		{"lint, rules over the object alone", "lint", "cel", plain, "", 100},
		{"select streams", "select", "cel", companyRules, "", streamingGCPercent},
		{"GOGC decides", "lint", "cel", companyRules, "80", streamingGCPercent},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.gogc != "" {
				t.Setenv("GOGC", tc.gogc)
			}
			before := debug.SetGCPercent(streamingGCPercent)
			defer debug.SetGCPercent(before)
			cmd := command(tc.command)
			restore := memoryFor(cmd)
			_, team, err := teamRules(cmd, tc.engine, set, &ruleOptions{paths: []string{tc.rules}, timeout: rules.DefaultTimeout, memory: "1Gi"})
			require.NoError(t, err)
			require.Equal(t, tc.rules == companyRules, team.ReadsDecisions())
			require.Equal(t, tc.want, gcPercent())
			restore()
			require.Equal(t, streamingGCPercent, gcPercent(), "after the run")
		})
	}
}

// gcPercent is the collector's GOGC, read without changing it.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}
