// Command release writes a release of evaluate into a folder (dist/), as a
// tag would publish it: for each platform an archive of the binary (stamped
// with the version and the commit, -trimpath, CGO_ENABLED=0, every file
// dated at the commit's time), LICENSE, NOTICE and README.md, and a
// CycloneDX SBOM of the binary from the Go module graph; the admission
// bundles of every OME release the policies state, one archive per
// release; a container image of the Linux binaries (an OCI layout, see
// image.go); the krew plugin manifest; release notes from the commit
// subjects; and checksums.txt (sha256) of every asset.
//
// HEAD with a tag (v*) and a clean tree gives that version; anything else
// is a snapshot, the nearest tag (else v0.0.0) with -SNAPSHOT- and the
// short commit. `make release` runs it from the repository's root:
//
//	go -C tools/release run . -repo ../.. -dist ../../dist
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// allPlatforms are the platforms of a release, GOOS/GOARCH.
var allPlatforms = []string{"linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64", "windows/amd64"}

// repoURL is the project's home, where its releases are published.
const repoURL = "https://github.com/ome-policy/evaluator"

// config is what one run is asked to do.
type config struct {
	Repo      string   // the repository's root
	Dist      string   // the folder to write (emptied first)
	Platforms []string // GOOS/GOARCH
	Version   string   // empty: from git
	Log       io.Writer
}

// source is the commit being released.
type source struct {
	Version  string    // v1.2.3, or v1.2.3-SNAPSHOT-abcdef1 for a snapshot
	Revision string    // the full commit, with -dirty when the tree has changes
	Time     time.Time // the commit's time, every file's date
	Snapshot bool
	Previous string // the tag before, where the notes start (empty: the first commit)
}

