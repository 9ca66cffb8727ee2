package e2e

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/ome-policy/evaluator/e2e/cluster"
)

// teamRulesDir is the example team's own rules.
var teamRulesDir = filepath.Join(repo, "examples", "company-rules")

// teamFindings are the messages `evaluate lint --rules` gives of rule on
// the objects of file.
func teamFindings(t *testing.T, rule, file string) []string {
	t.Helper()
	out, _, _ := run(t, "lint", "--rules", teamRulesDir, "--enable-only", rule, "-o", "json", file)
	var doc struct {
		Findings []struct{ Rule, Message string } `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("evaluate lint --rules -o json: %v\n%s", err, out)
	}
	var msgs []string
	for _, f := range doc.Findings {
		if f.Rule == rule {
			msgs = append(msgs, f.Message)
		}
	}
	if len(msgs) == 0 {
		t.Fatalf("%s: evaluate lint --rules finds nothing of %s: the check would prove nothing", file, rule)
	}
	return msgs
}

// readOne reads the one object of a file.
func readOne(t *testing.T, path string) *unstructured.Unstructured {
	t.Helper()
	objs, err := cluster.ReadObjects(path)
	if err != nil || len(objs) != 1 {
		t.Fatalf("%s: %v (%d objects)", path, err, len(objs))
	}
	return objs[0]
}

// installTeamRule installs the template of a team's rule (its folder
// under the Gatekeeper bundle's team/, in dir) and its deny constraint,
// once Gatekeeper serves the template's kind; both go when the test ends.
func installTeamRule(t *testing.T, dir, name string) {
	t.Helper()
	team := filepath.Join(dir, "gatekeeper", "team", name)
	applyWhileTesting(t, []*unstructured.Unstructured{readOne(t, filepath.Join(team, "template.yaml"))})
	c := readOne(t, filepath.Join(team, "samples", "deny", "constraint.yaml"))
	if err := eventually(90*time.Second, func() error { _, err := kube.Apply(ctxT(t), c); return err }); err != nil {
		t.Fatalf("the constraint of %s: %v", name, err)
	}
	t.Cleanup(func() {
		if err := kube.Delete(ctxT(t), c); err != nil {
			t.Error(err)
		}
	})
}

// testTeamRules installs the example team's rules as `evaluate gatekeeper
// --rules` and `evaluate kyverno --rules` write them, on the real API
// server: a Rego rule's template and deny constraint in Gatekeeper (one of
// them over OME's decisions, from Gatekeeper's inventory), the
// ValidatingAdmissionPolicy (a Warn binding) in the API server itself and
// as a Kyverno ValidatingPolicy. A runtime that breaks a rule is refused,
// or warned, with the message `evaluate lint --rules` gives.
func testTeamRules(t *testing.T) {
	dir := t.TempDir()
	// The Rego rules cannot go to the API server or Kyverno: left out of
	// those, on purpose.
	leave := "company.prod_pins_runtime,company.prod_redundancy,company.runtime_size_range,company.transformers_floor"
	if _, stderr, code := run(t, "gatekeeper", "--rules", teamRulesDir, "--leave-out", leave,
		"--out", filepath.Join(dir, "gatekeeper"), "--native-out", filepath.Join(dir, "native")); code != 0 {
		t.Fatalf("evaluate gatekeeper --rules: exit %d\n%s", code, stderr)
	}
	if _, stderr, code := run(t, "kyverno", "--rules", teamRulesDir, "--leave-out", leave, "--out", filepath.Join(dir, "kyverno")); code != 0 {
		t.Fatalf("evaluate kyverno --rules: exit %d\n%s", code, stderr)
	}
	floorRuntime := filepath.Join(repo, "testdata", "examples", "runtimes", "srt-mistral-7b-instruct.yaml")
	devRuntime := filepath.Join(repo, "testdata", "examples", "runtimes", "vllm-llama-3-2-3b-instruct.yaml")

	t.Run("gatekeeper-rego", func(t *testing.T) {
		installTeamRule(t, dir, "companytransformersfloor")
		want := "[company-transformers-floor] " + teamFindings(t, "company.transformers_floor", floorRuntime)[0]
		probe := readOne(t, floorRuntime)
		if err := eventually(90*time.Second, func() error {
			_, err := kube.Create(ctxT(t), probe, true)
			got := answer(err)
			if got.By != "webhook" || !strings.Contains(got.Raw, want) {
				return fmt.Errorf("want Gatekeeper's refusal %q, got %d %s: %s", want, got.Code, got.By, got.Raw)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	})

	// The rule over OME's decisions, in its template: the runtimes of
	// namespace prod are synced into Gatekeeper's inventory, and a model of
	// prod that one runtime alone serves is refused, one that two serve is
	// not.
	t.Run("gatekeeper-decisions", func(t *testing.T) {
		prod := filepath.Join(repo, "testdata", "rules", "prod.yaml")
		objs, err := cluster.ReadObjects(prod)
		if err != nil {
			t.Fatal(err)
		}
		var runtimes []*unstructured.Unstructured
		models := map[string]*unstructured.Unstructured{}
		for _, o := range objs {
			switch o.GetKind() {
			case "ServingRuntime":
				runtimes = append(runtimes, o)
			case "BaseModel":
				models[o.GetName()] = o
			}
		}
		ensureNamespaces(t, []object{{File: prod, Obj: runtimes[0]}})
		applyWhileTesting(t, runtimes)
		installTeamRule(t, dir, "companyprodredundancy")
		want := "[company-prod-redundancy] " + teamFindings(t, "company.prod_redundancy", prod)[0]
		if err := eventually(90*time.Second, func() error {
			_, err := kube.Create(ctxT(t), models["mistral-7b"], true)
			if got := answer(err); got.By != "webhook" || !strings.Contains(got.Raw, want) {
				return fmt.Errorf("want Gatekeeper's refusal %q, got %d %s: %s", want, got.Code, got.By, got.Raw)
			}
			// Served by two runtimes once both are synced.
			if _, err := kube.Create(ctxT(t), models["llama-3-2-3b"], true); err != nil {
				return fmt.Errorf("a model of prod that two runtimes serve: %v", err)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	})

	// The policy's binding warns: the warning comes back to the client.
	warnedWith := func(t *testing.T, want string) {
		t.Helper()
		warned, w := warnedKube(t)
		probe := readOne(t, devRuntime)
		if err := eventually(90*time.Second, func() error {
			if _, err := warned.Create(ctxT(t), probe, true); err != nil {
				return fmt.Errorf("a runtime the team's policy warns of: %v", err)
			}
			got := w.take()
			for _, g := range got {
				if g == want {
					return nil
				}
			}
			return fmt.Errorf("warnings %q, want one %q", got, want)
		}); err != nil {
			t.Fatal(err)
		}
	}
	message := teamFindings(t, "company-autoselect-pins-framework", devRuntime)[0]

	t.Run("native-policy", func(t *testing.T) {
		objs, err := cluster.ReadObjects(filepath.Join(dir, "native", "team-rules.yaml"))
		if err != nil || len(objs) != 2 {
			t.Fatalf("team-rules.yaml: %v (%d objects, want the policy and its binding)", err, len(objs))
		}
		applyWhileTesting(t, objs)
		warnedWith(t, "Validation failed for ValidatingAdmissionPolicy 'company-autoselect-pins-framework' with binding 'company-autoselect-pins-framework': "+message)
	})

	t.Run("kyverno", func(t *testing.T) {
		applyWhileTesting(t, []*unstructured.Unstructured{readOne(t, filepath.Join(dir, "kyverno", "team", "company-autoselect-pins-framework.yaml"))})
		warnedWith(t, "Policy company-autoselect-pins-framework failed: "+message)
	})
}

// corpusFindings are the messages `evaluate lint --rules` gives of rule on
// the objects of a folder of testdata/rules/corpus, by object name.
func corpusFindings(t *testing.T, folder, rule string) map[string]string {
	t.Helper()
	dir := filepath.Join(repo, "testdata", "rules", "corpus", folder)
	out, _, _ := run(t, "lint", "--rules", filepath.Join(dir, "rules"), "--enable-only", rule, "-o", "json", filepath.Join(dir, "objects.yaml"))
	var doc struct {
		Findings []struct {
			Rule, Message string
			Object        struct{ Name string }
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("evaluate lint --rules -o json: %v\n%s", err, out)
	}
	msgs := map[string]string{}
	for _, f := range doc.Findings {
		if f.Rule == rule {
			msgs[f.Object.Name] = f.Message
		}
	}
	if len(msgs) == 0 {
		t.Fatalf("%s: evaluate lint --rules finds nothing of %s: the check would prove nothing", folder, rule)
	}
	return msgs
}

// testCorpusDecisions installs the rules over OME's decisions of
// testdata/rules/corpus/rego-decisions, as evaluate gatekeeper --rules
// writes them, on the real API server with Gatekeeper: decisions read
// inline (count(data.evaluate.decision.runtimes) < 2) and of an
// InferenceService (its verdict and the runtime OME selects), each
// refusing what evaluate lint --rules finds, with its message, and
// admitting the rest.
func testCorpusDecisions(t *testing.T) {
	folder := filepath.Join(repo, "testdata", "rules", "corpus", "rego-decisions")
	dir := t.TempDir()
	if _, stderr, code := run(t, "gatekeeper", "--rules", filepath.Join(folder, "rules"), "--lint", filepath.Join(folder, "objects.yaml"),
		"--out", filepath.Join(dir, "gatekeeper"), "--native-out", ""); code != 0 {
		t.Fatalf("evaluate gatekeeper --rules: exit %d\n%s", code, stderr)
	}
	objs, err := cluster.ReadObjects(filepath.Join(folder, "objects.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*unstructured.Unstructured{}
	var runtimes []*unstructured.Unstructured
	for _, o := range objs {
		byName[o.GetName()] = o
		if strings.HasSuffix(o.GetKind(), "ServingRuntime") {
			runtimes = append(runtimes, o)
		}
	}
	ensureNamespaces(t, []object{{Obj: byName["llama"]}})
	applyWhileTesting(t, runtimes)
	refused := func(t *testing.T, o *unstructured.Unstructured, want string) {
		t.Helper()
		if err := eventually(90*time.Second, func() error {
			_, err := kube.Create(ctxT(t), o, true)
			if got := answer(err); got.By != "webhook" || !strings.Contains(got.Raw, want) {
				return fmt.Errorf("%s: want Gatekeeper's refusal %q, got %d %s: %s", o.GetName(), want, got.Code, got.By, got.Raw)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	admitted := func(t *testing.T, o *unstructured.Unstructured) {
		t.Helper()
		if _, err := kube.Create(ctxT(t), o, true); err != nil {
			t.Fatalf("%s: want it admitted, got %v", o.GetName(), err)
		}
	}

	t.Run("inline", func(t *testing.T) {
		installTeamRule(t, dir, "corpusdecisioninline")
		want := corpusFindings(t, "rego-decisions", "corpus.decision_inline")
		refused(t, byName["mistral"], "[corpus-decision-inline] "+want["mistral"])
		admitted(t, byName["llama"])
	})

	t.Run("inference-service", func(t *testing.T) {
		applyWhileTesting(t, []*unstructured.Unstructured{byName["llama"], byName["mistral"]})
		installTeamRule(t, dir, "corpusdecisionadmitted")
		want := corpusFindings(t, "rego-decisions", "corpus.decision_admitted")
		refused(t, byName["assistant"], "[corpus-decision-admitted] "+want["assistant"])
		// OME's selection admits chat, and so does the rule.
		if err := eventually(90*time.Second, func() error { _, err := kube.Create(ctxT(t), byName["chat"], true); return err }); err != nil {
			t.Fatalf("chat: want it admitted, got %v", err)
		}
	})
}
