package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// hook is an entry of .pre-commit-hooks.yaml, as pre-commit reads it.
type hook struct {
	ID            string `yaml:"id"`
	Entry         string `yaml:"entry"`
	Language      string `yaml:"language"`
	Files         string `yaml:"files"`
	PassFilenames *bool  `yaml:"pass_filenames"`
}

// TestPreCommitHooks runs each hook's entry as pre-commit would, at the
// repository's root: with the files as arguments (or, with pass_filenames:
// false, its args alone), and checks the exit codes.
func TestPreCommitHooks(t *testing.T) {
	atRepoRoot(t)
	data, err := os.ReadFile(".pre-commit-hooks.yaml")
	require.NoError(t, err)
	var hooks []hook
	require.NoError(t, yaml.Unmarshal(data, &hooks))

	type run struct {
		args, files []string
		code        int
	}
	clean, err := filepath.Glob("testdata/lint/clean/*.yaml")
	require.NoError(t, err)
	require.NotEmpty(t, clean)
	runs := map[string][]run{
		"evaluate-lint": {
			{files: clean, code: 0},
			{files: []string{"testdata/lint/bad/unknown-operator.yaml", "testdata/lint/bad/empty-version.yaml"}, code: 1},
			{files: []string{"testdata/bad/invalid-yaml.yaml"}, code: 2},
			{files: []string{"README.md.yaml-not-there"}, code: 2},
		},
		"evaluate-match": {
			{args: []string{"-m", "testdata/examples/models", "-r", "testdata/examples/runtimes"}, code: 0},
			{args: []string{"-m", "testdata/bad/unserved-model.yaml", "-r", "testdata/examples/runtimes"}, code: 1},
		},
	}
	require.Len(t, hooks, len(runs), "every hook has runs in this test")
	for _, h := range hooks {
		t.Run(h.ID, func(t *testing.T) {
			rs, ok := runs[h.ID]
			require.True(t, ok, "hook %s has no runs in this test", h.ID)
			require.Equal(t, "golang", h.Language)
			files := regexp.MustCompile(h.Files)
			require.True(t, files.MatchString("deploy/runtimes/a.yaml") && files.MatchString("m.json"))
			require.False(t, files.MatchString("main.go"))
			entry := strings.Fields(h.Entry)
			require.Equal(t, "evaluate", entry[0])
			for _, r := range rs {
				args := append(append([]string{}, entry[1:]...), r.args...)
				if h.PassFilenames == nil || *h.PassFilenames {
					args = append(args, r.files...)
				}
				var out bytes.Buffer
				code := runInProcess(t, args, &out, &out)
				require.Equal(t, r.code, code, "evaluate %s\n%s", strings.Join(args, " "), out.String())
			}
		})
	}
}

// ciWorkflow is a GitHub Actions workflow, as far as the tests read it.
type ciWorkflow struct {
	Env  map[string]string `yaml:"env"`
	Jobs map[string]struct {
		Steps []struct {
			Name string `yaml:"name"`
			Run  string `yaml:"run"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

// TestCIWorkflow runs the evaluate commands of docs/ci.md's workflows on the
// examples (their paths replaced by theirs), in a git repository of their
// own whose origin/main is the same tree: each exits 0, the SARIF file is
// SARIF and the diff's markdown is a pull request's comment.
func TestCIWorkflow(t *testing.T) {
	atRepoRoot(t)
	data, err := os.ReadFile("docs/ci.md")
	require.NoError(t, err)
	var workflows []ciWorkflow
	for _, f := range fences(strings.Split(string(data), "\n")) {
		if f.lang == "yaml" && strings.Contains(strings.Join(f.lines, "\n"), "\njobs:") {
			var w ciWorkflow
			require.NoError(t, yaml.Unmarshal([]byte(strings.Join(f.lines, "\n")), &w))
			workflows = append(workflows, w)
		}
	}
	require.Len(t, workflows, 2, "docs/ci.md's workflows: the checks, and the pull request's diff")
	repoDir := t.TempDir()
	for _, p := range []string{"testdata/examples/models", "testdata/examples/runtimes"} {
		copyTree(t, p, filepath.Join(repoDir, p))
	}
	gitT(t, repoDir, "init", "-q")
	gitT(t, repoDir, "add", ".")
	gitT(t, repoDir, "commit", "-q", "-m", "examples")
	gitT(t, repoDir, "update-ref", "refs/remotes/origin/main", "HEAD")
	t.Chdir(repoDir)
	env := map[string]string{"OME_MODELS": "testdata/examples/models", "OME_RUNTIMES": "testdata/examples/runtimes", "GITHUB_BASE_REF": "main"}
	dir := t.TempDir()
	ran, diffs := 0, 0
	for _, workflow := range workflows {
		for _, k := range []string{"OME_MODELS", "OME_RUNTIMES"} {
			require.Contains(t, workflow.Env, k)
		}
		for _, job := range workflow.Jobs {
			for _, step := range job.Steps {
				line := strings.TrimSpace(step.Run)
				if !strings.HasPrefix(line, "evaluate ") {
					continue
				}
				line = os.Expand(line, func(k string) string { return env[k] })
				line, redirect, _ := strings.Cut(line, " > ")
				words, err := shellWords(line)
				require.NoError(t, err)
				if words[1] == "diff" {
					diffs++
				}
				var out, errOut bytes.Buffer
				code := runInProcess(t, words[1:], &out, &errOut)
				require.Equal(t, 0, code, "%s: %s\n%s", step.Name, line, errOut.String())
				switch redirect = strings.TrimSpace(redirect); {
				case redirect == "":
				case strings.HasSuffix(redirect, ".sarif"):
					require.NoError(t, os.WriteFile(filepath.Join(dir, filepath.Base(redirect)), out.Bytes(), 0o644))
					var sarif struct {
						Version string `json:"version"`
						Runs    []any  `json:"runs"`
					}
					require.NoError(t, json.Unmarshal(out.Bytes(), &sarif), step.Name)
					require.Equal(t, "2.1.0", sarif.Version)
					require.Len(t, sarif.Runs, 1)
				case strings.HasSuffix(redirect, ".md"):
					require.True(t, strings.HasPrefix(out.String(), "<!-- evaluate diff -->\n"), out.String())
					require.Contains(t, out.String(), "No decision changes.")
				default:
					t.Fatalf("%s: a redirect to %s, which this test does not check", step.Name, redirect)
				}
				ran++
			}
		}
	}
	require.GreaterOrEqual(t, ran, 4, "the workflows' evaluate steps")
	require.Equal(t, 2, diffs, "the diff steps")
}