func main() {
	cfg := config{Log: os.Stderr}
	platforms := strings.Join(allPlatforms, ",")
	flag.StringVar(&cfg.Repo, "repo", "../..", "the repository's root")
	flag.StringVar(&cfg.Dist, "dist", "", "the folder to write, emptied first (default REPO/dist)")
	flag.StringVar(&platforms, "platforms", platforms, "GOOS/GOARCH pairs, comma-separated")
	flag.StringVar(&cfg.Version, "version", "", "the version to stamp (default: HEAD's tag, else a snapshot's)")
	flag.Parse()
	cfg.Platforms = strings.Split(platforms, ",")
	if cfg.Dist == "" {
		cfg.Dist = filepath.Join(cfg.Repo, "dist")
	}
	if _, err := release(cfg); err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

// release writes the release into cfg.Dist and returns the commit released.
func release(cfg config) (source, error) {
	repo, err := filepath.Abs(cfg.Repo)
	if err != nil {
		return source{}, err
	}
	dist, err := filepath.Abs(cfg.Dist)
	if err != nil {
		return source{}, err
	}
	src, err := describe(repo, cfg.Version)
	if err != nil {
		return src, err
	}
	start := time.Now()
	logf := func(format string, args ...any) {
		fmt.Fprintf(cfg.Log, "%5.1fs "+format+"\n", append([]any{time.Since(start).Seconds()}, args...)...)
	}
	logf("release %s (revision %s) into %s", src.Version, src.Revision, dist)
	if err := os.RemoveAll(dist); err != nil {
		return src, err
	}
	build := filepath.Join(dist, "build")
	if err := os.MkdirAll(build, 0o755); err != nil {
		return src, err
	}
	moduleCopy, err := sbomSource(repo)
	if err != nil {
		return src, err
	}
	defer os.RemoveAll(moduleCopy)
	docs := []string{"LICENSE", "NOTICE", "README.md"}
	var assets []string
	var krewPlatforms []krewPlatform
	host := runtime.GOOS + "/" + runtime.GOARCH
	var hostBinary string
	var images []imageBuild
	for _, p := range cfg.Platforms {
		goos, goarch, ok := strings.Cut(p, "/")
		if !ok {
			return src, fmt.Errorf("platform %q: not GOOS/GOARCH", p)
		}
		exe := "evaluate"
		if goos == "windows" {
			exe += ".exe"
		}
		bin := filepath.Join(build, goos+"_"+goarch, exe)
		logf("build %s", p)
		if err := goBuild(repo, goos, goarch, src, bin); err != nil {
			return src, err
		}
		if p == host {
			hostBinary = bin
		}
		if goos == "linux" {
			images = append(images, imageBuild{Arch: goarch, Binary: bin})
		}
		base := fmt.Sprintf("evaluate_%s_%s_%s", trimV(src.Version), goos, goarch)
		files := []archiveFile{{Name: exe, Path: bin, Mode: 0o755}}
		for _, d := range docs {
			files = append(files, archiveFile{Name: d, Path: filepath.Join(repo, d), Mode: 0o644})
		}
		name := base + ".tar.gz"
		write := writeTarGz
		if goos == "windows" {
			name, write = base+".zip", writeZip
		}
		if err := write(filepath.Join(dist, name), files, src.Time); err != nil {
			return src, err
		}
		sum, err := fileSHA256(filepath.Join(dist, name))
		if err != nil {
			return src, err
		}
		krewPlatforms = append(krewPlatforms, krewPlatform{OS: goos, Arch: goarch, Archive: name, SHA256: sum, Bin: exe})
		logf("sbom %s", p)
		sbom := base + ".sbom.cdx.json"
		if err := writeSBOM(moduleCopy, goos, goarch, src, filepath.Join(dist, sbom)); err != nil {
			return src, err
		}
		assets = append(assets, name, sbom)
	}
	if hostBinary == "" {
		hostBinary = filepath.Join(build, "host", "evaluate")
		if err := goBuild(repo, runtime.GOOS, runtime.GOARCH, src, hostBinary); err != nil {
			return src, err
		}
	}
	if err := checkVersion(hostBinary, src); err != nil {
		return src, err
	}
	bundles, err := writeBundles(hostBinary, dist, src, logf)
	if err != nil {
		return src, err
	}
	assets = append(assets, bundles...)
	if len(images) > 0 {
		logf("image (OCI layout) of %d platform(s)", len(images))
		name, err := writeImageAsset(dist, repo, images, src)
		if err != nil {
			return src, err
		}
		assets = append(assets, name)
	}
	manifest, err := krewManifest(src, krewPlatforms)
	if err != nil {
		return src, err
	}
	if err := os.WriteFile(filepath.Join(dist, krewManifestName), manifest, 0o644); err != nil {
		return src, err
	}
	assets = append(assets, krewManifestName)
	notes, err := changelog(repo, src)
	if err != nil {
		return src, err
	}
	if err := os.WriteFile(filepath.Join(dist, "CHANGELOG.md"), notes, 0o644); err != nil {
		return src, err
	}
	assets = append(assets, "CHANGELOG.md")
	if err := writeChecksums(dist, assets); err != nil {
		return src, err
	}
	logf("wrote %d assets and checksums.txt", len(assets))
	return src, nil
}

// describe finds the version, commit and dates of HEAD in repo.
func describe(repo, version string) (source, error) {
	var src source
	rev, err := git(repo, "rev-parse", "HEAD")
	if err != nil {
		return src, err
	}
	status, err := git(repo, "status", "--porcelain", "--untracked-files=no")
	if err != nil {
		return src, err
	}
	src.Revision = rev
	if status != "" {
		src.Revision += "-dirty"
	}
	unix, err := git(repo, "log", "-1", "--format=%ct")
	if err != nil {
		return src, err
	}
	secs, err := strconv.ParseInt(unix, 10, 64)
	if err != nil {
		return src, fmt.Errorf("commit time %q: %v", unix, err)
	}
	src.Time = time.Unix(secs, 0).UTC()
	tag, _ := git(repo, "describe", "--tags", "--exact-match", "--match", "v[0-9]*", "HEAD")
	switch {
	case version != "":
		src.Version = version
		src.Snapshot = version != tag || status != ""
	case tag != "" && status == "":
		src.Version = tag
	default:
		nearest, _ := git(repo, "describe", "--tags", "--abbrev=0", "--match", "v[0-9]*", "HEAD")
		if nearest == "" {
			nearest = "v0.0.0"
		}
		src.Version = nearest + "-SNAPSHOT-" + rev[:7]
		src.Snapshot = true
	}
	// The notes of a tag start after the tag before it; a snapshot's after
	// the nearest tag.
	from := "HEAD"
	if tag != "" {
		from = tag + "^"
	}
	src.Previous, _ = git(repo, "describe", "--tags", "--abbrev=0", "--match", "v[0-9]*", from)
	return src, nil
}

// goBuild builds cmd/evaluate for one platform, reproducibly: no cgo,
// no local paths, no VCS stamp or build ID that depends on the checkout,
// the version and commit stamped as `make build` stamps them.
func goBuild(repo, goos, goarch string, src source, out string) error {
	ldflags := fmt.Sprintf("-s -w -buildid= -X main.version=%s -X main.revision=%s", src.Version, src.Revision)
	cmd := exec.Command(goCommand(), "build", "-trimpath", "-buildvcs=false", "-ldflags", ldflags, "-o", out, "./cmd/evaluate")
	cmd.Dir = repo
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+goos, "GOARCH="+goarch)
	return run(cmd)
}

