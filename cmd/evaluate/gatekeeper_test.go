package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// The flags that point evaluate gatekeeper at the clone's files, from this
// package's folder: what it reads without them, from the binary.
var gatekeeperInputs = []string{
	"--cases", "../../testdata/cases/spec-selection.yaml,../../testdata/cases/webhook-checks.yaml,../../testdata/cases/gatekeeper-selection.yaml,../../testdata/cases/namespaces.yaml,../../testdata/cases/release-v0.1.4.yaml,../../testdata/cases/release-v1.2.2.yaml",
	"--lint", "../../testdata/lint/bad,../../testdata/lint/clean,../../testdata/lint/v0.1.4,../../testdata/gatekeeper/lint-objects.yaml",
}

func runGatekeeper(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(append([]string{"gatekeeper"}, args...), strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestGatekeeperCheckIsCurrent(t *testing.T) {
	// With the inputs the binary carries, as make bundles runs it, and
	// with the clone's files.
	for _, inputs := range [][]string{nil, gatekeeperInputs} {
		code, out, errOut := runGatekeeper(t, append([]string{"--check", "--out", "../../policies/gatekeeper", "--native-out", "../../policies/kubernetes"}, inputs...)...)
		if code != exitOK {
			t.Fatalf("%v: exit %d\n%s%s", inputs, code, out, errOut)
		}
	}
	code, out, errOut := runGatekeeper(t, "suite", "--check", "--out", "../../testdata/gatekeeper/sample-selection",
		"--templates", "../../policies/gatekeeper", "../../testdata/cases/sample-selection.yaml")
	if code != exitOK {
		t.Fatalf("suite: exit %d\n%s%s", code, out, errOut)
	}
}

func TestGatekeeperWritesAndChecks(t *testing.T) {
	dir := t.TempDir()
	args := append([]string{"--out", dir, "--native-out", filepath.Join(dir, "kubernetes")}, gatekeeperInputs...)
	if code, out, errOut := runGatekeeper(t, args...); code != exitOK || !strings.Contains(out, "written") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	for _, p := range []string{"sync.yaml", "omeruntimeselection/template.yaml", "omeruntimeselection/suite.yaml",
		"omeruntimeselection/samples/default/constraint.yaml", "omeversionlint/template.yaml",
		"omeversionlint/samples/deny-errors/constraint.yaml", "omeversionlint/samples/warn-warnings/constraint.yaml",
		"kubernetes/ome-version-lint.yaml"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Error(err)
		}
	}
	// An edited file and a stray one are reported, and the exit code is 1.
	tpl := filepath.Join(dir, "omeruntimeselection", "template.yaml")
	if err := os.WriteFile(tpl, []byte("edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A sample no case makes any more: its object and its folder go.
	strayDir := filepath.Join(dir, "omeversionlint", "samples", "deny-errors", "999-gone")
	if err := os.MkdirAll(strayDir, 0o755); err != nil {
		t.Fatal(err)
	}
	stray := filepath.Join(strayDir, "object.yaml")
	if err := os.WriteFile(stray, []byte("x: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := runGatekeeper(t, append([]string{"--check"}, args...)...)
	if code != exitFindings || !strings.Contains(out, "stale: "+tpl) || !strings.Contains(out, "not generated: "+stray) {
		t.Fatalf("exit %d\n%s", code, out)
	}
	// Generating again repairs both.
	if code, out, errOut := runGatekeeper(t, args...); code != exitOK || !strings.Contains(out, "1 written, 1 removed") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	if _, err := os.Stat(strayDir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the emptied sample folder is left: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "omeversionlint", "samples", "deny-errors")); err != nil {
		t.Errorf("the folder of the other samples went too: %v", err)
	}
}

func TestGatekeeperSuiteNeedsCases(t *testing.T) {
	if code, _, errOut := runGatekeeper(t, "suite", "-o", t.TempDir()); code != exitBadInput {
		t.Fatalf("exit %d, want %d\n%s", code, exitBadInput, errOut)
	}
	if code, _, errOut := runGatekeeper(t, "suite", "-o", t.TempDir(), "../../testdata/cases/nope.yaml"); code != exitBadInput || !strings.Contains(errOut, "nope.yaml") {
		t.Fatalf("exit %d, want %d\n%s", code, exitBadInput, errOut)
	}
}

// readTree reads every file under dir, by slash-separated path relative
// to it.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// sameTree fails when the trees under got and want differ: a file missing,
// one too many, or other content.
func sameTree(t *testing.T, got, want string) {
	t.Helper()
	g, w := readTree(t, got), readTree(t, want)
	if len(w) == 0 {
		t.Fatalf("%s is empty", want)
	}
	for p, text := range w {
		if have, ok := g[p]; !ok {
			t.Errorf("%s: missing (it is in %s)", filepath.Join(got, p), want)
		} else if have != text {
			t.Errorf("%s differs from %s", filepath.Join(got, p), filepath.Join(want, p))
		}
	}
	for p := range g {
		if _, ok := w[p]; !ok {
			t.Errorf("%s: not in %s", filepath.Join(got, p), want)
		}
	}
}

// cloneBundles are the bundles a clone makes of each release, from its
// files (gatekeeperInputs), made once: the gatekeeper and the kubernetes
// folder.
var cloneBundles = map[string][2]string{}

func cloneBundle(t *testing.T, release string) (gk, native string) {
	t.Helper()
	if b, ok := cloneBundles[release]; ok {
		return b[0], b[1]
	}
	dir, err := os.MkdirTemp("", "evaluate-gatekeeper-"+release+"-")
	if err != nil {
		t.Fatal(err)
	}
	gk, native = filepath.Join(dir, "gatekeeper"), filepath.Join(dir, "kubernetes")
	args := append([]string{"--ome-version", release, "--out", gk, "--native-out", native}, gatekeeperInputs...)
	if code, out, errOut := runGatekeeper(t, args...); code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	cloneBundles[release] = [2]string{gk, native}
	return gk, native
}

func TestMain(m *testing.M) {
	runAsChild() // a child of evaluateProcess runs evaluate, and exits
	code := m.Run()
	for _, b := range cloneBundles {
		os.RemoveAll(filepath.Dir(b[0]))
	}
	os.Exit(code)
}

// evaluate gatekeeper --ome-version R, run in an empty folder, makes for
// each release the bundle a clone makes (every file, the same bytes; for
// the newest, TestGatekeeperCheckIsCurrent holds it to the committed one),
// and each names its release in its
// metadata and descriptions, which say only what that release's webhook
// checks.
func TestGatekeeperOutsideAClone(t *testing.T) {
	for _, r := range []string{"v1.2.2", "v0.1.5", "v0.1.4"} {
		t.Run(r, func(t *testing.T) {
			wantGK, wantNative := cloneBundle(t, r)
			empty := t.TempDir()
			t.Chdir(empty)
			code, out, errOut := runGatekeeper(t, "--ome-version", r, "--out", "gk", "--native-out", "k8s")
			if code != exitOK || errOut != "" {
				t.Fatalf("exit %d\n%s%s", code, out, errOut)
			}
			sameTree(t, filepath.Join(empty, "gk"), wantGK)
			sameTree(t, filepath.Join(empty, "k8s"), wantNative)

			release := "ome.io/release: " + r + "\n"
			for _, f := range []string{"gk/omeruntimeselection/template.yaml", "gk/omeversionlint/template.yaml",
				"gk/omeruntimeselection/samples/default/constraint.yaml", "gk/omeversionlint/samples/deny-errors/constraint.yaml"} {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(string(b), release) {
					t.Errorf("%s does not name its release (%q)", f, release)
				}
			}
			vap, err := os.ReadFile("k8s/ome-version-lint.yaml")
			if err != nil {
				t.Fatal(err)
			}
			// Two policies and their bindings.
			if n := strings.Count(string(vap), release); n != 4 {
				t.Errorf("k8s/ome-version-lint.yaml names its release %d times, want 4", n)
			}
			tpl, err := os.ReadFile("gk/omeruntimeselection/template.yaml")
			if err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Metadata struct {
					Annotations map[string]string `yaml:"annotations"`
				} `yaml:"metadata"`
			}
			if err := yaml.Unmarshal(tpl, &doc); err != nil {
				t.Fatal(err)
			}
			desc := doc.Metadata.Annotations["description"]
			// What only some releases check (docs/ome-releases.md).
			for _, c := range []struct {
				phrase string
				in     []string
			}{
				{"the model it names exists", []string{"v1.2.2", "v0.1.5"}},
				{"spec.runtime.revision", []string{"v1.2.2"}},
				{"deployment mode", []string{"v1.2.2"}},
				{"keda is refused", []string{"v0.1.4"}},
				{"OME " + r + "'s admission webhook", []string{r}},
			} {
				if got, want := strings.Contains(desc, c.phrase), slices.Contains(c.in, r); got != want {
					t.Errorf("the description names %q: %v, want %v\n%s", c.phrase, got, want, desc)
				}
			}
		})
	}
}

// A file given to --cases or --lint that is not there: exit 2, and the
// error names the flag and the file.
func TestGatekeeperInputFlagErrors(t *testing.T) {
	for _, flag := range []string{"--cases", "--lint"} {
		t.Run(flag, func(t *testing.T) {
			dir := t.TempDir()
			code, out, errOut := runGatekeeper(t, "--ome-version", "v0.1.4", "--out", dir, "--native-out", "", flag, "nope.yaml")
			if code != exitBadInput || !strings.Contains(errOut, flag+": ") || !strings.Contains(errOut, "nope.yaml") {
				t.Fatalf("exit %d, want %d, and an error that names %s and nope.yaml\n%s%s", code, exitBadInput, flag, out, errOut)
			}
		})
	}
}

// checkGatekeeperBinary runs the built binary bin in an empty folder for
// each release (as an evaluate installed with go install runs), and
// compares its bundles with a clone's.
func checkGatekeeperBinary(t *testing.T, bin string) {
	for _, r := range []string{"v1.2.2", "v0.1.5", "v0.1.4"} {
		t.Run(r, func(t *testing.T) {
			empty := t.TempDir()
			cmd := exec.Command(bin, "gatekeeper", "--ome-version", r, "--out", "gk", "--native-out", "k8s")
			cmd.Dir = empty
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			gk, native := cloneBundle(t, r)
			sameTree(t, filepath.Join(empty, "gk"), gk)
			sameTree(t, filepath.Join(empty, "k8s"), native)
		})
	}
}

// evaluate gatekeeper and evaluate kyverno write a team's rules into
// every bundle that can hold them, and refuse to write a bundle without
// one (exit 2, naming the rule and the target), unless --leave-out names
// it, which a notice then says.
func TestBundlesHoldTeamRulesOrRefuse(t *testing.T) {
	regoIDs := "company.prod_pins_runtime,company.prod_redundancy,company.runtime_size_range,company.transformers_floor"
	for _, tc := range []struct {
		name     string
		args     []string
		code     int
		stderr   []string
		files    []string // written, under the folder of --out
		notFiles []string
	}{
		{"gatekeeper, no native", []string{"gatekeeper", "--native-out", ""}, 0, nil,
			[]string{"gk/team/companyruntimesizerange/template.yaml", "gk/team/companyruntimesizerange/samples/deny/constraint.yaml",
				"gk/team/companytransformersfloor/suite.yaml", "gk/team/companyautoselectpinsframework/samples/default/constraint.yaml",
				// The rule over OME's decisions gets them from the inventory.
				"gk/team/companyprodredundancy/template.yaml"}, nil},
		{"gatekeeper and native", []string{"gatekeeper", "--native-out", "NATIVE"}, 2,
			[]string{"runtime-size-range.rego:3: rule company.runtime_size_range cannot go into the ValidatingAdmissionPolicies (--native-out): it is Rego, and only CEL runs there",
				"transformers-floor.rego:3: rule company.transformers_floor cannot go into the ValidatingAdmissionPolicies (--native-out)",
				"evaluate: nothing written: a bundle without these rules would not enforce them; --leave-out " + regoIDs},
			nil, []string{"gk", "native"}},
		{"gatekeeper and native, Rego left out of native", []string{"gatekeeper", "--native-out", "NATIVE", "--leave-out", regoIDs}, 0,
			[]string{"notice: rule company.runtime_size_range is left out of the ValidatingAdmissionPolicies (--native-out) (--leave-out): it is Rego, and only CEL runs there"},
			[]string{"gk/team/companytransformersfloor/template.yaml", "native/team-rules.yaml"}, nil},
		{"kyverno", []string{"kyverno"}, 2,
			[]string{"rule company.transformers_floor cannot go into the Kyverno bundle: it is Rego, and only CEL runs there"}, nil, []string{"gk"}},
		{"kyverno, Rego left out", []string{"kyverno", "--leave-out", regoIDs}, 0,
			[]string{"notice: rule company.transformers_floor is left out of the Kyverno bundle (--leave-out)"},
			[]string{"gk/team/company-autoselect-pins-framework.yaml"}, []string{"gk/team/company.transformers_floor.yaml"}},
		{"an unknown rule left out", []string{"kyverno", "--leave-out", "company.nothing"}, 2,
			[]string{`--leave-out: "company.nothing" is no rule of --rules`}, nil, []string{"gk"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append([]string{}, tc.args...)
			for i, a := range args {
				if a == "NATIVE" {
					args[i] = filepath.Join(dir, "native")
				}
			}
			args = append(args, "--rules", companyRules, "--out", filepath.Join(dir, "gk"))
			r := evaluate(t, 60*time.Second, "", args...)
			require.Equal(t, tc.code, r.code, r.stderr)
			for _, s := range tc.stderr {
				require.Contains(t, r.stderr, s)
			}
			for _, f := range tc.files {
				require.FileExists(t, filepath.Join(dir, f))
			}
			for _, f := range tc.notFiles {
				require.NoFileExists(t, filepath.Join(dir, f))
				require.NoDirExists(t, filepath.Join(dir, f))
			}
		})
	}
	r := evaluate(t, 60*time.Second, "", "kyverno", "--leave-out", "x", "--out", t.TempDir())
	require.Equal(t, 2, r.code)
	require.Contains(t, r.stderr, "--leave-out x: no --rules to leave out of")
}

// policiesCopy copies OME's policies into a new folder (for --policies),
// and gives it, with the path and text of its rego/lint.rego.
func policiesCopy(t *testing.T) (dir, lint string, text []byte) {
	t.Helper()
	dir = t.TempDir()
	copyTree(t, at("policies"), dir)
	lint = filepath.Join(dir, "rego", "lint.rego")
	text, err := os.ReadFile(lint)
	require.NoError(t, err)
	return dir, lint, text
}

// A rule added to a copy of OME's policies (--policies) is never left out
// without a word: lint refuses a finding of a rule that lint-rules.yaml
// does not list, and the bundles refuse a listed rule that OME's templates
// cannot enforce, pointing at --rules.
func TestPoliciesWithAnAddedRule(t *testing.T) {
	dir, lint, text := policiesCopy(t)
	const wired = "array.concat(presence_findings, array.concat(size_range_findings, size_findings)),"
	require.Contains(t, string(text), wired)
	added := strings.Replace(string(text), wired, "array.concat(presence_findings, array.concat(size_range_findings, array.concat(size_findings, company_findings))),", 1) + "\n" +
		"company_findings := [{\"rule\": \"company-size\", \"severity\": \"error\", \"field\": \"spec\", \"message\": \"no modelSizeRange\"} |\n" +
		"\tinput.object.kind == \"ClusterServingRuntime\"\n\tnot input.object.spec.modelSizeRange\n]\n"
	require.NoError(t, os.WriteFile(lint, []byte(added), 0o644))

	r := evaluate(t, 60*time.Second, "", "lint", "--policies", dir, "--engine", "rego", exRuntimes)
	require.Equal(t, 2, r.code, r.stdout)
	require.Contains(t, r.stderr, `the policies give a finding of rule "company-size", which their lint-rules.yaml does not list`)

	rulesFile := filepath.Join(dir, "lint-rules.yaml")
	list, err := os.ReadFile(rulesFile)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(rulesFile, append(list, []byte("- id: company-size\n  severity: error\n  description: every runtime has a size range\n")...), 0o644))
	r = evaluate(t, 60*time.Second, "", "lint", "--policies", dir, "--engine", "rego", exRuntimes)
	require.Equal(t, 1, r.code, r.stderr)
	require.Contains(t, r.stdout, "[company-size] spec: no modelSizeRange")

	for _, args := range [][]string{{"gatekeeper", "--native-out", ""}, {"kyverno"}} {
		out := t.TempDir()
		r := evaluate(t, 60*time.Second, "", append(args, "--policies", dir, "--out", filepath.Join(out, "b"))...)
		require.Equal(t, 2, r.code, "%s: %s", args[0], r.stdout)
		require.Contains(t, r.stderr, "lint-rules.yaml: rule company-size is none of OME's, and OME's templates cannot enforce it: write it as a team's own rule")
		require.NoDirExists(t, filepath.Join(out, "b"))
	}
}

// A ValidatingAdmissionPolicy that reads OME's decisions goes into no
// bundle: each says why, and what to write instead.
func TestBundlesRefuseCELOverDecisions(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "two.yaml"), []byte(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: two-runtimes}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [ome.io], apiVersions: ['*'], operations: [CREATE, UPDATE], resources: [basemodels]}
  validations:
  - expression: size(evaluate.decision.runtimes) >= 2
    message: a model needs two runtimes
`), 0o644))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"gatekeeper", "--native-out", ""}, "rule two-runtimes cannot go into the Gatekeeper bundle: it reads OME's decisions (evaluate), which Gatekeeper's CEL (K8sNativeValidation) cannot take from its inventory: write it in Rego, whose template gets them"},
		{[]string{"gatekeeper", "--native-out", filepath.Join(dir, "native")}, "rule two-runtimes cannot go into the ValidatingAdmissionPolicies (--native-out): it reads OME's decisions (evaluate), and a ValidatingAdmissionPolicy reads no object but the one under review"},
		{[]string{"kyverno"}, "rule two-runtimes cannot go into the Kyverno bundle: it reads OME's decisions (evaluate), which evaluate does not write into Kyverno's CEL: write it in Rego, whose Gatekeeper template gets them"},
	} {
		r := evaluate(t, 60*time.Second, "", append(tc.args, "--rules", dir, "--out", filepath.Join(dir, "out"))...)
		require.Equal(t, 2, r.code, r.stderr)
		require.Contains(t, r.stderr, "two.yaml:1: "+tc.want)
		require.NoDirExists(t, filepath.Join(dir, "out"))
	}
}

// Exemptions are the engines' own: --exempt-namespaces and
// --label-selector go into the match of every constraint of the
// Gatekeeper bundle, every binding of the ValidatingAdmissionPolicies and
// every Kyverno policy, OME's and the team's alike; a selector the API
// cannot say, or a name that is no namespace's, is refused.
func TestExemptionsInEveryTarget(t *testing.T) {
	regoIDs := "company.prod_pins_runtime,company.prod_redundancy,company.runtime_size_range,company.transformers_floor"
	dir := t.TempDir()
	flags := []string{"--rules", companyRules, "--leave-out", regoIDs, "--exempt-namespaces", "sandbox,scratch", "-l", "evaluate.ome.io/exempt!=true,tier in (prod)"}
	r := evaluate(t, 120*time.Second, "", append([]string{"gatekeeper", "--out", filepath.Join(dir, "gk"), "--native-out", filepath.Join(dir, "native")}, flags...)...)
	require.Equal(t, 0, r.code, r.stderr)
	r = evaluate(t, 120*time.Second, "", append([]string{"kyverno", "--out", filepath.Join(dir, "kyverno")}, flags...)...)
	require.Equal(t, 0, r.code, r.stderr)
	namespaces := []any{"sandbox", "scratch"}
	selector := map[string]any{"matchExpressions": []any{
		map[string]any{"key": "evaluate.ome.io/exempt", "operator": "NotIn", "values": []any{"true"}},
		map[string]any{"key": "tier", "operator": "In", "values": []any{"prod"}},
	}}
	byNamespace := []any{map[string]any{"key": "kubernetes.io/metadata.name", "operator": "NotIn", "values": namespaces}}
	seen := map[string]int{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".yaml") || strings.Contains(p, "kyverno-test") || strings.Contains(p, "/samples/") && !strings.HasSuffix(p, "constraint.yaml") {
			return err
		}
		dec := yaml.NewDecoder(strings.NewReader(readFile(t, p)))
		for {
			var doc map[string]any
			if err := dec.Decode(&doc); err != nil {
				break
			}
			spec, _ := doc["spec"].(map[string]any)
			var match map[string]any
			switch {
			case strings.HasPrefix(fmt.Sprint(doc["apiVersion"]), "constraints.gatekeeper.sh/"):
				match, _ = spec["match"].(map[string]any)
				require.Equal(t, namespaces, match["excludedNamespaces"], p)
				require.Equal(t, selector, match["labelSelector"], p)
			case doc["kind"] == "ValidatingAdmissionPolicyBinding":
				match, _ = spec["matchResources"].(map[string]any)
			case doc["kind"] == "ValidatingPolicy":
				match, _ = spec["matchConstraints"].(map[string]any)
			default:
				continue
			}
			if doc["kind"] == "ValidatingAdmissionPolicyBinding" || doc["kind"] == "ValidatingPolicy" {
				require.Equal(t, map[string]any{"matchExpressions": byNamespace}, match["namespaceSelector"], p)
				require.Equal(t, selector, match["objectSelector"], p)
			}
			seen[fmt.Sprint(doc["kind"])]++
		}
		return nil
	}))
	// OME's two constraints of each template and the team's; OME's two
	// bindings and the team's; OME's three Kyverno policies and the team's.
	require.GreaterOrEqual(t, seen["ValidatingAdmissionPolicyBinding"], 3, "%v", seen)
	require.GreaterOrEqual(t, seen["ValidatingPolicy"], 4, "%v", seen)
	require.GreaterOrEqual(t, seen["OMEVersionLint"]+seen["OMERuntimeSelection"], 4, "%v", seen)
	require.Positive(t, seen["CompanyAutoselectPinsFramework"], "%v", seen)

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--exempt-namespaces", "kube-*"}, `--exempt-namespaces: "kube-*" is no namespace name`},
		{[]string{"-l", "size>3"}, "--label-selector: size>3: the API's label selectors have no gt"},
		{[]string{"-l", "a=b,,"}, "--label-selector: "},
	} {
		r := evaluate(t, 60*time.Second, "", append([]string{"gatekeeper", "--out", t.TempDir(), "--native-out", ""}, tc.args...)...)
		require.Equal(t, 2, r.code, "%v: %s", tc.args, r.stderr)
		require.Contains(t, r.stderr, tc.want)
	}
}

// Every rule form of testdata/rules/corpus goes into the bundles with the
// project's own lint objects (the default --lint), which hold objects
// OME's CRDs refuse (a version as a YAML number) and an object given
// twice: a rule that would fail on the first, or fire on the earlier of
// the second, is not made to, since admission never sees them (the API
// server refuses the one, and apply replaces the other).
func TestCorpusBundlesWithTheProjectsLintObjects(t *testing.T) {
	dirs, err := filepath.Glob(at("testdata/rules/corpus/*/rules"))
	require.NoError(t, err)
	require.NotEmpty(t, dirs)
	for _, dir := range dirs {
		form := filepath.Base(filepath.Dir(dir))
		out := t.TempDir()
		args := []string{"gatekeeper", "--rules", dir, "--out", filepath.Join(out, "gatekeeper")}
		if strings.HasPrefix(form, "rego-") {
			args = append(args, "--native-out=") // Rego cannot go there
		} else {
			args = append(args, "--native-out", filepath.Join(out, "kubernetes"))
		}
		r := evaluate(t, 60*time.Second, "", args...)
		require.Equal(t, 0, r.code, "%s: %s", form, r.stderr)
		if strings.HasPrefix(form, "cel-") {
			r = evaluate(t, 60*time.Second, "", "kyverno", "--rules", dir, "--out", filepath.Join(out, "kyverno"))
			require.Equal(t, 0, r.code, "%s: %s", form, r.stderr)
		}
	}
}
