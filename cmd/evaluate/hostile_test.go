package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Hostile input and hostile rules, through the command: what a pull
// request may bring to a CI run, objects and (with --rules) rules. Each
// is bounded in reach, time and memory, and said: exit 2, naming what.
// A run that could grow without bound runs in a process of its own
// (evaluateProcess), killed past a time and capped in memory, so that
// code that does not bound it fails the test, not the machine.

// runAsEvaluate, set in a child's environment, has the test binary run
// evaluate with its arguments (runAsChild, from TestMain), and write its
// peak memory to the file the variable names.
const runAsEvaluate = "EVALUATE_TEST_RUN_AS_EVALUATE"

func runAsChild() {
	peakFile := os.Getenv(runAsEvaluate)
	if peakFile == "" {
		return
	}
	streaming()
	code := run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	// The process's own high-water mark (the rusage of a child started
	// from a large test binary counts the parent's pages too).
	if status, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, l := range strings.Split(string(status), "\n") {
			if kb, ok := strings.CutPrefix(l, "VmHWM:"); ok {
				_ = os.WriteFile(peakFile, []byte(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(kb), "kB"))), 0o644)
			}
		}
	}
	os.Exit(code)
}

// processResult is what a run of evaluate in a process of its own did.
type processResult struct {
	code           int
	stdout, stderr string
	elapsed        time.Duration
	peakMB         int64 // its peak resident memory
	killed         bool  // past its time, killed
}

// evaluateProcess runs evaluate with args in a process of its own, in
// dir, bounded whatever evaluate does: killed past timeout, and refused
// any address space past capMB (ulimit -v), so that a run that would grow
// without bound dies at the cap. stdin, when not nil, is its standard
// input.
func evaluateProcess(t *testing.T, timeout time.Duration, capMB int, stdin io.Reader, args ...string) processResult {
	t.Helper()
	self, err := os.Executable()
	require.NoError(t, err)
	sh := `ulimit -v "$1" && shift && exec "$@"`
	cmd := exec.Command("sh", append([]string{"-c", sh, "sh", fmt.Sprint(capMB << 10), self}, args...)...)
	peakFile := filepath.Join(t.TempDir(), "peak")
	cmd.Env = append(os.Environ(), runAsEvaluate+"="+peakFile)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr, cmd.Stdin = &out, &errOut, stdin
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	start := time.Now()
	go func() { done <- cmd.Wait() }()
	r := processResult{}
	select {
	case err = <-done:
	case <-time.After(timeout):
		_ = cmd.Process.Kill()
		err = <-done
		r.killed = true
	}
	r.elapsed = time.Since(start)
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	default:
		t.Fatalf("evaluate %s: %v", strings.Join(args, " "), err)
	}
	if kb, err := os.ReadFile(peakFile); err == nil {
		n, _ := strconv.ParseInt(string(kb), 10, 64)
		r.peakMB = n >> 10
	}
	r.stdout, r.stderr = out.String(), errOut.String()
	t.Logf("evaluate %s: exit %d in %s, peak %d MB", strings.Join(args, " "), r.code, r.elapsed.Round(time.Millisecond), r.peakMB)
	return r
}

// requireBounded holds r to exit 2 within its time, under peakMB, with
// every one of want in its output.
func requireBounded(t *testing.T, r processResult, peakMB int64, want ...string) {
	t.Helper()
	require.False(t, r.killed, "killed past its time: %s", r.stderr)
	require.Equal(t, exitBadInput, r.code, "stdout:\n%s\nstderr:\n%s", tail(r.stdout), tail(r.stderr))
	for _, w := range want {
		require.Contains(t, r.stdout+r.stderr, w)
	}
	require.Less(t, r.peakMB, peakMB, "peak memory")
}

func tail(s string) string {
	if len(s) > 4000 {
		return "..." + s[len(s)-4000:]
	}
	return s
}

// countingListener is a local HTTP server that answers {} and counts the
// requests it hears, closed at the test's end.
func countingListener(t *testing.T) (*httptest.Server, *atomic.Int64) {
	heard := new(atomic.Int64)
	listener := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		heard.Add(1)
		fmt.Fprint(w, "{}")
	}))
	t.Cleanup(listener.Close)
	return listener, heard
}

