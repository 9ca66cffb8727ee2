package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// linkTo makes a symbolic link at link to target.
func linkTo(t *testing.T, target, link string) string {
	t.Helper()
	if strings.HasPrefix(target, repo) {
		abs, err := filepath.Abs(target)
		require.NoError(t, err)
		target = abs
	}
	require.NoError(t, os.Symlink(target, link))
	return link
}

// copyFiles copies the files of folder from into to (made if need be).
func copyFiles(t *testing.T, from, to string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(to, 0o755))
	entries, err := os.ReadDir(from)
	require.NoError(t, err)
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(from, e.Name()))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(to, e.Name()), data, 0o644))
	}
}

// A link given as a path, to a folder (with or without a trailing slash)
// or to a file, is read as what it points to, as kubectl reads it.
func TestLinkGivenIsReadAsItsTarget(t *testing.T) {
	dir := t.TempDir()
	folder := linkTo(t, exRuntimes, filepath.Join(dir, "rts-link"))
	file := linkTo(t, filepath.Join(exRuntimes, "vllm-llama-3-2-3b-instruct.yaml"), filepath.Join(dir, "rt.yaml"))
	want := evaluate(t, time.Minute, "", "match", "-m", exModels, "-r", exRuntimes)
	require.Equal(t, 0, want.code, want.stderr)
	for _, tc := range []struct {
		name, path string
		lint       string // the last line of lint
	}{
		{"folder", folder, "4 object(s): 0 error(s), 1 warning(s), 0 info"},
		{"folder/", folder + "/", "4 object(s): 0 error(s), 1 warning(s), 0 info"},
		{"file", file, "1 object(s): 0 error(s), 1 warning(s), 0 info"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := evaluate(t, time.Minute, "", "lint", tc.path)
			require.Equal(t, 0, r.code, r.stdout+r.stderr)
			require.Equal(t, tc.lint, lastLine(r.stdout))
			require.Empty(t, r.stderr)
			if tc.name == "file" {
				return
			}
			r = evaluate(t, time.Minute, "", "match", "-m", exModels, "-r", tc.path)
			require.Equal(t, 0, r.code, r.stderr)
			require.Equal(t, want.stdout, strings.ReplaceAll(r.stdout, filepath.Clean(tc.path), exRuntimes))
		})
	}
}

// -R follows a link to a folder, and names a link that leads back to a
// folder already read (a loop) once, without walking it.
func TestRecursiveFollowsLinkedFolders(t *testing.T) {
	dir := t.TempDir()
	tree := filepath.Join(dir, "tree")
	copyFiles(t, exModels, tree)
	linkTo(t, exRuntimes, filepath.Join(tree, "runtimes"))
	require.NoError(t, os.MkdirAll(filepath.Join(tree, "sub"), 0o755))
	loop := linkTo(t, "..", filepath.Join(tree, "sub", "back"))
	r := evaluate(t, time.Minute, "", "match", "-R", tree)
	require.Equal(t, 0, r.code, r.stderr)
	want := evaluate(t, time.Minute, "", "match", "-m", exModels, "-r", exRuntimes)
	require.Equal(t, lastLine(want.stdout), lastLine(r.stdout))
	require.Equal(t, "notice: "+loop+" leads to "+tree+", a folder already read (a link loop, or a second way to it): not walked again\n", r.stderr)
}

// A mounted ConfigMap or Secret holds its files in ..<timestamp>, reached
// through the link ..data, and each file as a link into ..data: every
// object is read once, and the ".." folders are neither walked nor named
// as folders left unread.
func TestMountedConfigMapIsReadOnce(t *testing.T) {
	dir := t.TempDir()
	stamp := "..2026_12_06_01_02_03.4567"
	copyFiles(t, exRuntimes, filepath.Join(dir, stamp))
	linkTo(t, stamp, filepath.Join(dir, "..data"))
	entries, err := os.ReadDir(exRuntimes)
	require.NoError(t, err)
	for _, e := range entries {
		linkTo(t, filepath.Join("..data", e.Name()), filepath.Join(dir, e.Name()))
	}
	for _, args := range [][]string{{"lint", dir}, {"lint", "-R", dir}} {
		r := evaluate(t, time.Minute, "", args...)
		require.Equal(t, 0, r.code, r.stderr)
		require.Equal(t, "4 object(s): 0 error(s), 1 warning(s), 0 info", lastLine(r.stdout), args)
		require.NotContains(t, r.stdout, "duplicate-name")
		require.Empty(t, r.stderr, args)
	}
}

// Each path given from which nothing is read is named; --fail-on-empty
// makes it exit 2.
func TestPathGivenAndNotReadIsNamed(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	nested := filepath.Join(dir, "nested")
	copyFiles(t, exRuntimes, filepath.Join(nested, "team"))
	require.NoError(t, os.MkdirAll(empty, 0o755))
	r := evaluate(t, time.Minute, "", "lint", exRuntimes, empty, nested)
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, "notice: 1 folder(s) inside the folders given were not read ("+filepath.Join(nested, "team")+"); -R reads them\n"+
		"notice: "+empty+": no OME object read from it\n"+
		"notice: "+nested+": no OME object read from it; the 1 folder(s) inside it are read with -R\n", r.stderr)

	// lint says input problems among its findings.
	r = evaluate(t, time.Minute, "", "lint", "--fail-on-empty", exRuntimes, empty)
	require.Equal(t, 2, r.code, r.stderr)
	require.Contains(t, r.stdout, empty+": error [input-error] no OME object read from it (--fail-on-empty)\n")
	require.Equal(t, "4 object(s): 1 error(s), 1 warning(s), 0 info", lastLine(r.stdout))

	r = evaluate(t, time.Minute, "", "match", "--fail-on-empty", "-m", exModels, "-r", exRuntimes, "-r", empty)
	require.Equal(t, 2, r.code, r.stderr)
	require.Equal(t, "evaluate: "+empty+": no OME object read from it (--fail-on-empty)\n", r.stderr)
}

