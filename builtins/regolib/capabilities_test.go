package regolib_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/types"
	"github.com/stretchr/testify/require"

	"github.com/ome-policy/evaluator/builtins/regolib"
)

var update = flag.Bool("update", false, "rewrite golden files")

// capabilitiesFile is the OPA capabilities file the policies are checked
// against (opa check --capabilities policies/capabilities.json).
const capabilitiesFile = "../../policies/capabilities.json"

// marshalCapabilities writes caps as the capabilities file holds it: JSON
// indented by two spaces, with a trailing newline.
func marshalCapabilities(t testing.TB, caps *ast.Capabilities) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	require.NoError(t, enc.Encode(caps))
	return buf.Bytes()
}

func TestCapabilitiesFileIsCurrent(t *testing.T) {
	want, err := regolib.CapabilitiesJSON()
	require.NoError(t, err)
	again, err := regolib.CapabilitiesJSON()
	require.NoError(t, err)
	require.Equal(t, want, again, "CapabilitiesJSON() is deterministic")

	if *update {
		require.NoError(t, os.WriteFile(capabilitiesFile, want, 0o644))
	}
	got, err := os.ReadFile(capabilitiesFile)
	require.NoError(t, err)
	require.Equal(t, string(want), string(got),
		"%s is out of date: run make capabilities", capabilitiesFile)
}

func TestCapabilitiesHasEveryBuiltin(t *testing.T) {
	caps := regolib.Capabilities()
	byName := map[string]*ast.Builtin{}
	for _, b := range caps.Builtins {
		require.Nil(t, byName[b.Name], "duplicate builtin %s", b.Name)
		byName[b.Name] = b
	}
	require.NotNil(t, byName["count"], "the stock builtins are kept")
	for _, b := range regolib.Builtins() {
		require.Contains(t, byName, b.Decl.Name)
	}
	// Capabilities() does not change OPA's own builtin list.
	require.Len(t, ast.CapabilitiesForThisVersion().Builtins, len(caps.Builtins)-len(regolib.Builtins()))
}

func loadCapabilities(t testing.TB) *ast.Capabilities {
	t.Helper()
	caps, err := ast.LoadCapabilitiesFile(capabilitiesFile)
	require.NoError(t, err)
	return caps
}

func compileWith(caps *ast.Capabilities, module string) error {
	_, err := ast.CompileModulesWithOpt(map[string]string{"t.rego": module}, ast.CompileOpts{
		ParserOptions: ast.ParserOptions{Capabilities: caps, RegoVersion: ast.RegoV1},
	})
	return err
}

// TestCapabilitiesFileTypeChecks proves that stock OPA tooling, given only
// the capabilities file, type-checks calls to the ome builtins.
func TestCapabilitiesFileTypeChecks(t *testing.T) {
	caps := loadCapabilities(t)

	const ok = `package t

x := ome.version.compare("1.0.0", "2.0.0")
y if ome.version.is_valid(input.v)
z := ome.size.compare("7B", "8B") + ome.version.parts("1.0")
`
	require.NoError(t, compileWith(caps, ok))

	// Without the file, the same module does not compile.
	err := compileWith(ast.CapabilitiesForThisVersion(), ok)
	require.Error(t, err)
	require.Contains(t, err.Error(), "undefined function ome.version.compare")

	for name, tc := range map[string]struct{ module, msg string }{
		"too few arguments": {`package t
x := ome.version.compare("1.0.0")`, "arity mismatch"},
		"too many arguments": {`package t
x := ome.version.parse("1.0.0", "2.0.0")`, "arity mismatch"},
		"wrong argument type": {`package t
x := ome.version.compare(1, "2.0.0")`, "invalid argument(s)"},
		"result used as the wrong type": {`package t
x := concat(",", ome.version.compare("1", "2"))`, "invalid argument(s)"},
		"unknown builtin": {`package t
x := ome.version.newer("1", "2")`, "undefined function ome.version.newer"},
	} {
		t.Run(name, func(t *testing.T) {
			err := compileWith(caps, tc.module)
			require.Error(t, err)
			require.Contains(t, err.Error(), "rego_type_error")
			require.Contains(t, err.Error(), tc.msg)
		})
	}
}

// TestCapabilitiesFileRoundTrip checks that the declarations read back from
// the file are those of the Go code.
func TestCapabilitiesFileRoundTrip(t *testing.T) {
	caps := loadCapabilities(t)
	byName := map[string]*ast.Builtin{}
	for _, b := range caps.Builtins {
		byName[b.Name] = b
	}
	for _, b := range regolib.Builtins() {
		got := byName[b.Decl.Name]
		require.NotNil(t, got, b.Decl.Name)
		require.Equal(t, b.Decl.Description, got.Description)
		require.Equal(t, []string{"ome"}, got.Categories)
		// OPA's decoder drops argument names and descriptions (they are in
		// the file, for documentation tools); the types must agree.
		require.Zero(t, types.Compare(b.Decl.Decl, got.Decl), "%s: %v vs %v", b.Decl.Name, b.Decl.Decl, got.Decl)
	}
}