// writeRules writes files (name -> text) into a new folder, which it
// gives.
func writeRules(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	return dir
}

// A rule reaches neither the network nor the host, on any command: a
// call of http.send, net.lookup_ip_addr or a builtin whose answer changes
// from run to run is refused as the rules are read, with its file, line
// and builtin, before anything runs (the listener hears nothing).
func TestRulesReachNoNetwork(t *testing.T) {
	listener, heard := countingListener(t)
	send := writeRules(t, map[string]string{"send.rego": `package evil

deny contains msg if {
	resp := http.send({"method": "POST", "url": "` + listener.URL + `", "body": input})
	msg := sprintf("%v", [resp.status_code])
}
`, "send_test.rego": "package evil_test\n\ntest_nothing if true\n"})
	out := t.TempDir()
	for _, args := range [][]string{
		{"lint", exRuntimes},
		{"select", at("testdata/rules/prod.yaml")},
		{"report", "-m", exModels, "-r", exRuntimes, "--out", filepath.Join(out, "r.html")},
		{"diff", exRuntimes, exRuntimes},
		{"test"},
		{"gatekeeper", "--out", filepath.Join(out, "gk")},
	} {
		t.Run(args[0], func(t *testing.T) {
			r := evaluate(t, 60*time.Second, "", append([]string{args[0], "--rules", send}, args[1:]...)...)
			require.Equal(t, exitBadInput, r.code, r.stdout+r.stderr)
			assert.Contains(t, r.stderr, filepath.Join(send, "send.rego")+":4: calls http.send, which reaches the network: rules run in a sandbox that refuses it")
		})
	}
	// A Rego unit test run without --rules is held to the same sandbox.
	tests := writeRules(t, map[string]string{"up_test.rego": "package up_test\n\ntest_up if {\n\thttp.send({\"method\": \"GET\", \"url\": \"" + listener.URL + "\"}).status_code == 200\n}\n"})
	r := evaluate(t, 30*time.Second, "", "test", tests)
	require.Equal(t, exitBadInput, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stderr, filepath.Join(tests, "up_test.rego")+":4: calls http.send, which reaches the network")
	require.Zero(t, heard.Load(), "a request reached the listener")

	for _, tc := range []struct{ builtin, call, why string }{
		{"net.lookup_ip_addr", `net.lookup_ip_addr("example.com")`, "reaches the network (DNS)"},
		{"rand.intn", `rand.intn("x", 10)`, "answers differently from run to run"},
		{"time.now_ns", `time.now_ns()`, "answers differently from run to run (the clock)"},
		{"uuid.rfc4122", `uuid.rfc4122("x")`, "answers differently from run to run"},
		{"opa.runtime", `opa.runtime()`, "reads the host"},
	} {
		t.Run(tc.builtin, func(t *testing.T) {
			dir := writeRules(t, map[string]string{"r.rego": "package r\n\ndeny contains msg if {\n\tmsg := sprintf(\"%v\", [" + tc.call + "])\n}\n"})
			r := evaluate(t, 30*time.Second, "", "lint", "--rules", dir, exRuntimes)
			require.Equal(t, exitBadInput, r.code, r.stdout+r.stderr)
			assert.Contains(t, r.stderr, "r.rego:4: calls "+tc.builtin+", which "+tc.why)
			assert.Contains(t, r.stderr, "evaluate lint --allow-builtin "+tc.builtin+" lets lint call it, no bundle does")
		})
	}

	// lint may allow one by name; a bundle never holds it.
	clock := writeRules(t, map[string]string{"r.rego": "package r\n\nwarn contains \"late\" if time.now_ns() < 0\n"})
	r = evaluate(t, 30*time.Second, "", "lint", "--allow-builtin", "time.now_ns", "--rules", clock, exRuntimes)
	require.Equal(t, exitOK, r.code, r.stdout+r.stderr)
	r = evaluate(t, 60*time.Second, "", "gatekeeper", "--rules", clock, "--out", filepath.Join(out, "gk2"))
	require.Equal(t, exitBadInput, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stderr, "r.rego:3: calls time.now_ns, which answers differently from run to run (the clock): rules run in a sandbox that refuses it (docs/rules.md); a bundle never holds such a rule")
	r = evaluate(t, 30*time.Second, "", "lint", "--allow-builtin", "to_number", "--rules", clock, exRuntimes)
	require.Equal(t, exitBadInput, r.code)
	assert.Contains(t, r.stderr, "--allow-builtin: to_number is none of the builtins the sandbox refuses (http.send,")
}