// checkVersion holds the built binary to the version and commit: never
// "devel".
func checkVersion(bin string, src source) error {
	out, err := exec.Command(bin, "version", "-o", "json").Output()
	if err != nil {
		return fmt.Errorf("%s version: %v", bin, err)
	}
	var v struct {
		Version  string `json:"version"`
		Revision string `json:"revision"`
	}
	if err := json.Unmarshal(out, &v); err != nil {
		return fmt.Errorf("%s version -o json: %v", bin, err)
	}
	if v.Version != src.Version || v.Revision != src.Revision {
		return fmt.Errorf("%s version says %s (revision %s), want %s (revision %s)", bin, v.Version, v.Revision, src.Version, src.Revision)
	}
	return nil
}

// writeSBOM writes the CycloneDX SBOM of the binary of one platform, from
// the module graph of cmd/evaluate built for it (cyclonedx-gomod app, a
// tool of this module). Its serial number follows from the file's name, and
// it has no timestamp, so the same commit gives the same file.
// The module graph is read from a copy of the working tree (sbomSource):
// cyclonedx-gomod opens the repository with go-git, which cannot read a git
// worktree's HEAD.
func writeSBOM(moduleCopy, goos, goarch string, src source, out string) error {
	serial := sha256.Sum256([]byte(filepath.Base(out) + " " + src.Revision))
	serial[6] = serial[6]&0x0f | 0x50 // a name-based UUID's version and variant
	serial[8] = serial[8]&0x3f | 0x80
	h := hex.EncodeToString(serial[:16])
	uuid := fmt.Sprintf("urn:uuid:%s-%s-%s-%s-%s", h[0:8], h[8:12], h[12:16], h[16:20], h[20:32])
	cmd := exec.Command(filepath.Join(moduleCopy, ".git", "cyclonedx-gomod"), "app", "-json", "-licenses", "-notimestamp",
		"-serial", uuid, "-main", "cmd/evaluate", "-output", out, moduleCopy)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+goos, "GOARCH="+goarch, "GOFLAGS=-trimpath -buildvcs=false")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("cyclonedx-gomod for %s/%s: %v\n%s", goos, goarch, err, stderr.String())
	}
	return stampSBOM(out, src)
}

// sbomSource copies the working tree's files (tracked, and untracked ones
// git does not ignore) into a new folder with one commit of them, the
// repository that cyclonedx-gomod reads; remove it when done.
func sbomSource(repo string) (string, error) {
	list, err := git(repo, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "evaluate-sbom-")
	if err != nil {
		return "", err
	}
	for _, name := range strings.Split(list, "\x00") {
		if name == "" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(repo, name))
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted, not yet committed
		}
		if err == nil {
			err = os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755)
		}
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, name), data, 0o644)
		}
		if err != nil {
			os.RemoveAll(dir)
			return "", err
		}
	}
	for _, args := range [][]string{
		{"init", "-q"},
		{"add", "-A"},
		{"-c", "user.name=release", "-c", "user.email=release@localhost", "-c", "commit.gpgsign=false", "commit", "-q", "-m", "release"},
	} {
		if _, err := git(dir, args...); err != nil {
			os.RemoveAll(dir)
			return "", err
		}
	}
	// cyclonedx-gomod (this module's tool) built for the host into the
	// copy's .git: it runs with each platform's GOOS and GOARCH, which
	// `go tool` would build it for.
	build := exec.Command(goCommand(), "build", "-o", filepath.Join(dir, ".git", "cyclonedx-gomod"), "github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod")
	build.Dir = toolsDir()
	build.Env = append(os.Environ(), "GOOS="+runtime.GOOS, "GOARCH="+runtime.GOARCH)
	if err := run(build); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return dir, nil
}

