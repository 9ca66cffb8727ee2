package main

import (
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ome-policy/evaluator/diff"
	"github.com/ome-policy/evaluator/objects"
)

// diffBefore is the cluster every change of these tests starts from.
var diffBefore = at("testdata/diff/before")

// copyTree copies a folder into dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	require.NoError(t, filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	}))
}

// change is an edit of the cluster of testdata/diff/before: in file,
// replace from by to (from "" writes the file whole; to "" with from ""
// removes it).
type change struct {
	file, from, to string
}

func applyChanges(t *testing.T, dir string, changes []change) {
	t.Helper()
	for _, c := range changes {
		p := filepath.Join(dir, c.file)
		switch {
		case c.from == "" && c.to == "":
			require.NoError(t, os.Remove(p))
		case c.from == "":
			require.NoError(t, os.WriteFile(p, []byte(c.to), 0o644))
		default:
			data, err := os.ReadFile(p)
			require.NoError(t, err)
			require.Contains(t, string(data), c.from, "%s", c.file)
			require.NoError(t, os.WriteFile(p, []byte(strings.Replace(string(data), c.from, c.to, 1)), 0o644))
		}
	}
}

// diffJSON is what the tests read of -o json.
type diffJSON struct {
	Summary struct {
		Regressions, Changes, Unmoved int
	}
	diff.Report
	Errors []struct {
		File    string
		Line    int
		Field   string
		Message string
	}
}

const llamaFast = `apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata:
  name: vllm-llama-fast
spec:
  supportedModelFormats:
    - modelFormat:
        name: safetensors
        version: "1.0.0"
      modelFramework:
        name: transformers
        version: "4.45.0"
      modelArchitecture: LlamaForCausalLM
      autoSelect: true
      priority: 2
  modelSizeRange:
    min: 1B
    max: 10B
`

const teamBLlama = `apiVersion: ome.io/v1beta1
kind: ServingRuntime
metadata:
  name: vllm-llama-b
  namespace: team-b
spec:
  supportedModelFormats:
    - modelFormat:
        name: safetensors
        version: "1.0.0"
      modelFramework:
        name: transformers
        version: "4.45.0"
      modelArchitecture: LlamaForCausalLM
      autoSelect: true
  modelSizeRange:
    min: 1B
    max: 100B
`

// lost and gained name what a model loses or gains: "model>runtime".
type diffExpect struct {
	noRuntime []string          // models left with no compatible runtime
	gained    []string          // "model>runtime"
	lost      map[string]string // "model>runtime" -> OME's reason now ("" for a removed runtime)
	services  map[string]string // "namespace/name" -> the change (diff.Service*)
	selected  map[string]string // "namespace/name" -> the runtime selected after ("" when none)
	unmoved   []string          // "change Kind/name"
	code      int               // with --fail-on=regressions (the default)
	changes   int               // exit code with --fail-on=changes
}

