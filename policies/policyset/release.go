package policyset

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/ome-policy/evaluator/policies"
)

// OME releases. cel/ and rego/ hold the rules of the newest release the
// policies state; releases/<name>/ holds, for each older release, what it
// does differently from the release after it, as files of the same paths
// (releases/v0.1.5/rego/match.rego changes rego/match.rego) that hold only
// the definitions they replace: whole Rego rules, by name (every
// definition of that name; a name the file lacks is added at its end), and
// CEL variables, by policy and name. The rules of a release are those of
// the newest with the changes of every release down to it applied, newest
// first (ForRelease). ReleasesFile lists the releases, newest first.

// ReleasesFile lists the OME releases the policies state, newest first.
const ReleasesFile = "releases.yaml"

// ReleasesDir holds each older release's changes.
const ReleasesDir = "releases"

// releaseChanges is one older release: its name and its change files, by
// the path of the file each changes.
type releaseChanges struct {
	name    string
	webhook []string        // what OME's admission webhook checks (Set.WebhookChecks)
	files   map[string]File // by the changed file's path; File.Path is the change's own
}

type releasesList struct {
	Releases []struct {
		Name    string   `yaml:"name"`
		Webhook []string `yaml:"webhook"`
	} `yaml:"releases"`
}

// readReleases reads ReleasesFile and each older release's changes from
// fsys, or from the embedded policies when the folder has no
// ReleasesFile and no ReleasesDir (it then states the newest release
// only, and changes has only that release).
func readReleases(fsys, embedded fs.FS, origin string) ([]releaseChanges, error) {
	b, err := fs.ReadFile(fsys, ReleasesFile)
	ownList := err == nil
	if !ownList {
		if _, dirErr := fs.Stat(fsys, ReleasesDir); dirErr == nil {
			return nil, fmt.Errorf("policies %s: %s/ needs %s, the list of the releases", origin, ReleasesDir, ReleasesFile)
		}
		if b, err = fs.ReadFile(embedded, ReleasesFile); err != nil {
			return nil, fmt.Errorf("policies %s: %w", origin, err)
		}
	}
	var list releasesList
	if err := yaml.Unmarshal(b, &list); err != nil {
		return nil, fmt.Errorf("policies %s: %s: %w", origin, ReleasesFile, err)
	}
	if len(list.Releases) == 0 {
		return nil, fmt.Errorf("policies %s: %s names no release", origin, ReleasesFile)
	}
	var out []releaseChanges
	seen := map[string]bool{}
	for i, r := range list.Releases {
		name, ok := policies.NormalizeRelease(r.Name)
		if !ok || name != r.Name {
			return nil, fmt.Errorf("policies %s: %s: release %q is not written vMAJOR.MINOR.PATCH", origin, ReleasesFile, r.Name)
		}
		if seen[name] {
			return nil, fmt.Errorf("policies %s: %s: release %s is listed twice", origin, ReleasesFile, name)
		}
		seen[name] = true
		rc := releaseChanges{name: name, webhook: r.Webhook, files: map[string]File{}}
		if i > 0 && ownList {
			if err := readChanges(fsys, origin, &rc); err != nil {
				return nil, err
			}
		}
		out = append(out, rc)
		if !ownList {
			break
		}
	}
	return out, nil
}

// readChanges reads releases/<name>/{cel,rego}/ into rc.
func readChanges(fsys fs.FS, origin string, rc *releaseChanges) error {
	for _, dir := range []string{CEL, Rego} {
		d := path.Join(ReleasesDir, rc.name, dir)
		entries, err := fs.ReadDir(fsys, d)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return fmt.Errorf("policies %s: %w", origin, err)
		}
		for _, e := range entries {
			if e.IsDir() || !isPolicySource(dir, e.Name()) {
				continue
			}
			p := path.Join(d, e.Name())
			b, err := fs.ReadFile(fsys, p)
			if err != nil {
				return fmt.Errorf("policies %s: %w", origin, err)
			}
			rc.files[path.Join(dir, e.Name())] = newFile(p, dir, isTestSource(e.Name()), string(b))
		}
	}
	return nil
}

// EmbeddedReleases lists the OME releases the embedded policies state,
// newest first, reading ReleasesFile alone (nil when it cannot be read).
func EmbeddedReleases() []string { return slices.Clone(embeddedReleases()) }

