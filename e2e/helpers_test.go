package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/ome-policy/evaluator/e2e/cluster"
)

// The environment `make e2e` gives the tests: the running cluster's state
// folder and the repository's root (bin/evaluate is the product under test).
var (
	repo       string
	clusterDir string
	kube       *cluster.Kube
	state      *cluster.State
)

func TestMain(m *testing.M) {
	clusterDir = os.Getenv("OME_E2E_CLUSTER")
	repo = os.Getenv("OME_E2E_REPO")
	if clusterDir == "" || repo == "" {
		fmt.Fprintln(os.Stderr, "e2e: OME_E2E_CLUSTER and OME_E2E_REPO are not set: run the end-to-end tests with `make e2e`, which starts the local cluster")
		os.Exit(1)
	}
	var err error
	kube, state, err = cluster.Connect(clusterDir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// object is one OME object of the repository, with the file it is read from.
type object struct {
	File string // relative to the repository
	Obj  *unstructured.Unstructured
}

func (o object) String() string {
	ns := o.Obj.GetNamespace()
	if ns != "" {
		ns += "/"
	}
	return fmt.Sprintf("%s %s%s (%s)", o.Obj.GetKind(), ns, o.Obj.GetName(), o.File)
}

var omeKinds = map[string]bool{"BaseModel": true, "ClusterBaseModel": true, "ServingRuntime": true, "ClusterServingRuntime": true, "InferenceService": true}

func isOME(u *unstructured.Unstructured) bool {
	return strings.HasPrefix(u.GetAPIVersion(), "ome.io/") && omeKinds[u.GetKind()]
}

// evaluate runs the product's binary and returns its standard output; an
// exit code other than 0 and 1 fails the test.
func evaluate(t *testing.T, args ...string) []byte {
	t.Helper()
	stdout, stderr, code := run(t, args...)
	if code > 1 {
		t.Fatalf("evaluate %s: exit %d\n%s", strings.Join(args, " "), code, stderr)
	}
	return []byte(stdout)
}

// run runs bin/evaluate and returns its outputs and exit code.
func run(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(filepath.Join(repo, "bin", "evaluate"), args...)
	cmd.Dir = repo
	cmd.Env = append(os.Environ(), "KUBECONFIG=") // a cluster only where the flags say
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errOut.String(), code
}

// writeObjects writes objects as one JSON file (a `kind: List` when there
// are several) in dir. JSON keeps every string as it is, where a YAML
// encoder may refuse control characters.
func writeObjects(t *testing.T, dir, name string, objs ...*unstructured.Unstructured) string {
	t.Helper()
	path, err := writeJSON(dir, name, objs)
	if err != nil {
		t.Fatal(err)
	}
	return path
}

func writeJSON(dir, name string, objs []*unstructured.Unstructured) (string, error) {
	var doc any = objs[0].Object
	if len(objs) != 1 {
		items := make([]any, len(objs))
		for i, o := range objs {
			items[i] = o.Object
		}
		doc = map[string]any{"apiVersion": "v1", "kind": "List", "items": items}
	}
	data, err := json.MarshalIndent(doc, "", " ")
	if err != nil {
		return "", err
	}
	data = asciiJSON(data)
	path := filepath.Join(dir, strings.TrimSuffix(name, filepath.Ext(name))+".json")
	return path, os.WriteFile(path, data, 0o644)
}

// asciiJSON escapes DEL and every other character from U+0080 to U+FFFF of
// a JSON text as \uXXXX, so that a YAML reader, which refuses raw control
// characters such as U+0085, reads the same strings. Characters past
// U+FFFF stay as they are: YAML has no surrogate pairs.
func asciiJSON(data []byte) []byte {
	var b bytes.Buffer
	for _, r := range string(data) {
		if r < 0x7f || r > 0xFFFF {
			b.WriteRune(r)
		} else {
			fmt.Fprintf(&b, "\\u%04x", r)
		}
	}
	return b.Bytes()
}

// objectFiles writes each object to a file of its own, so that a command
// given them all treats each alone; index maps a file back to its object.
func objectFiles(t *testing.T, objs []object) (paths []string, index map[string]int) {
	t.Helper()
	dir := t.TempDir()
	index = map[string]int{}
	for i, o := range objs {
		path := writeObjects(t, dir, fmt.Sprintf("%04d.json", i), o.Obj)
		index[path] = i
		paths = append(paths, path)
	}
	return paths, index
}

// lintViolations asks `evaluate gatekeeper violations` what the
// ome-version-lint-errors constraint (severities: [error]) says of each
// object, linted alone as Gatekeeper reviews it: "[rule] field: message",
// sorted; empty when it admits the object.
func lintViolations(t *testing.T, objs []object) [][]string {
	t.Helper()
	return lintViolationsAt(t, "error", objs)
}

// lintViolationsAt is lintViolations for a constraint enforcing severity.
func lintViolationsAt(t *testing.T, severity string, objs []object) [][]string {
	t.Helper()
	paths, index := objectFiles(t, objs)
	args := append([]string{"gatekeeper", "violations", "-o", "json", "--severities", severity}, paths...)
	var res struct {
		Objects []struct {
			File       string
			Violations []string
		}
	}
	mustJSON(t, evaluate(t, args...), &res)
	out := make([][]string, len(objs))
	seen := 0
	for _, r := range res.Objects {
		i, ok := index[r.File]
		if !ok {
			t.Fatalf("evaluate gatekeeper violations: an object of %s, which was not given", r.File)
		}
		out[i] = r.Violations
		seen++
	}
	if seen != len(objs) {
		t.Fatalf("evaluate gatekeeper violations: %d objects for the %d given", seen, len(objs))
	}
	return out
}

// lintErrors runs `evaluate lint -o json` on each object alone and returns,
// per object, its error findings by field (field -> rules).
func lintErrors(t *testing.T, objs []object) []map[string][]string {
	t.Helper()
	paths, index := objectFiles(t, objs)
	args := append([]string{"lint", "-o", "json"}, paths...)
	var res struct {
		Findings []struct{ Rule, Severity, Field, File string }
	}
	mustJSON(t, evaluate(t, args...), &res)
	out := make([]map[string][]string, len(objs))
	for i := range out {
		out[i] = map[string][]string{}
	}
	for _, f := range res.Findings {
		i, ok := index[f.File]
		if !ok {
			t.Fatalf("evaluate lint: a finding in %s, which was not given", f.File)
		}
		if f.Severity == "error" {
			out[i][f.Field] = append(out[i][f.Field], f.Rule)
		}
	}
	return out
}

// refusal is how the API server answered a create: admitted (Code 0), or
// refused with an HTTP code, who refused it and the messages.
type refusal struct {
	Code     int32
	By       string   // "webhook", "kyverno", "policy" (a ValidatingAdmissionPolicy) or "schema"
	Messages []string // without the refuser's preamble
	Fields   []string // the fields a schema refusal names
	Raw      string
}

const (
	webhookPrefix = `admission webhook "validation.gatekeeper.sh" denied the request: `
	// Kyverno's webhook for ValidatingPolicies that refuse (Deny), each
	// failed policy as "Policy NAME failed: MESSAGE", joined with "; ".
	kyvernoPrefix = `admission webhook "vpol.validate.kyverno.svc-fail" denied the request: `
)

// kyvernoFailed is one failed policy in a Kyverno refusal.
var kyvernoFailed = regexp.MustCompile(`(?:^|; )Policy (\S+) failed: `)

// answer classifies the error of a create.
func answer(err error) refusal {
	if err == nil {
		return refusal{}
	}
	var se *apierrors.StatusError
	if !errors.As(err, &se) {
		return refusal{Code: -1, By: "client", Raw: err.Error()}
	}
	st := se.ErrStatus
	r := refusal{Code: st.Code, Raw: st.Message}
	switch {
	case strings.HasPrefix(st.Message, webhookPrefix):
		r.By = "webhook"
		r.Messages = strings.Split(strings.TrimPrefix(st.Message, webhookPrefix), "\n")
	case strings.Contains(st.Message, kyvernoPrefix):
		r.By = "kyverno"
		rest := st.Message[strings.Index(st.Message, kyvernoPrefix)+len(kyvernoPrefix):]
		for _, p := range kyvernoFailed.Split(rest, -1) {
			if p != "" {
				r.Messages = append(r.Messages, p)
			}
		}
	case strings.Contains(st.Message, "ValidatingAdmissionPolicy '") && strings.Contains(st.Message, " denied request: "):
		// "<resource> \"<name>\" is forbidden: ValidatingAdmissionPolicy
		// '<policy>' with binding '<binding>' denied request: <message>"
		r.By = "policy"
		i := strings.Index(st.Message, " denied request: ")
		r.Messages = []string{st.Message[i+len(" denied request: "):]}
	case st.Reason == metav1.StatusReasonInvalid:
		r.By = "schema"
		for _, c := range st.Details.Causes {
			r.Messages = append(r.Messages, c.Field+": "+c.Message)
			r.Fields = append(r.Fields, c.Field)
		}
		sort.Strings(r.Messages)
	default:
		r.By = string(st.Reason)
		r.Messages = []string{st.Message}
	}
	return r
}

// eventually polls f every 100 ms until it returns nil, or fails with its
// last error after timeout.
func eventually(timeout time.Duration, f func() error) error {
	deadline := time.Now().Add(timeout)
	for {
		err := f()
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// ensureNamespaces creates the namespaces of objs that do not exist yet.
func ensureNamespaces(t *testing.T, objs []object) {
	t.Helper()
	seen := map[string]bool{}
	for _, o := range objs {
		ns := o.Obj.GetNamespace()
		if ns == "" || seen[ns] {
			continue
		}
		seen[ns] = true
		nsObj := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns},
		}}
		if _, err := kube.Apply(ctxT(t), nsObj); err != nil {
			t.Fatalf("namespace %s: %v", ns, err)
		}
	}
}

func mustJSON(t *testing.T, data []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%v in %s", err, data)
	}
}

// processPid is the recorded pid of one of the cluster's processes.
func processPid(t *testing.T, name string) int {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(clusterDir, name+".pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// applyWhileTesting applies objs in order and deletes them, in reverse
// order, when the test ends.
func applyWhileTesting(t *testing.T, objs []*unstructured.Unstructured) {
	t.Helper()
	for _, o := range objs {
		if _, err := kube.Apply(ctxT(t), o); err != nil {
			t.Fatalf("applying %s %s: %v", o.GetKind(), o.GetName(), err)
		}
	}
	t.Cleanup(func() {
		for i := len(objs) - 1; i >= 0; i-- {
			if err := kube.Delete(ctxT(t), objs[i]); err != nil {
				t.Error(err)
			}
		}
	})
}