var diffScenarios = []struct {
	name    string
	changes []change
	expect  diffExpect
}{
	{
		name:    "a version bump drops a model",
		changes: []change{{"runtimes/vllm-mistral.yaml", `version: "4.42.0"`, `version: "4.46.0"`}},
		expect: diffExpect{
			noRuntime: []string{"mistral-7b-instruct"},
			lost: map[string]string{"mistral-7b-instruct>vllm-mistral": "model format 'mt:safetensors:1.0.0:MistralForCausalLM:transformers:4.42.0' not in supported formats: " +
				"framework version mismatch (model=4.42.0, runtime=4.46.0)"},
			services: map[string]string{"team-b/mistral": diff.ServiceRefused},
			selected: map[string]string{"team-b/mistral": ""},
			code:     1, changes: 1,
		},
	},
	{
		name:    "a new runtime takes over an InferenceService by priority",
		changes: []change{{"runtimes/vllm-llama-fast.yaml", "", llamaFast}},
		expect: diffExpect{
			gained:   []string{"llama-3-1-8b-instruct>vllm-llama-fast"},
			services: map[string]string{"team-a/chat": diff.ServiceRuntime},
			selected: map[string]string{"team-a/chat": "vllm-llama-fast"},
			code:     1, changes: 1,
		},
	},
	{
		name:    "a modelSizeRange narrowed",
		changes: []change{{"runtimes/sglang-llama.yaml", "max: 100B", "max: 50B"}},
		expect: diffExpect{
			lost: map[string]string{"llama-3-3-70b-instruct>sglang-llama": "model size 70B is outside supported range [1B, 50B]"},
			code: 0, changes: 1,
		},
	},
	{
		name:    "disabled: true",
		changes: []change{{"runtimes/vllm-llama-large.yaml", "spec:\n", "spec:\n  disabled: true\n"}},
		expect: diffExpect{
			lost:     map[string]string{"llama-3-3-70b-instruct>vllm-llama-large": "runtime is disabled"},
			services: map[string]string{"team-b/chat-large": diff.ServiceRuntime},
			selected: map[string]string{"team-b/chat-large": "sglang-llama"},
			code:     1, changes: 1,
		},
	},
	{
		name:    "a runtime deleted",
		changes: []change{{"runtimes/vllm-qwen.yaml", "", ""}},
		expect: diffExpect{
			noRuntime: []string{"qwen2-7b-instruct"},
			lost:      map[string]string{"qwen2-7b-instruct>vllm-qwen": ""},
			services:  map[string]string{"team-a/qwen": diff.ServiceRefused},
			selected:  map[string]string{"team-a/qwen": ""},
			code:      1, changes: 1,
		},
	},
	{
		// A ClusterBaseModel meets the ServingRuntimes of every namespace;
		// team-a's BaseModel does not; an InferenceService of team-b
		// prefers its namespace's runtime, one of team-a does not see it.
		name:    "a namespaced runtime added in one namespace only",
		changes: []change{{"runtimes/team-b-vllm-llama.yaml", "", teamBLlama}},
		expect: diffExpect{
			gained:   []string{"llama-3-1-8b-instruct>vllm-llama-b", "llama-3-3-70b-instruct>vllm-llama-b"},
			services: map[string]string{"team-b/chat-large": diff.ServiceRuntime},
			selected: map[string]string{"team-b/chat-large": "vllm-llama-b"},
			code:     1, changes: 1,
		},
	},
	{
		name: "a change that moves no decision",
		changes: []change{
			{"runtimes/vllm-llama.yaml", "vllm-openai:v0.9.0", "vllm-openai:v0.9.1"},
			{"models.yaml", "  name: mistral-7b-instruct\n", "  name: mistral-7b-instruct\n  labels:\n    team: b\n"},
		},
		expect: diffExpect{
			unmoved: []string{"changed ClusterBaseModel/mistral-7b-instruct", "changed ClusterServingRuntime/vllm-llama"},
			code:    0, changes: 0,
		},
	},
}

// checkDiff holds a diff's JSON report to what a scenario expects.
func checkDiff(t *testing.T, out string, want diffExpect) diffJSON {
	t.Helper()
	var got diffJSON
	require.NoError(t, json.Unmarshal([]byte(out), &got), out)
	var noRuntime, gained, unmoved []string
	lost, services, selected := map[string]string{}, map[string]string{}, map[string]string{}
	for _, m := range got.Models {
		if m.NoRuntime {
			require.True(t, m.Regression, "%s lost its last runtime", m.Model.Name)
			noRuntime = append(noRuntime, m.Model.Name)
		}
		for _, g := range m.Gained {
			gained = append(gained, m.Model.Name+">"+g.Runtime.Name)
		}
		for _, l := range m.Lost {
			lost[m.Model.Name+">"+l.Runtime.Name] = l.Reason
		}
	}
	for _, s := range got.InferenceServices {
		key := s.InferenceService.Namespace + "/" + s.InferenceService.Name
		services[key] = s.Change
		selected[key] = ""
		if s.After.Runtime != nil {
			selected[key] = s.After.Runtime.Name
		}
	}
	for _, o := range got.Unmoved {
		unmoved = append(unmoved, o.Change+" "+o.Kind+"/"+o.Name)
	}
	require.Equal(t, want.noRuntime, noRuntime, "models left with no runtime")
	require.Equal(t, want.gained, gained, "runtimes gained")
	if want.lost == nil {
		want.lost = map[string]string{}
	}
	require.Equal(t, want.lost, lost, "runtimes lost")
	if want.services == nil {
		want.services, want.selected = map[string]string{}, map[string]string{}
	}
	require.Equal(t, want.services, services, "InferenceServices")
	require.Equal(t, want.selected, selected, "runtimes selected after")
	require.Equal(t, want.unmoved, unmoved, "objects that move no decision")
	return got
}

