package main

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

// TestSnapshot builds the release of HEAD for linux/amd64 alone, as `make
// release` builds every platform, and checks what a user gets: the
// archive's files and dates, its binary's version and commit, checksums.txt,
// the SBOM, the bundles of every OME release, the krew manifest on krew's
// own validation and install, and scripts/install.sh (the CI action's)
// from the release served over HTTP and from a file URL.
func TestSnapshot(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a release")
	}
	dist := filepath.Join(t.TempDir(), "dist")
	var log bytes.Buffer
	start := time.Now()
	src, err := release(config{Repo: "../..", Dist: dist, Platforms: []string{"linux/amd64"}, Log: &log})
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	t.Logf("release %s in %s:\n%s", src.Version, time.Since(start).Round(time.Second), log.String())
	if !regexp.MustCompile(`^v\d+\.\d+\.\d+(-SNAPSHOT-[0-9a-f]{7})?$`).MatchString(src.Version) {
		t.Errorf("version %q", src.Version)
	}
	base := "evaluate_" + strings.TrimPrefix(src.Version, "v") + "_linux_amd64"
	archive := base + ".tar.gz"

	t.Run("checksums", func(t *testing.T) {
		sums := readChecksums(t, dist)
		var want []string
		entries, err := os.ReadDir(dist)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if !e.IsDir() && e.Name() != "checksums.txt" {
				want = append(want, e.Name())
			}
		}
		if got := slices.Sorted(maps.Keys(sums)); !slices.Equal(got, want) {
			t.Errorf("checksums.txt names %v, dist holds %v", got, want)
		}
		for name, sum := range sums {
			if got, err := fileSHA256(filepath.Join(dist, name)); err != nil || got != sum {
				t.Errorf("%s: sha256 %s (%v), checksums.txt says %s", name, got, err, sum)
			}
		}
		if _, err := exec.LookPath("sha256sum"); err == nil {
			cmd := exec.Command("sha256sum", "--strict", "-c", "checksums.txt")
			cmd.Dir = dist
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("sha256sum -c: %v\n%s", err, out)
			}
		}
	})

	t.Run("archive", func(t *testing.T) {
		files := readTarGz(t, filepath.Join(dist, archive))
		var names []string
		for _, f := range files {
			names = append(names, f.hdr.Name)
			if !f.hdr.ModTime.Equal(src.Time) || f.hdr.Uid != 0 || f.hdr.Gid != 0 {
				t.Errorf("%s: dated %s (owner %d:%d), want the commit's %s, root", f.hdr.Name, f.hdr.ModTime, f.hdr.Uid, f.hdr.Gid, src.Time)
			}
		}
		if want := []string{"evaluate", "LICENSE", "NOTICE", "README.md"}; !slices.Equal(names, want) {
			t.Fatalf("archive holds %v, want %v", names, want)
		}
		if files[0].hdr.Mode != 0o755 {
			t.Errorf("evaluate's mode %o", files[0].hdr.Mode)
		}
		for _, f := range files[1:] {
			if disk, err := os.ReadFile(filepath.Join("../..", f.hdr.Name)); err != nil || !bytes.Equal(disk, f.data) {
				t.Errorf("%s differs from the repository's (%v)", f.hdr.Name, err)
			}
		}
		bin := filepath.Join(t.TempDir(), "evaluate")
		if err := os.WriteFile(bin, files[0].data, 0o755); err != nil {
			t.Fatal(err)
		}
		checkBinary(t, bin, src)
	})

	t.Run("sbom", func(t *testing.T) {
		data, err := os.ReadFile(filepath.Join(dist, base+".sbom.cdx.json"))
		if err != nil {
			t.Fatal(err)
		}
		var bom struct {
			BOMFormat    string `json:"bomFormat"`
			SpecVersion  string `json:"specVersion"`
			SerialNumber string `json:"serialNumber"`
			Metadata     struct {
				Timestamp string `json:"timestamp"`
				Component struct {
					Name    string `json:"name"`
					Version string `json:"version"`
					PURL    string `json:"purl"`
				} `json:"component"`
			} `json:"metadata"`
			Components []struct {
				Name    string `json:"name"`
				Version string `json:"version"`
				PURL    string `json:"purl"`
			} `json:"components"`
		}
		if err := json.Unmarshal(data, &bom); err != nil {
			t.Fatal(err)
		}
		if bom.BOMFormat != "CycloneDX" || bom.SpecVersion == "" || !strings.HasPrefix(bom.SerialNumber, "urn:uuid:") || bom.Metadata.Timestamp != "" {
			t.Errorf("format %q %q, serial %q, timestamp %q", bom.BOMFormat, bom.SpecVersion, bom.SerialNumber, bom.Metadata.Timestamp)
		}
		c := bom.Metadata.Component
		if c.Name != "github.com/ome-policy/evaluator" || c.Version != src.Version || !strings.Contains(c.PURL, "@"+src.Version) {
			t.Errorf("metadata.component %+v, want the module at %s", c, src.Version)
		}
		got := map[string]string{}
		for _, c := range bom.Components {
			got[c.Name] = c.Version
			if !strings.Contains(c.PURL, "goos=linux") || !strings.Contains(c.PURL, "goarch=amd64") {
				t.Errorf("%s: purl %s is not linux/amd64's", c.Name, c.PURL)
			}
		}
		// The binary's modules, at the versions the main module requires;
		// those of the tests alone are not in it.
		testOnly := map[string]bool{"github.com/chromedp/chromedp": true, "github.com/chromedp/cdproto": true, "github.com/stretchr/testify": true}
		for path, version := range requires(t, "../../go.mod") {
			if want := version; testOnly[path] {
				want = ""
			} else if got[path] != want {
				t.Errorf("SBOM: %s %q, go.mod requires %s", path, got[path], version)
			}
			if testOnly[path] && got[path] != "" {
				t.Errorf("SBOM: %s %s, which only the tests use", path, got[path])
			}
		}
	})

	t.Run("bundles", func(t *testing.T) {
		out, err := exec.Command(filepath.Join(dist, "build", "linux_amd64", "evaluate"), "version", "-o", "json").Output()
		if err != nil {
			t.Fatal(err)
		}
		var v struct {
			OMEReleases []string `json:"omeReleases"`
		}
		if err := json.Unmarshal(out, &v); err != nil || len(v.OMEReleases) == 0 {
			t.Fatalf("omeReleases %v (%v)", v.OMEReleases, err)
		}
		for _, r := range v.OMEReleases {
			name := fmt.Sprintf("evaluate_%s_bundles_ome-%s.tar.gz", strings.TrimPrefix(src.Version, "v"), r)
			seen := map[string]bool{}
			for _, f := range readTarGz(t, filepath.Join(dist, name)) {
				parts := strings.SplitN(f.hdr.Name, "/", 3)
				if parts[0] != "ome-"+r {
					t.Errorf("%s: %s outside ome-%s/", name, f.hdr.Name, r)
				}
				if len(parts) == 3 && f.hdr.Typeflag == tar.TypeReg {
					seen[parts[1]] = true
					if strings.HasSuffix(f.hdr.Name, ".yaml") && !bytes.Contains(f.data, []byte(r)) && strings.Contains(f.hdr.Name, "template") {
						t.Errorf("%s: %s does not name OME %s", name, f.hdr.Name, r)
					}
				}
			}
			for _, d := range []string{"gatekeeper", "kubernetes", "kyverno"} {
				if !seen[d] {
					t.Errorf("%s holds no %s/ files", name, d)
				}
			}
		}
	})

	t.Run("image", func(t *testing.T) {
		// The OCI layout's linux/amd64 image, followed from index.json as
		// a runtime follows it; its entrypoint, run from its layer.
		layout := t.TempDir()
		for _, f := range readTar(t, filepath.Join(dist, "evaluate_"+trimV(src.Version)+"_oci.tar"), false) {
			if f.hdr.Typeflag != tar.TypeReg {
				continue
			}
			p := filepath.Join(layout, filepath.FromSlash(f.hdr.Name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, f.data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		blob := func(d descriptor) []byte {
			t.Helper()
			data, err := os.ReadFile(filepath.Join(layout, "blobs", "sha256", strings.TrimPrefix(d.Digest, "sha256:")))
			if err != nil {
				t.Fatal(err)
			}
			if sum := sha256.Sum256(data); "sha256:"+hex.EncodeToString(sum[:]) != d.Digest || int64(len(data)) != d.Size {
				t.Fatalf("blob %s: its content's digest or size differs", d.Digest)
			}
			return data
		}
		var index struct{ Manifests []descriptor }
		data, err := os.ReadFile(filepath.Join(layout, "index.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &index); err != nil || len(index.Manifests) != 1 {
			t.Fatalf("index.json: %v, %d manifests (one per Linux build)", err, len(index.Manifests))
		}
		m := index.Manifests[0]
		if m.Platform == nil || *m.Platform != (imagePlatform{Architecture: "amd64", OS: "linux"}) || m.Annotations["org.opencontainers.image.ref.name"] != src.Version {
			t.Errorf("index.json's manifest: %+v", m)
		}
		var manifest struct {
			Config descriptor
			Layers []descriptor
		}
		if err := json.Unmarshal(blob(m), &manifest); err != nil || len(manifest.Layers) != 1 {
			t.Fatalf("manifest: %v, %d layers", err, len(manifest.Layers))
		}
		var cfg imageConfig
		if err := json.Unmarshal(blob(manifest.Config), &cfg); err != nil {
			t.Fatal(err)
		}
		if cfg.Config.Labels["org.opencontainers.image.revision"] != src.Revision || len(cfg.Config.Entrypoint) != 1 {
			t.Errorf("config: %+v", cfg.Config)
		}
		layer := filepath.Join(t.TempDir(), "layer.tar.gz")
		if err := os.WriteFile(layer, blob(manifest.Layers[0]), 0o644); err != nil {
			t.Fatal(err)
		}
		var entry []byte
		for _, f := range readTarGz(t, layer) {
			if "/"+f.hdr.Name == cfg.Config.Entrypoint[0] {
				entry = f.data
			}
		}
		if entry == nil {
			t.Fatalf("the layer holds no %s", cfg.Config.Entrypoint[0])
		}
		bin := filepath.Join(t.TempDir(), "evaluate")
		if err := os.WriteFile(bin, entry, 0o755); err != nil {
			t.Fatal(err)
		}
		checkBinary(t, bin, src)
	})

	t.Run("changelog", func(t *testing.T) {
		data, err := os.ReadFile(filepath.Join(dist, "CHANGELOG.md"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(data), "# evaluate "+src.Version+"\n") || !strings.Contains(string(data), "\n## ") {
			t.Errorf("CHANGELOG.md:\n%.500s", data)
		}
	})

	t.Run("krew", func(t *testing.T) {
		manifest := filepath.Join(dist, krewManifestName)
		data, err := os.ReadFile(manifest)
		if err != nil {
			t.Fatal(err)
		}
		sum, _ := fileSHA256(filepath.Join(dist, archive))
		for _, want := range []string{"version: " + src.Version + "\n", "sha256: " + sum + "\n", "/releases/download/" + src.Version + "/" + archive + "\n"} {
			if !strings.Contains(string(data), want) {
				t.Errorf("%s lacks %q", krewManifestName, want)
			}
		}
		// krew's own validation of a manifest: its structure, platforms
		// and selectors (validate-krew-manifest installs from the
		// manifest's URLs, unpublished here, so that part is krew install
		// from the archive below).
		goTool(t, nil, "validate-krew-manifest", "-manifest", manifest, "-skip-install")
		// krew install of the archive: the checksum, the files, the bin.
		root := t.TempDir()
		env := []string{"KREW_ROOT=" + root, "KREW_OS=linux", "KREW_ARCH=amd64"}
		goTool(t, env, "krew", "install", "--manifest", manifest, "--archive", filepath.Join(dist, archive))
		if _, err := os.Stat(filepath.Join(root, "store", "evaluate", src.Version, "LICENSE")); err != nil {
			t.Errorf("krew install left no LICENSE: %v", err)
		}
		checkBinary(t, filepath.Join(root, "bin", "kubectl-evaluate"), src)
	})

	t.Run("install.sh", func(t *testing.T) {
		srv := httptest.NewServer(http.FileServer(http.Dir(dist)))
		defer srv.Close()
		for _, url := range []string{srv.URL, "file://" + dist} {
			dir := t.TempDir()
			out := installScript(t, url, dir, src.Version)
			if want := filepath.Join(dir, "evaluate"); out != want {
				t.Errorf("%s: install.sh says %q, want %q", url, out, want)
			}
			checkBinary(t, filepath.Join(dir, "evaluate"), src)
		}
		// The action: it installs, puts the folder on the PATH, and runs
		// evaluate with the arguments given.
		out := runAction(t, map[string]string{"version": src.Version, "base-url": srv.URL})
		if !strings.Contains(out, "evaluate "+src.Version+" (revision "+src.Revision+")") {
			t.Errorf("the action's install step printed:\n%s", out)
		}
		examples := mustAbs(t, "../../testdata/examples")
		out = runAction(t, map[string]string{"version": src.Version, "base-url": "file://" + dist,
			"args": "match -m '" + examples + "/models' -r \"" + examples + "/runtimes\" -o json"})
		if !strings.Contains(out, `"omeVersion"`) {
			t.Errorf("the action's evaluate step printed:\n%s", out)
		}
		// A checksum that does not match: nothing installed.
		bad := t.TempDir()
		for _, n := range []string{archive, "checksums.txt"} {
			data, err := os.ReadFile(filepath.Join(dist, n))
			if err != nil {
				t.Fatal(err)
			}
			if n == archive {
				data = append(data, 0)
			}
			if err := os.WriteFile(filepath.Join(bad, n), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		dir := t.TempDir()
		cmd := exec.Command("bash", "../../scripts/install.sh", "--version", src.Version, "--base-url", "file://"+bad, "--dir", dir)
		cmd.Env = append(os.Environ(), "EVALUATE_OS=linux", "EVALUATE_ARCH=amd64")
		refused, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(refused), "sha256") {
			t.Errorf("install.sh of a changed archive: %v\n%s", err, refused)
		}
		if _, err := os.Stat(filepath.Join(dir, "evaluate")); err == nil {
			t.Error("install.sh installed a changed archive")
		}
	})
}

// runAction runs action.yml's steps as a runner would on linux/amd64,
// with the inputs given and the release's assets at baseURL; it returns
// what the steps printed.
func runAction(t *testing.T, inputs map[string]string) string {
	t.Helper()
	data, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var action struct {
		Inputs map[string]struct {
			Default string `json:"default"`
		} `json:"inputs"`
		Runs struct {
			Using string `json:"using"`
			Steps []struct {
				ID    string            `json:"id"`
				If    string            `json:"if"`
				Shell string            `json:"shell"`
				Env   map[string]string `json:"env"`
				Run   string            `json:"run"`
			} `json:"steps"`
		} `json:"runs"`
	}
	if err := yaml.Unmarshal(data, &action); err != nil {
		t.Fatal(err)
	}
	if action.Runs.Using != "composite" {
		t.Fatalf("action.yml runs %q", action.Runs.Using)
	}
	expr := map[string]string{
		"runner.os == 'Windows' && 'windows' || runner.os == 'macOS' && 'darwin' || 'linux'": "linux",
		"runner.arch == 'ARM64' && 'arm64' || 'amd64'":                                       "amd64",
	}
	for name, in := range action.Inputs {
		v, ok := inputs[name]
		if !ok {
			v = in.Default
		}
		expr["inputs."+name] = v
	}
	work := t.TempDir()
	ghPath, ghOutput := filepath.Join(work, "path"), filepath.Join(work, "output")
	var out bytes.Buffer
	exprRE := regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)
	eval := func(s string) string {
		return exprRE.ReplaceAllStringFunc(s, func(m string) string {
			e := exprRE.FindStringSubmatch(m)[1]
			v, ok := expr[e]
			if !ok {
				t.Fatalf("action.yml: an expression this test does not know: %s", e)
			}
			return v
		})
	}
	for _, step := range action.Runs.Steps {
		if step.If == "inputs.args != ''" && expr["inputs.args"] == "" {
			continue
		} else if step.If != "" && step.If != "inputs.args != ''" {
			t.Fatalf("action.yml: a condition this test does not know: %s", step.If)
		}
		if step.Shell != "bash" {
			t.Fatalf("action.yml: step %q runs in %q", step.ID, step.Shell)
		}
		cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step.Run)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "GITHUB_ACTION_PATH="+mustAbs(t, "../.."), "RUNNER_TEMP="+work,
			"GITHUB_PATH="+ghPath, "GITHUB_OUTPUT="+ghOutput)
		for k, v := range step.Env {
			cmd.Env = append(cmd.Env, k+"="+eval(v))
		}
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("action.yml step %q: %v\n%s", step.ID, err, out.String())
		}
		if step.ID != "" {
			outputs, _ := os.ReadFile(ghOutput)
			for _, line := range strings.Split(string(outputs), "\n") {
				if k, v, ok := strings.Cut(line, "="); ok {
					expr["steps."+step.ID+".outputs."+k] = v
				}
			}
		}
	}
	path, _ := os.ReadFile(ghPath)
	if want := filepath.Join(work, "evaluate-bin") + "\n"; string(path) != want {
		t.Errorf("GITHUB_PATH: %q, want %q", path, want)
	}
	return out.String()
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	abs, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// checkBinary runs bin's version: the release's version and commit.
func checkBinary(t *testing.T, bin string, src source) {
	t.Helper()
	if err := checkVersion(bin, src); err != nil {
		t.Error(err)
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if first, _, _ := strings.Cut(string(out), "\n"); first != fmt.Sprintf("evaluate %s (revision %s)", src.Version, src.Revision) {
		t.Errorf("%s version: %q", bin, first)
	}
}

func installScript(t *testing.T, url, dir, version string) string {
	t.Helper()
	cmd := exec.Command("bash", "../../scripts/install.sh", "--version", version, "--base-url", url, "--dir", dir)
	cmd.Env = append(os.Environ(), "EVALUATE_OS=linux", "EVALUATE_ARCH=amd64")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("install.sh --base-url %s: %v\n%s", url, err, stderr.String())
	}
	return strings.TrimSpace(string(out))
}

// goTool runs a tool of this module.
func goTool(t *testing.T, env []string, args ...string) {
	t.Helper()
	cmd := exec.Command(goCommand(), append([]string{"tool"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go tool %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

type tarFile struct {
	hdr  *tar.Header
	data []byte
}

func readTarGz(t *testing.T, path string) []tarFile {
	t.Helper()
	return readTar(t, path, true)
}

func readTar(t *testing.T, path string, gzipped bool) []tarFile {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r io.Reader = f
	if gzipped {
		gz, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		r = gz
	}
	tr := tar.NewReader(r)
	var files []tarFile
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return files
		}
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, tarFile{hdr, data})
	}
}

func readChecksums(t *testing.T, dist string) map[string]string {
	t.Helper()
	f, err := os.Open(filepath.Join(dist, "checksums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sums := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok || len(sum) != 64 {
			t.Fatalf("checksums.txt: %q", sc.Text())
		}
		sums[name] = sum
	}
	return sums
}

// requires are the direct requirements of a go.mod.
func requires(t *testing.T, gomod string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(gomod)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	in := false
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "require (":
			in = true
		case line == ")":
			in = false
		case in && !strings.Contains(line, "// indirect"):
			if f := strings.Fields(line); len(f) == 2 {
				out[f[0]] = f[1]
			}
		}
	}
	return out
}

func TestKindOf(t *testing.T) {
	for _, tc := range []struct{ subject, kind string }{
		{"Merge branch 'issue-52'", ""},
		{"Makefile: make release", "Build, release and CI"},
		{"gofmt", "Build, release and CI"},
		{"go.mod: go mod tidy drops k8s.io/cli-runtime", "Build, release and CI"},
		{"make kyverno-verify checks Kyverno's messages too", "Build, release and CI"},
		{"perf(rego): one query per model", "Performance and benchmarks"},
		{"bench/gatekeeper.sh: ONLY=lint measures OMEVersionLint alone", "Performance and benchmarks"},
		{"README: select states OME's webhook check by check", "Documentation"},
		{"docs/performance.md: the memory limit follows the objects", "Documentation"},
		{"engine/gatekeeper tests: the stand-in", "Tests"},
		{"Tests: a lint run's set rules read what apply leaves", "Tests"},
		{"e2e: applyWhileTesting, for the native policies", "Tests"},
		{"builtins: tests (spec tables), fuzzing and benchmarks; fix == with non-versions", "Fixes"},
		{"evaluate kyverno --lint=: the policies without a Test, not a panic", "Fixes"},
		{"objects: fix the decoder's line numbers", "Fixes"},
		{"policies/rego: match.rego holds the rules alone", "Policies and admission bundles"},
		{"gatekeeper: OMEVersionLint's suite lints the kinds the template reviews", "Policies and admission bundles"},
		{"match_plan.rego: one pass", "Policies and admission bundles"},
		{"engine: drop parseCELPolicies, no longer called", "Commands and engines"},
		{"evaluate select: OME's webhook verdict per InferenceService", "Commands and engines"},
		{"One reading of objects for every command", "Commands and engines"},
	} {
		if got := kindOf(tc.subject); got != tc.kind {
			t.Errorf("kindOf(%q) = %q, want %q", tc.subject, got, tc.kind)
		}
	}
}

func TestNotes(t *testing.T) {
	got := string(notes(source{Version: "v1.0.0", Revision: "abc", Previous: "v0.9.0"}, []string{
		"engine: one", "README: two", "Merge branch 'x'", "", "objects: fix three",
	}))
	want := `# evaluate v1.0.0

3 changes since v0.9.0, by kind; revision abc.

## Commands and engines

- engine: one

## Fixes

- objects: fix three

## Documentation

- README: two
`
	if got != want {
		t.Errorf("notes:\n%s\nwant:\n%s", got, want)
	}
}

// The archives of the same files and date are the same bytes.
func TestArchivesAreDeterministic(t *testing.T) {
	dir := t.TempDir()
	var files []archiveFile
	for _, n := range []string{"evaluate", "LICENSE"} {
		p := filepath.Join(dir, n)
		if err := os.WriteFile(p, []byte("content of "+n), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, archiveFile{Name: n, Path: p, Mode: 0o644})
	}
	date := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for name, write := range map[string]func(string, []archiveFile, time.Time) error{"a.tar.gz": writeTarGz, "a.tar": writeTar, "a.zip": writeZip} {
		var got [][]byte
		for i := range 2 {
			p := filepath.Join(dir, fmt.Sprint(i)+name)
			if err := write(p, files, date); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, data)
			// Another date on disk changes nothing.
			later := date.Add(time.Hour * time.Duration(i+1))
			for _, f := range files {
				os.Chtimes(f.Path, later, later)
			}
		}
		if !bytes.Equal(got[0], got[1]) {
			t.Errorf("%s written twice differs", name)
		}
	}
}