// diff reads whole sides: a folder inside OLD or NEW left unread (no -R)
// is a problem, exit 2, rather than a notice beside "No decision changed"
// and exit 0.
func TestDiffReadsWholeSides(t *testing.T) {
	dir := t.TempDir()
	old, new := filepath.Join(dir, "old"), filepath.Join(dir, "new")
	for _, side := range []string{old, new} {
		copyFiles(t, exModels, filepath.Join(side, "team"))
		copyFiles(t, exRuntimes, filepath.Join(side, "team"))
	}
	r := evaluate(t, time.Minute, "", "diff", old, new)
	require.Equal(t, 2, r.code, r.stderr)
	require.Equal(t, "evaluate: "+filepath.Join(old, "team")+": a folder inside a folder given, not read: -R reads it\n"+
		"evaluate: "+filepath.Join(new, "team")+": a folder inside a folder given, not read: -R reads it\n", r.stderr)
	r = evaluate(t, time.Minute, "", "diff", "-R", old, new)
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "No decision changed")

	// The same with objects beside the folders.
	r = evaluate(t, time.Minute, "", "diff", at("testdata/diff/before"), at("testdata/diff/after"))
	require.Equal(t, 2, r.code, r.stderr)
	require.Contains(t, r.stderr, "evaluate: "+at("testdata/diff/before/runtimes")+": a folder inside a folder given, not read: -R reads it\n")

	// Nothing on one side: a notice (every object of the other side is
	// removed), or exit 2 with --fail-on-empty.
	none := filepath.Join(dir, "none")
	require.NoError(t, os.MkdirAll(none, 0o755))
	r = evaluate(t, time.Minute, "", "diff", filepath.Join(old, "team"), none)
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, "notice: "+none+": no OME object read from it\n", r.stderr)
	r = evaluate(t, time.Minute, "", "diff", "--fail-on-empty", filepath.Join(old, "team"), none)
	require.Equal(t, 2, r.code, r.stderr)
	require.Equal(t, "evaluate: "+none+": no OME object read from it (--fail-on-empty)\n", r.stderr)
}

// Every command that reads objects takes -m and -r, models only and
// runtimes only. diff takes them where it takes -f (--base, --cluster,
// --to-ome-version); OLD and NEW are each a whole side, so -f, -m and -r
// with them are refused, saying so.
func TestEveryCommandTakesModelsAndRuntimes(t *testing.T) {
	for _, command := range [][]string{{"match"}, {"select"}, {"explain"}, {"lint"}, {"report"}, {"diff"}, {"gatekeeper", "violations"}} {
		r := evaluate(t, time.Minute, "", append(command, "--help")...)
		require.Contains(t, r.stdout, "  -m, --models stringArray ", command)
		require.Contains(t, r.stdout, "  -r, --runtimes stringArray ", command)
	}
	paths := evaluate(t, time.Minute, "", "gatekeeper", "violations", "--severities", "error,warning", exModels, exRuntimes)
	apart := evaluate(t, time.Minute, "", "gatekeeper", "violations", "--severities", "error,warning", "-m", exModels, "-r", exRuntimes)
	require.Equal(t, 1, apart.code, apart.stderr)
	require.Equal(t, paths.stdout, apart.stdout)

	upgrade := func(args ...string) result {
		return evaluate(t, 2*time.Minute, "", append([]string{"diff", "--ome-version", "v0.1.5", "--to-ome-version", "v1.2.2"}, args...)...)
	}
	want := upgrade(at("testdata/examples/upgrade"))
	require.Equal(t, 1, want.code, want.stderr)
	models, runtimes, services := at("testdata/examples/upgrade/models.yaml"), at("testdata/examples/upgrade/runtimes.yaml"), at("testdata/examples/upgrade/inferenceservices.yaml")
	got := upgrade("-m", models, "-r", runtimes, "-f", services)
	require.Equal(t, 1, got.code, got.stderr)
	label := strings.Join([]string{services, models, runtimes}, ", ")
	require.Equal(t, want.stdout, strings.ReplaceAll(got.stdout, label, at("testdata/examples/upgrade")))

	got = upgrade("-m", runtimes, "-f", services)
	require.Equal(t, 2, got.code)
	require.Contains(t, got.stderr, "is not a model; -m takes models (-f takes any mix)")

	r := evaluate(t, time.Minute, "", "diff", "-m", exModels, diffBefore, diffBefore)
	require.Equal(t, 2, r.code)
	require.Equal(t, "evaluate: OLD and NEW are each a whole side: -f, -m and -r go with --base, --cluster and --to-ome-version\n", r.stderr)
}