// A copy of OME's policies (--policies) is held to the rules' sandbox:
// a policy, a unit test or a release's change that calls http.send, or a
// builtin whose answer changes from run to run, is refused as the folder
// is read, with its file, line and builtin, on every command, before
// anything runs (the listener hears nothing; lint of the examples' 4
// runtimes with such a lint.rego called it 4 times, and exited 0).
func TestPoliciesReachNoNetwork(t *testing.T) {
	listener, heard := countingListener(t)
	dir, lint, text := policiesCopy(t)
	const obj = "obj := input.object\n"
	require.Contains(t, string(text), obj)
	line := strings.Count(string(text[:strings.Index(string(text), obj)]), "\n") + 2
	calling := strings.Replace(string(text), obj, "obj := input.object if {\n\thttp.send({\"method\": \"GET\", \"url\": \""+listener.URL+"\"})\n}\n", 1)
	require.NoError(t, os.WriteFile(lint, []byte(calling), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "rego", "clock_test.rego"), []byte("package ome.lint_test\n\ntest_clock if time.now_ns() > 0\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "releases", "v0.1.4", "rego", "uuid.rego"), []byte("package ome.lint\n\nid := uuid.rfc4122(\"x\")\n"), 0o644))

	out := t.TempDir()
	for _, args := range [][]string{
		{"lint", "--engine", "rego", exRuntimes},
		{"match", "--engine", "rego", exModels, exRuntimes},
		{"select", at("testdata/rules/prod.yaml")},
		{"test", dir},
		{"gatekeeper", "--out", filepath.Join(out, "gk")},
	} {
		t.Run(args[0], func(t *testing.T) {
			r := evaluate(t, 60*time.Second, "", append([]string{args[0], "--policies", dir}, args[1:]...)...)
			require.Equal(t, exitBadInput, r.code, r.stdout+r.stderr)
			for _, want := range []string{
				lint + ":" + strconv.Itoa(line) + ": calls http.send, which reaches the network: the policies of --policies run in the sandbox of the rules, which refuses it (docs/rules.md)",
				filepath.Join(dir, "rego", "clock_test.rego") + ":3: calls time.now_ns, which answers differently from run to run (the clock)",
				filepath.Join(dir, "releases", "v0.1.4", "rego", "uuid.rego") + ":3: calls uuid.rfc4122, which answers differently from run to run",
			} {
				assert.Contains(t, r.stderr, want)
			}
		})
	}
	require.NoDirExists(t, filepath.Join(out, "gk"), "nothing written")
	require.Zero(t, heard.Load(), "a request reached the listener")
}

// A builtin that fails is an error of the rule, named with the object
// and the error (exit 2), never an undefined read as "no finding"; the
// other rules still judge every object.
func TestABuiltinThatFailsIsNamed(t *testing.T) {
	dir := writeRules(t, map[string]string{
		"tonum.rego": "package tonum\n\ndeny contains \"big\" if {\n\tto_number(input.metadata.name) > 3\n}\n",
		"fine.rego":  "package fine\n\nwarn contains \"seen\" if input.kind == \"ClusterServingRuntime\"\n",
	})
	r := evaluate(t, 30*time.Second, "", "lint", "--rules", dir, exRuntimes)
	require.Equal(t, exitBadInput, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "tonum.rego:4: error [input-error] rule tonum failed on ClusterServingRuntime/srt-mistral-7b-instruct ("+
		filepath.Join(exRuntimes, "srt-mistral-7b-instruct.yaml")+`:1): to_number: strconv.ParseFloat: parsing "srt-mistral-7b-instruct": invalid syntax`)
	assert.Equal(t, 4, strings.Count(r.stdout, "warning [fine] seen"), "the other rule judges every runtime")

	// http.send to a closed port, where lint allows it.
	closed := httptest.NewServer(http.NotFoundHandler())
	url := closed.URL
	closed.Close()
	send := writeRules(t, map[string]string{"send.rego": "package send\n\ndeny contains \"sent\" if {\n\thttp.send({\"method\": \"GET\", \"url\": \"" + url + "\"})\n}\n"})
	r = evaluate(t, 30*time.Second, "", "lint", "--allow-builtin", "http.send", "--rules", send, exRuntimes)
	require.Equal(t, exitBadInput, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "send.rego:4: error [input-error] rule send failed on ClusterServingRuntime/")
	assert.Contains(t, r.stdout, "connection refused")

	// A CEL expression that fails, with failurePolicy Ignore (which would
	// admit the object): named too.
	cel := writeRules(t, map[string]string{"p.yaml": celPolicy("nothing", "  failurePolicy: Ignore\n", "object.spec.nothing == 1")})
	r = evaluate(t, 30*time.Second, "", "lint", "--rules", cel, exRuntimes)
	require.Equal(t, exitBadInput, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "p.yaml:11: error [input-error] rule nothing failed on ClusterServingRuntime/")
	assert.Contains(t, r.stdout, "expression 'object.spec.nothing == 1': no such key: nothing")
}