// stampSBOM gives the SBOM's application (metadata.component) the
// release's version, which cyclonedx-gomod cannot know (it reads VCS
// tags, and a snapshot has none).
func stampSBOM(path string, src source) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	meta, _ := doc["metadata"].(map[string]any)
	comp, _ := meta["component"].(map[string]any)
	if comp == nil {
		return fmt.Errorf("%s: no metadata.component", path)
	}
	old, _ := comp["version"].(string)
	comp["version"] = src.Version
	if purl, ok := comp["purl"].(string); ok && old != "" {
		comp["purl"] = strings.Replace(purl, "@"+old, "@"+src.Version, 1)
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(out, '\n'), 0o644)
}

// writeBundles writes one archive per OME release that the binary states:
// its Gatekeeper bundle (gatekeeper/), its ValidatingAdmissionPolicies
// (kubernetes/) and its Kyverno bundle (kyverno/), made by the binary in
// an empty folder, as outside a clone.
func writeBundles(bin, dist string, src source, logf func(string, ...any)) ([]string, error) {
	out, err := exec.Command(bin, "version", "-o", "json").Output()
	if err != nil {
		return nil, err
	}
	var v struct {
		OMEReleases []string `json:"omeReleases"`
	}
	if err := json.Unmarshal(out, &v); err != nil {
		return nil, err
	}
	if len(v.OMEReleases) == 0 {
		return nil, fmt.Errorf("%s states no OME release", bin)
	}
	var names []string
	for _, r := range v.OMEReleases {
		logf("bundles of OME %s", r)
		dir, err := os.MkdirTemp("", "evaluate-bundles-")
		if err != nil {
			return nil, err
		}
		root := "ome-" + r
		top := filepath.Join(dir, root)
		if err := os.Mkdir(top, 0o755); err != nil {
			return nil, err
		}
		for _, args := range [][]string{
			{"gatekeeper", "--ome-version", r, "--out", "gatekeeper", "--native-out", "kubernetes"},
			{"kyverno", "--ome-version", r, "--out", "kyverno"},
		} {
			cmd := exec.Command(bin, args...)
			cmd.Dir = top
			if err := run(cmd); err != nil {
				os.RemoveAll(dir)
				return nil, err
			}
		}
		files, err := treeFiles(dir, root)
		if err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		name := fmt.Sprintf("evaluate_%s_bundles_ome-%s.tar.gz", trimV(src.Version), r)
		err = writeTarGz(filepath.Join(dist, name), files, src.Time)
		os.RemoveAll(dir)
		if err != nil {
			return nil, err
		}
		names = append(names, name)
	}
	return names, nil
}

// writeChecksums writes checksums.txt, as sha256sum writes it, for the
// assets in name order.
func writeChecksums(dist string, assets []string) error {
	assets = slices.Sorted(slices.Values(assets))
	var b strings.Builder
	for _, a := range assets {
		sum, err := fileSHA256(filepath.Join(dist, a))
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s  %s\n", sum, a)
	}
	return os.WriteFile(filepath.Join(dist, "checksums.txt"), []byte(b.String()), 0o644)
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// git runs git in repo and returns its output, trimmed.
func git(repo string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = repo
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}

// run runs cmd, its output in the error when it fails.
func run(cmd *exec.Cmd) error {
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, out)
	}
	return nil
}

// goCommand is the go command: $GO, else go.
func goCommand() string {
	if g := os.Getenv("GO"); g != "" {
		return g
	}
	return "go"
}

// toolsDir is this module's folder, where `go tool` finds its tools: the
// program runs from it (go -C tools/release run .), as its tests do.
func toolsDir() string {
	wd, _ := os.Getwd()
	return wd
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
