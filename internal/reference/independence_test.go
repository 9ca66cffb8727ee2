package reference_test

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// The reference is the differential tests' oracle only while it shares no
// code with the product: the packages reference and oracle may depend on
// nothing of the module but themselves and the engines' answer type (and
// what it needs to name objects and to check them against OME's CRDs,
// which holds no meaning of a version or a size), never on builtins, whose
// meaning of versions and sizes both engines use.
func TestReferenceSharesNoCodeWithTheProduct(t *testing.T) {
	const module = "github.com/ome-policy/evaluator/"
	allowed := map[string]bool{
		"internal/reference":        true,
		"internal/reference/oracle": true,
		"engine/answer":             true,
		"objects":                   true,
		"objects/crdschema":         true,
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to list the packages: %v", err)
	}
	for _, pkg := range []string{".", "./oracle"} {
		cmd := exec.Command(gobin, "list", "-deps", "-f", "{{.ImportPath}}", pkg)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, stderr.String())
		}
		for _, dep := range strings.Fields(string(out)) {
			rel, ok := strings.CutPrefix(dep, module)
			if !ok || allowed[rel] {
				continue
			}
			if rel == "builtins" || strings.HasPrefix(rel, "builtins/") {
				t.Errorf("%s depends on %s: the reference must state the meaning of versions and sizes itself, not share the product's", pkg, dep)
				continue
			}
			t.Errorf("%s depends on %s, which is the product's: the reference must share no code with what it checks", pkg, dep)
		}
	}
}