// TestDiffChanges runs evaluate diff OLD NEW on each kind of change, on
// each engine, and holds the engines' reports to each other.
func TestDiffChanges(t *testing.T) {
	for _, sc := range diffScenarios {
		t.Run(sc.name, func(t *testing.T) {
			dir := t.TempDir()
			newDir := filepath.Join(dir, "after")
			copyTree(t, diffBefore, newDir)
			applyChanges(t, newDir, sc.changes)
			reports := map[string]string{}
			for _, eng := range []string{"cel", "rego", "both"} {
				r := evaluate(t, time.Minute, "", "diff", "-R", diffBefore, newDir, "-o", "json", "--engine", eng)
				require.Equal(t, sc.expect.code, r.code, "%s: %s", eng, r.stderr)
				require.Empty(t, r.stderr, eng)
				checkDiff(t, r.stdout, sc.expect)
				reports[eng] = r.stdout
			}
			require.Equal(t, reports["cel"], reports["rego"], "the engines' reports")
			require.Equal(t, reports["cel"], reports["both"], "the report of both")
			r := evaluate(t, time.Minute, "", "diff", "-R", diffBefore, newDir, "--fail-on=changes")
			require.Equal(t, sc.expect.changes, r.code, r.stdout+r.stderr)
			r = evaluate(t, time.Minute, "", "diff", "-R", diffBefore, newDir, "--fail-on", "never", "-o", "markdown")
			require.Equal(t, 0, r.code, r.stderr)
			require.True(t, strings.HasPrefix(r.stdout, "<!-- evaluate diff -->\n"), r.stdout)
		})
	}
}

// TestDiffPositions: the report points at the changed line of the runtime
// after the change, and a removed runtime at its line before it.
func TestDiffPositions(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, diffBefore, dir)
	applyChanges(t, dir, diffScenarios[0].changes)
	r := evaluate(t, time.Minute, "", "diff", "-R", diffBefore, dir, "-o", "json")
	got := checkDiff(t, r.stdout, diffScenarios[0].expect)
	lost := got.Models[0].Lost[0]
	require.Equal(t, filepath.Join(dir, "runtimes", "vllm-mistral.yaml"), lost.File)
	require.Equal(t, 12, lost.Line, "the line of modelFramework.version")
	require.Equal(t, 12, got.InferenceServices[0].Before.Line)

	r = evaluate(t, time.Minute, "", "diff", "-R", diffBefore, dir, "-o", "github")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stdout, "::error file="+filepath.Join(dir, "runtimes", "vllm-mistral.yaml")+",line=12,title=evaluate diff%3A ClusterServingRuntime vllm-mistral::")
	require.True(t, strings.HasSuffix(r.stdout, "\n2 regressions, 2 verdict changes, 3 reason changes\n"), r.stdout)

	removed := t.TempDir()
	copyTree(t, diffBefore, removed)
	applyChanges(t, removed, diffScenarios[4].changes)
	r = evaluate(t, time.Minute, "", "diff", "-R", diffBefore, removed, "-o", "json")
	got = checkDiff(t, r.stdout, diffScenarios[4].expect)
	require.Equal(t, diff.RuntimeChange{Runtime: objects.Ref{Kind: "ServingRuntime", Namespace: "team-a", Name: "vllm-qwen"}, Change: diff.Removed,
		Position: diff.Position{File: diffBefore + "/runtimes/vllm-qwen.yaml", Line: 1}}, got.Models[0].Lost[0])
}

