package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
	"k8s.io/kube-openapi/pkg/validation/validate"
)

// sarifValidator checks a SARIF log against testdata/sarif's schema.
func sarifValidator(t *testing.T) *validate.SchemaValidator {
	t.Helper()
	b, err := os.ReadFile(at("testdata/sarif/sarif-2.1.0-subset.json"))
	require.NoError(t, err)
	var schema spec.Schema
	require.NoError(t, json.Unmarshal(b, &schema))
	return validate.NewSchemaValidator(&schema, nil, "", strfmt.Default)
}

// requireDocument fails unless out is a whole document of the format:
// JSON or YAML that decodes to an object, a SARIF log its schema accepts,
// JUnit XML, GitHub workflow commands ending in a summary line, or diff's
// markdown comment.
func requireDocument(t *testing.T, format, out string, sarif *validate.SchemaValidator) {
	t.Helper()
	require.NotEmpty(t, out, "-o %s wrote nothing", format)
	switch format {
	case "json", "sarif":
		var doc map[string]any
		dec := json.NewDecoder(strings.NewReader(out))
		require.NoError(t, dec.Decode(&doc), out)
		require.False(t, dec.More(), "more than one JSON document:\n%s", out)
		if format == "sarif" {
			res := sarif.Validate(doc)
			require.True(t, res.IsValid(), "the SARIF log is not valid: %v\n%s", res.Errors, out)
		}
	case "yaml":
		var doc map[string]any
		require.NoError(t, yaml.Unmarshal([]byte(out), &doc), out)
		require.NotEmpty(t, doc, out)
	case "junit":
		var doc struct {
			XMLName xml.Name `xml:"testsuites"`
			Suites  []struct {
				Name string `xml:"name,attr"`
			} `xml:"testsuite"`
		}
		require.NoError(t, xml.NewDecoder(bytes.NewReader([]byte(out))).Decode(&doc), out)
		require.Len(t, doc.Suites, 1, out)
	case "github":
		last := lastLine(out)
		require.False(t, strings.HasPrefix(last, "::"), "no summary line:\n%s", out)
	case "markdown":
		require.True(t, strings.HasPrefix(out, "<!-- evaluate diff -->\n"), out)
	default:
		t.Fatalf("no check for -o %s", format)
	}
}

// TestMachineOutputsAreDocuments runs each command with each
// machine-readable format on inputs that give no result (an empty folder,
// a file that cannot be read, a folder of no test), and requires a whole
// document on standard output every time, with the exit code and the
// notice on standard error as they were.
func TestMachineOutputsAreDocuments(t *testing.T) {
	empty := t.TempDir()
	empty2 := t.TempDir()
	unreadable := bad("invalid-yaml.yaml")
	sarif := sarifValidator(t)
	type run struct {
		args    []string
		formats []string
		code    int
		stderr  string
	}
	notice := "notice: no OME objects in "
	runs := []run{
		{args: []string{"lint", empty}, formats: []string{"json", "yaml", "sarif", "junit", "github"}, stderr: notice + empty},
		{args: []string{"lint", "--fail-on-empty", empty}, formats: []string{"json", "sarif"}, code: 2, stderr: "(--fail-on-empty)"},
		{args: []string{"match", empty}, formats: []string{"json", "yaml", "github"}, stderr: notice + empty},
		{args: []string{"match", "-r", exRuntimes, "--fail-on-empty"}, formats: []string{"json", "github"}, code: 2, stderr: "no models in"},
		{args: []string{"match", unreadable}, formats: []string{"json", "yaml", "github"}, code: 2, stderr: unreadable},
		{args: []string{"select", empty}, formats: []string{"json", "yaml"}, stderr: notice + empty},
		{args: []string{"select", unreadable}, formats: []string{"json", "yaml"}, code: 2, stderr: unreadable},
		{args: []string{"explain", empty}, formats: []string{"json", "yaml"}, code: 2, stderr: "nothing to explain"},
		{args: []string{"diff", empty, empty2}, formats: []string{"json", "markdown", "github"}, stderr: notice + empty},
		{args: []string{"diff", "--to-ome-version", "v1.2.2", "--ome-version", "v0.1.5", empty}, formats: []string{"json", "markdown", "github"}, stderr: notice + empty},
		{args: []string{"test", empty}, formats: []string{"json", "yaml", "sarif", "junit", "github"}, code: 2, stderr: "no case files"},
		{args: []string{"gatekeeper", "violations", empty}, formats: []string{"json"}},
	}
	for _, r := range runs {
		for _, format := range r.formats {
			args := append(append([]string{}, r.args...), "-o", format)
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				got := evaluate(t, time.Minute, "", args...)
				require.Equal(t, r.code, got.code, got.stderr)
				require.Contains(t, got.stderr, r.stderr)
				requireDocument(t, format, got.stdout, sarif)
				if strings.Contains(r.stderr, unreadable) && format != "github" {
					require.Contains(t, got.stdout, "invalid-yaml.yaml", "the document carries the input's problem")
				}
			})
		}
	}
}

// TestSARIFIsValid validates SARIF logs with results against the schema:
// lint's findings and an input error, and test's failing cases.
func TestSARIFIsValid(t *testing.T) {
	sarif := sarifValidator(t)
	for _, args := range [][]string{
		{"lint", "-o", "sarif", at("testdata/lint/bad"), bad("invalid-yaml.yaml")},
		{"test", "-o", "sarif", bad("failing-case.yaml")},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			got := evaluate(t, time.Minute, "", args...)
			require.NotEqual(t, 0, got.code)
			require.Contains(t, got.stdout, `"results": [`)
			require.NotContains(t, got.stdout, `"results": []`)
			requireDocument(t, "sarif", got.stdout, sarif)
		})
	}
}