// celPolicy is a ValidatingAdmissionPolicy named name, of the runtimes,
// with spec lines extra and one validation of expression.
func celPolicy(name, extra, expression string) string {
	return `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: ` + name + `
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: ["ome.io"], apiVersions: ["*"], operations: ["CREATE"], resources: ["clusterservingruntimes"]}
` + extra + `  validations:
  - expression: >-
      ` + expression + `
    message: failed
`
}

// A Rego unit test runs in the rules' sandbox: past --rule-timeout it
// fails, saying so (exit 1); a test during which the memory grew by
// --rule-memory stops the run, named (exit 2). (Without a limit of its
// own, numbers.range(0, 1e9) ran for OPA's 5 s and grew as fast as it
// could allocate.)
func TestRunawayRegoTestsAreStopped(t *testing.T) {
	dir := writeRules(t, map[string]string{
		"bomb.rego":      "package bomb\n\ndeny contains \"x\" if false\n",
		"bomb_test.rego": "package bomb_test\n\ntest_bomb if count(numbers.range(0, 1000000000)) > 1\n\ntest_fine if true\n",
	})
	r := evaluateProcess(t, 60*time.Second, 4096, nil, "test", "--rules", dir, "--rule-memory", "64Mi")
	requireBounded(t, r, 1024, filepath.Join(dir, "bomb_test.rego")+":3: test data.bomb_test.test_bomb: stopped at the memory limit of 64Mi (--rule-memory); no test after it is run")

	r = evaluateProcess(t, 60*time.Second, 4096, nil, "test", "--rules", dir, "--rule-timeout", "1s", "-o", "json")
	require.False(t, r.killed)
	require.Equal(t, exitFindings, r.code, r.stderr)
	require.Less(t, r.elapsed, 30*time.Second)
	assert.Contains(t, r.stdout, `"detail": "stopped at the time limit of 1s (--rule-timeout)"`)
	assert.Contains(t, r.stdout, `"passed": 1`)
}