// TestDiffGolden holds the text, markdown and github outputs of
// testdata/diff/before against testdata/diff/after (-update rewrites them).
func TestDiffGolden(t *testing.T) {
	atRepoRoot(t)
	for _, format := range []string{"text", "json", "markdown", "github"} {
		t.Run(format, func(t *testing.T) {
			r := evaluate(t, time.Minute, "", "diff", "-R", "testdata/diff/before", "testdata/diff/after", "-o", format, "--engine", "both")
			require.Equal(t, 1, r.code, r.stderr)
			require.Empty(t, r.stderr)
			ext := map[string]string{"text": "txt", "json": "json", "markdown": "md", "github": "txt"}[format]
			golden := filepath.Join("testdata", "diff", "golden", "diff-"+format+"."+ext)
			if *update {
				require.NoError(t, os.MkdirAll(filepath.Dir(golden), 0o755))
				require.NoError(t, os.WriteFile(golden, []byte(r.stdout), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err)
			require.Equal(t, string(want), r.stdout)
		})
	}
}

// TestDiffBadInput: an object that cannot be read is reported with its
// file, line and field after the report, the others are compared, and
// the exit code is 2; so are usage errors.
func TestDiffBadInput(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, diffBefore, dir)
	applyChanges(t, dir, append([]change{{"runtimes/vllm-mistral.yaml", `version: "4.42.0"`, `version: 4.46`}}, diffScenarios[2].changes...))
	r := evaluate(t, time.Minute, "", "diff", "-R", diffBefore, dir, "-o", "json")
	require.Equal(t, 2, r.code)
	got := checkDiff(t, r.stdout, diffExpect{
		noRuntime: []string{"mistral-7b-instruct"},
		lost: map[string]string{
			"mistral-7b-instruct>vllm-mistral":    "",
			"llama-3-3-70b-instruct>sglang-llama": "model size 70B is outside supported range [1B, 50B]",
		},
		services: map[string]string{"team-b/mistral": diff.ServiceRefused},
		selected: map[string]string{"team-b/mistral": ""},
	})
	require.Len(t, got.Errors, 1)
	require.Equal(t, filepath.Join(dir, "runtimes", "vllm-mistral.yaml"), got.Errors[0].File)
	require.Equal(t, 12, got.Errors[0].Line)
	require.Equal(t, "spec.supportedModelFormats[0].modelFramework.version", got.Errors[0].Field)
	require.Contains(t, r.stderr, "vllm-mistral.yaml:12: spec.supportedModelFormats[0].modelFramework.version: must be a string")

	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"diff", diffBefore}, "give OLD and NEW"},
		{[]string{"diff", diffBefore, dir, "--fail-on", "always"}, `--fail-on: "always" is not one of regressions, changes, never`},
		{[]string{"diff", diffBefore, dir, "-o", "sarif"}, `--output: "sarif" is not one of text, json, markdown, github`},
		{[]string{"diff", "--base", "HEAD"}, "give the files of the change"},
		{[]string{"diff", "--base", "HEAD", "--cluster", "-f", dir}, "--base and --cluster"},
		{[]string{"diff", "--base", "HEAD", "-"}, "standard input (-) has no version in git"},
	} {
		r := evaluate(t, time.Minute, "", tc.args...)
		require.Equal(t, 2, r.code, "%v", tc.args)
		require.Contains(t, r.stderr, tc.msg, "%v", tc.args)
	}
	// Nothing on either side: a notice, or an error with --fail-on-empty.
	empty := t.TempDir()
	r = evaluate(t, time.Minute, "", "diff", "-R", empty, empty)
	require.Equal(t, 0, r.code)
	require.Contains(t, r.stderr, "notice: no OME objects in "+empty+", "+empty+"\n")
	r = evaluate(t, time.Minute, "", "diff", "-R", empty, empty, "--fail-on-empty")
	require.Equal(t, 2, r.code)
}

// git runs git in dir for a test.
func gitT(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %v: %s", args, out)
}

