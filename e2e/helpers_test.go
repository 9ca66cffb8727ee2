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
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

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
	cmd := exec.Command(filepath.Join(repo, "bin", "evaluate"), args...)
	cmd.Dir = repo
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) {
		t.Fatalf("evaluate %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.Bytes()
}

// writeObjects writes objects as one multi-document YAML file in dir.
func writeObjects(t *testing.T, dir, name string, objs ...*unstructured.Unstructured) string {
	t.Helper()
	var buf bytes.Buffer
	for _, o := range objs {
		data, err := yaml.Marshal(o.Object)
		if err != nil {
			t.Fatal(err)
		}
		buf.WriteString("---\n")
		buf.Write(data)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// lintFinding is one finding of `evaluate lint -o json`.
type lintFinding struct {
	Rule, Severity, Field, Message string
}

// lintErrors runs `evaluate lint` on each object alone (so that only the
// single-object rules, which OMEVersionLint enforces, apply) and returns
// each object's error findings as the template words them:
// "[rule] field: message", sorted.
func lintErrors(t *testing.T, objs []object) [][]string {
	t.Helper()
	dir := t.TempDir()
	out := make([][]string, len(objs))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	var mu sync.Mutex
	var failed error
	for i, o := range objs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			path := writeObjects(t, dir, fmt.Sprintf("%04d.yaml", i), o.Obj)
			cmd := exec.Command(filepath.Join(repo, "bin", "evaluate"), "lint", "-o", "json", path)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			var ee *exec.ExitError
			if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) {
				mu.Lock()
				failed = fmt.Errorf("evaluate lint on %s: %v\n%s", o, err, stderr.String())
				mu.Unlock()
				return
			}
			var res struct{ Findings []lintFinding }
			if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
				mu.Lock()
				failed = fmt.Errorf("evaluate lint on %s: %v", o, err)
				mu.Unlock()
				return
			}
			var msgs []string
			for _, f := range res.Findings {
				if f.Severity == "error" {
					msgs = append(msgs, fmt.Sprintf("[%s] %s: %s", f.Rule, f.Field, f.Message))
				}
			}
			sort.Strings(msgs)
			out[i] = msgs
		}()
	}
	wg.Wait()
	if failed != nil {
		t.Fatal(failed)
	}
	return out
}

// refusal is how the API server answered a create: admitted (Code 0), or
// refused with an HTTP code, who refused it and the messages.
type refusal struct {
	Code     int32
	By       string   // "webhook", "policy" (a ValidatingAdmissionPolicy) or "schema"
	Messages []string // without the refuser's preamble
	Raw      string
}

const (
	webhookPrefix = `admission webhook "validation.gatekeeper.sh" denied the request: `
)

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
	case strings.HasPrefix(st.Message, "ValidatingAdmissionPolicy "):
		r.By = "policy"
		if i := strings.Index(st.Message, " denied request: "); i >= 0 {
			r.Messages = []string{st.Message[i+len(" denied request: "):]}
		}
	case st.Reason == metav1.StatusReasonInvalid:
		r.By = "schema"
		for _, c := range st.Details.Causes {
			r.Messages = append(r.Messages, c.Field+": "+c.Message)
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