// A rule that runs away is stopped: past --rule-timeout, or once the
// memory grew by --rule-memory while it judged one object, it is named
// with the object (exit 2) and not run on the objects after it. A CEL
// expression is stopped past Kubernetes' cost limit, and one whose cost
// is over that limit whatever the object is refused as it is read.
func TestRunawayRulesAreStopped(t *testing.T) {
	memory := writeRules(t, map[string]string{"range.rego": "package bomb\n\ndeny contains \"n\" if {\n\tcount(numbers.range(0, 1000000000)) > 1\n}\n"})
	r := evaluateProcess(t, 60*time.Second, 4096, nil, "lint", "--rules", memory, "--rule-memory", "64Mi", exRuntimes)
	requireBounded(t, r, 1024, "range.rego:1: error [input-error] rule bomb on ClusterServingRuntime/",
		"stopped at the memory limit of 64Mi (--rule-memory); it is not run on the objects after it")
	require.Equal(t, 1, strings.Count(r.stdout, "[input-error]"), "stopped once, for the first object")

	slow := writeRules(t, map[string]string{"slow.rego": `package slow

deny contains "n" if {
	n := count([x | some i in numbers.range(1, 20000); some j in numbers.range(1, 20000); x := i * j])
	n > 1
}
`})
	for _, args := range [][]string{
		{"lint", exRuntimes},
		{"gatekeeper", "--native-out", "", "--out", filepath.Join(t.TempDir(), "gk")},
	} {
		r := evaluateProcess(t, 60*time.Second, 4096, nil, append([]string{args[0], "--rules", slow, "--rule-timeout", "1s"}, args[1:]...)...)
		requireBounded(t, r, 1024, "slow.rego:1", "rule slow on ", "stopped at the time limit of 1s (--rule-timeout)")
		require.Less(t, r.elapsed, 30*time.Second)
	}

	// The least cost of 100^5 iterations, over Kubernetes' limit: refused
	// as it is read, by lint and by each bundle.
	nested := writeRules(t, map[string]string{"p.yaml": celPolicy("nested", "",
		"lists.range(100).all(a, lists.range(100).all(b, lists.range(100).all(c, lists.range(100).all(d, lists.range(100).all(e, a + b + c + d + e >= 0)))))")})
	for _, args := range [][]string{
		{"lint", exRuntimes},
		{"kyverno", "--out", filepath.Join(t.TempDir(), "k")},
		{"gatekeeper", "--out", filepath.Join(t.TempDir(), "gk")},
	} {
		r := evaluateProcess(t, 60*time.Second, 4096, nil, append([]string{args[0], "--rules", nested}, args[1:]...)...)
		requireBounded(t, r, 1024, "p.yaml:10: spec.validations[0].expression: its estimated cost is 141616161612 even on an object whose lists, maps and strings are empty, over Kubernetes' limit of 1000000 per expression")
	}

	// An expression whose cost grows with the object: stopped at the
	// limit on each object it exceeds it on.
	costly := writeRules(t, map[string]string{"p.yaml": celPolicy("costly", "", "object.spec.supportedModelFormats.all(a, "+
		"object.spec.supportedModelFormats.all(b, object.spec.supportedModelFormats.all(c, size(a.name) + size(b.name) + size(c.name) > 0)))")})
	var many strings.Builder
	many.WriteString("apiVersion: ome.io/v1beta1\nkind: ClusterServingRuntime\nmetadata:\n  name: many\nspec:\n  supportedModelFormats:\n")
	for i := range 200 {
		fmt.Fprintf(&many, "  - {name: f%d}\n", i)
	}
	manyFile := filepath.Join(t.TempDir(), "many.yaml")
	require.NoError(t, os.WriteFile(manyFile, []byte(many.String()), 0o644))
	r = evaluateProcess(t, 60*time.Second, 4096, nil, "lint", "--rules", costly, manyFile)
	requireBounded(t, r, 1024, "p.yaml:10: error [input-error] rule costly failed on ClusterServingRuntime/many",
		"past Kubernetes' cost limit of 1000000 per expression (operation cancelled: actual cost limit exceeded)")
}

// Reading stops at the size limit whatever the input: a file that is a
// link to a device, standard input without a newline, a named pipe (a
// file that is no regular file is refused before it is opened: only
// standard input reads a pipe), a rules file that is a link to a device.
func TestInputIsBounded(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Symlink("/dev/zero", filepath.Join(dir, "zero.yaml")))
	r := evaluateProcess(t, 60*time.Second, 4096, nil, "lint", dir)
	requireBounded(t, r, 400, "zero.yaml: error [input-error] not a regular file (a character device): give a file, or - to read standard input")

	zero, err := os.Open("/dev/zero")
	require.NoError(t, err)
	defer zero.Close()
	r = evaluateProcess(t, 60*time.Second, 4096, zero, "lint", "-")
	requireBounded(t, r, 400, "<stdin>: error [input-error] file is larger than 64 MiB")

	// 300 MB on one line.
	r = evaluateProcess(t, 60*time.Second, 4096, io.LimitReader(repeat('a'), 300<<20), "lint", "-")
	requireBounded(t, r, 400, "<stdin>: error [input-error] file is larger than 64 MiB")

	fifo := t.TempDir()
	require.NoError(t, syscall.Mkfifo(filepath.Join(fifo, "pipe.yaml"), 0o644))
	r = evaluateProcess(t, 30*time.Second, 4096, nil, "lint", fifo)
	requireBounded(t, r, 400, "pipe.yaml: error [input-error] not a regular file (a named pipe): give a file, or - to read standard input")

	rules := t.TempDir()
	require.NoError(t, os.Symlink("/dev/zero", filepath.Join(rules, "r.rego")))
	r = evaluateProcess(t, 60*time.Second, 4096, nil, "lint", "--rules", rules, exRuntimes)
	requireBounded(t, r, 400, "r.rego: not a regular file (a character device)")
}