// TestDiffBase runs evaluate diff --base in a temporary git repository: a
// committed cluster, then a change in the working tree.
func TestDiffBase(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	repoDir := t.TempDir()
	gitT(t, repoDir, "init", "-q")
	copyTree(t, diffBefore, filepath.Join(repoDir, "deploy"))
	// What git archive would leave out is read all the same.
	require.NoError(t, os.WriteFile(filepath.Join(repoDir, ".gitattributes"), []byte("deploy/runtimes/vllm-mistral.yaml export-ignore\n"), 0o644))
	gitT(t, repoDir, "add", ".")
	gitT(t, repoDir, "commit", "-q", "-m", "the cluster")
	gitT(t, repoDir, "branch", "main-copy")
	sc := diffScenarios[0]
	applyChanges(t, filepath.Join(repoDir, "deploy"), sc.changes)
	t.Chdir(repoDir)

	for _, eng := range []string{"cel", "rego"} {
		r := evaluate(t, time.Minute, "", "diff", "-R", "--base", "main-copy", "deploy", "-o", "json", "--engine", eng)
		require.Equal(t, 1, r.code, r.stderr)
		got := checkDiff(t, r.stdout, sc.expect)
		require.Equal(t, diff.Position{File: "deploy/runtimes/vllm-mistral.yaml", Line: 12}, got.Models[0].Lost[0].Position)
	}
	// A folder as PATH and files with -f: the same report.
	r := evaluate(t, time.Minute, "", "diff", "--base", "HEAD", "deploy/runtimes", "-f", "deploy/models.yaml", "-f", "deploy/inferenceservices.yaml", "-o", "json")
	require.Equal(t, 1, r.code, r.stderr)
	checkDiff(t, r.stdout, sc.expect)
	// And with -m and -r, each read at HEAD and now.
	r = evaluate(t, time.Minute, "", "diff", "--base", "HEAD", "-r", "deploy/runtimes", "-m", "deploy/models.yaml", "-f", "deploy/inferenceservices.yaml", "-o", "json")
	require.Equal(t, 1, r.code, r.stderr)
	checkDiff(t, r.stdout, sc.expect)
	r = evaluate(t, time.Minute, "", "diff", "-R", "--base", "HEAD", "deploy")
	require.Contains(t, r.stdout, "HEAD:deploy -> deploy\n")

	// A runtime deleted in the working tree, and a folder that is new.
	require.NoError(t, os.Remove("deploy/runtimes/vllm-qwen.yaml"))
	require.NoError(t, os.MkdirAll("more", 0o755))
	require.NoError(t, os.WriteFile("more/fast.yaml", []byte(llamaFast), 0o644))
	r = evaluate(t, time.Minute, "", "diff", "-R", "--base", "HEAD", "deploy", "more", "-o", "json")
	require.Equal(t, 1, r.code, r.stderr)
	require.Contains(t, r.stderr, "notice: more is not in HEAD: nothing of it before the change")
	got := checkDiff(t, r.stdout, diffExpect{
		noRuntime: []string{"mistral-7b-instruct", "qwen2-7b-instruct"},
		gained:    []string{"llama-3-1-8b-instruct>vllm-llama-fast"},
		lost: map[string]string{
			"mistral-7b-instruct>vllm-mistral": sc.expect.lost["mistral-7b-instruct>vllm-mistral"],
			"qwen2-7b-instruct>vllm-qwen":      "",
		},
		services: map[string]string{"team-b/mistral": diff.ServiceRefused, "team-a/qwen": diff.ServiceRefused, "team-a/chat": diff.ServiceRuntime},
		selected: map[string]string{"team-b/mistral": "", "team-a/qwen": "", "team-a/chat": "vllm-llama-fast"},
	})
	require.Equal(t, diff.Position{File: "deploy/runtimes/vllm-qwen.yaml", Line: 1}, got.Models[1].Lost[0].Position, "a removed runtime, where it was")

	// A bad object at the base is named REF:PATH.
	require.NoError(t, os.WriteFile("deploy/runtimes/vllm-mistral.yaml", []byte(strings.Replace(llamaFast, "priority: 2", "priority: high", 1)), 0o644))
	gitT(t, repoDir, "commit", "-q", "-a", "-m", "a bad runtime")
	r = evaluate(t, time.Minute, "", "diff", "--base", "HEAD", "deploy/runtimes")
	require.Equal(t, 2, r.code)
	require.Contains(t, r.stderr, "evaluate: HEAD:deploy/runtimes/vllm-mistral.yaml:15: spec.supportedModelFormats[0].priority: ")

	// Errors: no such commit; a path outside any repository.
	r = evaluate(t, time.Minute, "", "diff", "-R", "--base", "no-such-branch", "deploy")
	require.Equal(t, 2, r.code)
	require.Contains(t, r.stderr, `evaluate: --base no-such-branch: no commit "no-such-branch" in the repository at `)
	outside := t.TempDir()
	r = evaluate(t, time.Minute, "", "diff", "--base", "HEAD", outside)
	require.Equal(t, 2, r.code)
	require.Contains(t, r.stderr, "evaluate: --base HEAD: "+outside+" is not in a git repository")
}

