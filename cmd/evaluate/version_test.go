package main

import (
	"encoding/json"
	"os"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/ome-policy/evaluator/output/about"
	"github.com/ome-policy/evaluator/results"
	"github.com/ome-policy/evaluator/runner"
)

// TestVersion: the command, --version and -o json say the same; the
// versions it states are the ones go.mod, the Makefile and NOTICE pin.
func TestVersion(t *testing.T) {
	text := evaluate(t, time.Minute, "", "version")
	require.Equal(t, 0, text.code, text.stderr)
	short := evaluate(t, time.Minute, "", "--version")
	require.Equal(t, 0, short.code, short.stderr)
	first, _, _ := strings.Cut(text.stdout, "\n")
	require.Equal(t, first+"\n", short.stdout)
	require.Regexp(t, `^evaluate \S+ \(revision \S+\)$`, first)

	asJSON := evaluate(t, time.Minute, "", "version", "-o", "json")
	require.Equal(t, 0, asJSON.code, asJSON.stderr)
	var v results.Version
	require.NoError(t, json.Unmarshal([]byte(asJSON.stdout), &v))
	require.Equal(t, first, about.FirstLine(v))
	for _, row := range about.Rows(v) {
		require.Contains(t, text.stdout, row[1], row[0])
	}

	read := func(rel string) string {
		data, err := os.ReadFile(at(rel))
		require.NoError(t, err)
		return string(data)
	}
	gomod, makefile := read("go.mod"), read("Makefile")
	for _, c := range []struct{ got, pattern string }{
		{v.CELGo, `(?m)^\s*github\.com/google/cel-go (\S+)$`},
		{v.OPA, `(?m)^\s*github\.com/open-policy-agent/opa (\S+)$`},
	} {
		m := regexp.MustCompile(c.pattern).FindStringSubmatch(gomod)
		require.NotNil(t, m, c.pattern)
		require.Equal(t, m[1], c.got)
	}
	for _, c := range []struct{ got, variable string }{
		{v.Gatekeeper, "GATOR_VERSION"},
		{v.Kubernetes, "KUBE_VERSION"},
		{v.Kyverno, "KYVERNO_VERSION"},
	} {
		m := regexp.MustCompile(`(?m)^` + c.variable + `\s*:=\s*(\S+)$`).FindStringSubmatch(makefile)
		require.NotNil(t, m, c.variable)
		require.Equal(t, m[1], c.got, "the Makefile's %s", c.variable)
	}
	// The releases are policies/releases.yaml's, and each but the newest
	// has its CRDs' changes in testdata/ome-crds.
	var listed struct{ Releases []struct{ Name string } }
	require.NoError(t, yaml.Unmarshal([]byte(read("policies/releases.yaml")), &listed))
	require.Len(t, v.OMEReleases, len(listed.Releases))
	for i, r := range listed.Releases {
		require.Equal(t, r.Name, v.OMEReleases[i])
		if i > 0 {
			require.DirExists(t, at("testdata/ome-crds/"+r.Name))
		}
	}
	require.Contains(t, text.stdout, "ome releases      "+v.OMEReleases[0]+" (default), ")
	// NOTICE names the OME commit the catalog and the CRDs were copied
	// at, and the CRDs' README the same.
	copied := regexp.MustCompile(`OME commit ([0-9a-f]{8})`).FindStringSubmatch(read("NOTICE"))
	require.NotNil(t, copied, "NOTICE names no OME commit")
	require.Contains(t, read("testdata/ome-crds/README.md"), "commit "+copied[1])
	require.Contains(t, read("testdata/ome-crds/ome.io_basemodels.yaml"), "name: "+strings.TrimPrefix(v.OMECRDs, "ome.io/")+"\n")

	bad := evaluate(t, time.Minute, "", "version", "-o", "xml")
	require.Equal(t, 2, bad.code)
	require.Contains(t, bad.stderr, "--output")
}

func TestVCSRevision(t *testing.T) {
	for _, c := range []struct {
		name     string
		settings []debug.BuildSetting
		want     string
	}{
		{"clean", []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "false"}}, "abc"},
		{"dirty", []debug.BuildSetting{{Key: "vcs.modified", Value: "true"}, {Key: "vcs.revision", Value: "abc"}}, "abc-dirty"},
		{"no vcs (-buildvcs=false)", []debug.BuildSetting{{Key: "GOOS", Value: "linux"}}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, runner.VCSRevision(c.settings))
		})
	}
	// Stamped values win over the build information.
	version, revision = "v1.2.3", "0123abc"
	t.Cleanup(func() { version, revision = "", "" })
	v := buildVersion()
	require.Equal(t, "evaluate v1.2.3 (revision 0123abc)", about.FirstLine(v))
}