// repeat is an endless reader of b.
type repeat byte

func (b repeat) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(b)
	}
	return len(p), nil
}

// Aliases are bounded by what they expand to, not only by their count: a
// long string that many aliases repeat is refused as it is read, whatever
// the engine and the rules after it.
func TestAliasesAreBoundedByWhatTheyExpandTo(t *testing.T) {
	var b strings.Builder
	b.WriteString("apiVersion: ome.io/v1beta1\nkind: ClusterServingRuntime\nmetadata:\n  name: bomb\n  annotations:\n    a: &a \"")
	b.WriteString(strings.Repeat("x", 1<<20))
	b.WriteString("\"\nspec:\n  supportedModelFormats: [")
	for i := range 450_000 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("*a")
	}
	b.WriteString("]\n")
	file := filepath.Join(t.TempDir(), "bomb.yaml")
	require.NoError(t, os.WriteFile(file, []byte(b.String()), 0o644))
	rules := writeRules(t, map[string]string{"r.rego": "package r\n\nwarn contains \"w\" if count(input.spec.supportedModelFormats) > 0\n"})
	for _, args := range [][]string{
		{"lint", file},
		{"lint", "--engine", "rego", file},
		{"lint", "--rules", rules, file},
	} {
		r := evaluateProcess(t, 60*time.Second, 4096, nil, args...)
		requireBounded(t, r, 600, "bomb.yaml:8: error [input-error] document expands to more than 64 MiB of text, its aliases repeating what they name (YAML alias bomb?)")
		require.Less(t, r.elapsed, 30*time.Second)
	}
}

// --rules walks a folder as -R walks one of objects: a link to a folder
// is walked (once), a loop is said, and a path that gives no rule is
// named.
func TestRulesFoldersAreWalkedAsObjectFolders(t *testing.T) {
	real := writeRules(t, map[string]string{"floor.rego": "package linked\n\ndeny contains \"linked\" if input.kind == \"ClusterServingRuntime\"\n"})
	dir := writeRules(t, map[string]string{"own.rego": "package own\n\nwarn contains \"own\" if false\n"})
	require.NoError(t, os.Symlink(real, filepath.Join(dir, "team")))
	require.NoError(t, os.Symlink(".", filepath.Join(dir, "loop")))
	r := evaluate(t, 30*time.Second, "", "lint", "--rules", dir, exRuntimes)
	require.Equal(t, exitFindings, r.code, r.stdout+r.stderr)
	assert.Equal(t, 4, strings.Count(r.stdout, "error [linked] linked"), "the rule of the linked folder judges each runtime")
	loop := "notice: " + filepath.Join(dir, "loop") + " leads to " + dir + ", a folder already read (a link loop, or a second way to it): not walked again"
	assert.Contains(t, r.stderr, loop)
	for _, args := range [][]string{
		{"select", at("testdata/rules/prod.yaml")},
		{"diff", exRuntimes, exRuntimes},
		{"gatekeeper", "--native-out", "", "--out", filepath.Join(t.TempDir(), "gk")},
	} {
		r := evaluate(t, 60*time.Second, "", append([]string{args[0], "--rules", dir}, args[1:]...)...)
		assert.Contains(t, r.stderr, loop, "%s says the loop", args[0])
	}

	only := writeRules(t, map[string]string{"kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: []\n"})
	r = evaluate(t, 30*time.Second, "", "lint", "--rules", dir, "--rules", only, exRuntimes)
	require.Equal(t, exitBadInput, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stderr, only+": no rules here: no Rego rule, test or library, no ValidatingAdmissionPolicy and no case list")
}