// embeddedReleases reads them once: every command's help names them.
var embeddedReleases = sync.OnceValue(func() []string {
	b, err := fs.ReadFile(policies.FS, ReleasesFile)
	if err != nil {
		return nil
	}
	var list releasesList
	if yaml.Unmarshal(b, &list) != nil {
		return nil
	}
	out := make([]string, len(list.Releases))
	for i, r := range list.Releases {
		out[i] = r.Name
	}
	return out
})

// Releases lists the OME releases the policies state, newest first.
func (s *Set) Releases() []string {
	out := make([]string, len(s.releases))
	for i, r := range s.releases {
		out[i] = r.name
	}
	return out
}

// Newest is the newest release the policies state, whose rules cel/ and
// rego/ hold.
func (s *Set) Newest() string { return s.releases[0].name }

// UnknownReleaseError is a release the policies do not state.
type UnknownReleaseError struct {
	Release string
	Known   []string
}

func (e *UnknownReleaseError) Error() string {
	return fmt.Sprintf("unknown OME release %q: the policies state %s", e.Release, strings.Join(e.Known, ", "))
}

// ForRelease returns the policies of an OME release ("v0.1.4" or
// "0.1.4"): the newest release's files with the changes of each release
// down to it applied, each file naming the changes it took (File.Changes).
// The set it is called on must be the newest release's; for that
// release, it is the set itself.
func (s *Set) ForRelease(release string) (*Set, error) {
	name, ok := policies.NormalizeRelease(release)
	i := slices.IndexFunc(s.releases, func(r releaseChanges) bool { return r.name == name })
	if !ok || i < 0 {
		return nil, &UnknownReleaseError{Release: release, Known: s.Releases()}
	}
	if s.Release != s.Newest() {
		return nil, fmt.Errorf("policies %s: the release of a set of release %s", s.Origin, s.Release)
	}
	if name == s.Release {
		return s, nil
	}
	out := *s
	out.Release = name
	out.Files = slices.Clone(s.Files)
	changed := map[string]bool{}
	for j := range out.Files {
		f := &out.Files[j]
		var changes []File
		for _, rc := range s.releases[1 : i+1] {
			if c, ok := rc.files[f.Path]; ok {
				changes = append(changes, c)
				changed[f.Path] = true
			}
		}
		if len(changes) == 0 {
			continue
		}
		f.Changes = slices.Clone(f.Changes)
		for _, c := range changes {
			f.Changes = append(f.Changes, c.Path)
		}
		base, engine := f.text, f.Engine
		f.text = &fileText{make: func() (string, error) {
			text, err := base.get()
			for _, c := range changes {
				if err != nil {
					break
				}
				change, _ := c.text.get()
				text, err = applyChange(engine, text, change, s.where(c.Path))
			}
			if err != nil {
				return "", fmt.Errorf("policies %s: %w", s.Origin, err)
			}
			return text, nil
		}}
	}
	for _, rc := range s.releases[1 : i+1] {
		for p, c := range rc.files {
			if !changed[p] {
				return nil, fmt.Errorf("policies %s: %s changes %s, which is not there", s.Origin, c.Path, p)
			}
		}
	}
	if !s.embedded {
		for _, f := range out.Files {
			if _, err := f.Source(); err != nil {
				return nil, err
			}
		}
	}
	return &out, nil
}

// Only is the set of one engine's files (CEL or Rego), with the changes of
// each release to them only: what that engine compiles, so that
// ForRelease does not build the other engine's files of an older release.
// Any other engine (both) gives the whole set.
func (s *Set) Only(engine string) *Set {
	if engine != CEL && engine != Rego {
		return s
	}
	other := func(f File) bool { return f.Engine != engine }
	out := *s
	out.Files = slices.DeleteFunc(slices.Clone(s.Files), other)
	out.releases = slices.Clone(s.releases)
	for i, rc := range out.releases {
		files := make(map[string]File, len(rc.files))
		for p, c := range rc.files {
			if !other(c) {
				files[p] = c
			}
		}
		out.releases[i].files = files
	}
	return &out
}

// applyChange applies one change file to a file's text, in the file's
// language.
func applyChange(engine, base, change, where string) (string, error) {
	if engine == Rego {
		return replaceRegoRules(base, change, where)
	}
	return replaceCELVariables(base, change, where)
}