// diff --rules: a finding of a team's rule that a change makes is listed,
// and an error is a regression (exit 1) where OME's decisions alone give
// none; the finding the reverse change clears is listed, and no
// regression. A rule over OME's decisions judges each side by its own.
func TestDiffTeamRules(t *testing.T) {
	old, new := filepath.Join(t.TempDir(), "old"), filepath.Join(t.TempDir(), "new")
	copyTree(t, diffBefore, old)
	copyTree(t, diffBefore, new)
	applyChanges(t, new, []change{{"runtimes/vllm-mistral.yaml", "  modelSizeRange:\n    min: 5B\n    max: 10B\n", ""}})

	plain := evaluate(t, time.Minute, "", "diff", "-R", old, new)
	require.Equal(t, 0, plain.code, "without --rules the change is no regression: %s%s", plain.stdout, plain.stderr)
	require.NotContains(t, evaluate(t, time.Minute, "", "diff", "-R", "-o", "json", old, new).stdout, `"rules"`)

	made := evaluate(t, time.Minute, "", "diff", "-R", "--rules", companyRules, old, new)
	require.Equal(t, 1, made.code, made.stderr)
	require.Contains(t, made.stdout, "\nErrors of --rules that the change makes:\n  ClusterServingRuntime vllm-mistral\n"+
		"    + company.runtime_size_range (error, "+filepath.Join(new, "runtimes/vllm-mistral.yaml")+":5): spec: ClusterServingRuntime vllm-mistral declares no modelSizeRange: say which model sizes it serves\n")
	require.Contains(t, made.stdout, "1 regression, ")
	require.Contains(t, made.stdout, ", 1 finding of --rules made, 0 cleared;")
	require.Equal(t, 0, evaluate(t, time.Minute, "", "diff", "-R", "--rules", companyRules, "--fail-on", "never", old, new).code)

	js := evaluate(t, time.Minute, "", "diff", "-R", "--rules", companyRules, "-o", "json", old, new)
	require.Equal(t, 1, js.code, js.stderr)
	got := checkDiff(t, js.stdout, diffExpect{unmoved: []string{"changed ClusterServingRuntime/vllm-mistral"}})
	require.Len(t, got.Rules, 1, js.stdout)
	rc := got.Rules[0]
	require.Equal(t, []any{"company.runtime_size_range", "error", "vllm-mistral", diff.RuleFires, true},
		[]any{rc.Rule, rc.Severity, rc.Object.Name, rc.Change, rc.Regression})
	require.Equal(t, 1, got.Summary.Regressions)

	cleared := evaluate(t, time.Minute, "", "diff", "-R", "--rules", companyRules, "-o", "markdown", new, old)
	require.Equal(t, 0, cleared.code, cleared.stdout+cleared.stderr)
	require.Contains(t, cleared.stdout, "| Findings of --rules cleared | 1 |")
	require.Contains(t, cleared.stdout, "| `ClusterServingRuntime vllm-mistral` | `company.runtime_size_range` | error | cleared: spec: ")

	// A rule over OME's decisions: srt-llama stops serving llama-3-2-3b,
	// which prod then serves with one runtime only.
	prod := evaluate(t, time.Minute, "", "diff", "--rules", companyRules, "-o", "github", at("testdata/rules/prod.yaml"), at("testdata/rules/prod-shrunk.yaml"))
	require.Equal(t, 1, prod.code, prod.stdout+prod.stderr)
	require.Contains(t, prod.stdout, "company.prod_redundancy now fires (error): metadata.namespace: BaseModel prod/llama-3-2-3b is served by 1 runtime(s)")
	require.NotContains(t, prod.stdout, "mistral-7b is served", "a finding on both sides is no change")

	// An upgrade of OME judges the same objects: the rules' findings are
	// the same on both sides.
	up := evaluate(t, time.Minute, "", "diff", "-R", "--rules", companyRules, "--ome-version", "v0.1.5", "--to-ome-version", "v1.2.2", "-o", "json", new)
	var upgrade diffJSON
	require.NoError(t, json.Unmarshal([]byte(up.stdout), &upgrade), up.stdout+up.stderr)
	require.NotNil(t, upgrade.Rules, "the report says the rules ran")
	require.Empty(t, upgrade.Rules)

	bad := evaluate(t, time.Minute, "", "diff", "-R", "--rules", at("testdata/bad/rules"), old, new)
	require.Equal(t, 2, bad.code)
	require.Contains(t, bad.stderr, "testdata/bad/rules/")
	require.Empty(t, bad.stdout, "nothing is compared as if a bad rule were absent")
}
