// Package policyset reads the policy sources: the ones embedded in the
// binary, or a folder with the same layout given by --policies. It owns the
// layout (cel/*.yaml, rego/*.rego, *_test.* for unit tests, lint-rules.yaml,
// and the OME releases: releases.yaml and releases/<name>/) and where each
// file came from, for messages. It compiles nothing: each engine takes its
// files from a Set. Of the engines' languages it knows only how a
// release's change replaces definitions by name (release.go, change.go).
// It sits beside the sources it loads and imports only package policies.
package policyset

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/ome-policy/evaluator/policies"
)

// The folders of the layout, named after the engine that reads them.
const (
	CEL  = "cel"
	Rego = "rego"
)

// File is one policy source as it was loaded.
type File struct {
	Path   string `json:"path" yaml:"path"`     // slash-separated, relative to the policy folder
	Engine string `json:"engine" yaml:"engine"` // cel or rego
	Test   bool   `json:"test" yaml:"test"`     // a unit test of the policies, not a policy
	// Changes are the release change files applied to the file, in order
	// (ForRelease); none in the newest release.
	Changes []string `json:"changes,omitempty" yaml:"changes,omitempty"`
	text    *fileText
	pkg     string
}

// Package is the package a Rego file declares (its package line, which a
// release's change keeps); "" for a CEL file. An engine picks the files it
// compiles by it, and so reads no other.
func (f File) Package() string { return f.pkg }

var packageLine = regexp.MustCompile(`(?m)^package\s+([\w.]+)`)

// newFile is a file as it was read.
func newFile(path, engine string, test bool, text string) File {
	f := File{Path: path, Engine: engine, Test: test, text: loadedText(text)}
	if engine == Rego {
		if m := packageLine.FindStringSubmatch(text); m != nil {
			f.pkg = m[1]
		}
	}
	return f
}

// fileText is a file's text, made the first time it is read (Source).
type fileText struct {
	once  sync.Once
	make  func() (string, error) // nil once made
	value string
	err   error
}

// loadedText is a text as it was read.
func loadedText(s string) *fileText { return &fileText{make: func() (string, error) { return s, nil }} }

func (t *fileText) get() (string, error) {
	t.once.Do(func() {
		t.value, t.err = t.make()
		t.make = nil // what it was made from
	})
	return t.value, t.err
}

// Source is the file's text: as it was loaded, with the changes of its
// release applied (ForRelease). Of the embedded policies, a release's
// changes are applied to a file the first time its text is read, so that
// a command parses the files it compiles and no other (a match of one
// pair on v0.1.4 applied them to every Rego file, a fifth of its time);
// of a folder's, as the release is chosen, so that a change that does not
// apply is said at once.
func (f File) Source() (string, error) {
	if f.text == nil {
		return "", nil
	}
	return f.text.get()
}

// WithSource is f with the text s: a variant of a policy file.
func (f File) WithSource(s string) File {
	f.text = loadedText(s)
	return f
}

// Set is the whole policy tree: what `evaluate policies` shows and what the
// engines compile.
type Set struct {
	// Origin is "embedded" or the folder the files were read from.
	Origin string
	Files  []File
	// LintRules is the text of the lint rules' list (lint-rules.yaml): the
	// folder's, else the embedded one.
	LintRules string
	// Release is the OME release whose rules Files state.
	Release string
	// releases are the releases the policies state, newest first, with
	// their changes.
	releases []releaseChanges
	// embedded is true for the policies built into the binary, which its
	// tests have checked.
	embedded bool
}

// LintRulesFile is the list of the lint rules, at the policy folder's root.
const LintRulesFile = "lint-rules.yaml"

// Embedded returns the policies built into the binary.
func Embedded() (*Set, error) {
	set, err := Load(policies.FS, "embedded")
	if err != nil {
		return nil, err
	}
	set.embedded = true
	return set, nil
}

// IsEmbedded reports whether the set is the policies built into the binary
// (Embedded), which the binary's tests have checked in full.
func (s *Set) IsEmbedded() bool { return s.embedded }

// LoadDir reads the policies from a folder with the embedded layout:
// cel/*.yaml and rego/*.rego (files named *_test.* are their unit tests).
func LoadDir(dir string) (*Set, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("policies: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("policies: %s is not a folder", dir)
	}
	return Load(os.DirFS(dir), dir)
}

// Load reads the policy sources of fsys.
func Load(fsys fs.FS, origin string) (*Set, error) {
	set := &Set{Origin: origin}
	for _, dir := range []string{CEL, Rego} {
		entries, err := fs.ReadDir(fsys, dir)
		if err != nil {
			return nil, fmt.Errorf("policies %s: %w", origin, err)
		}
		for _, e := range entries {
			name := e.Name()
			if e.IsDir() || !isPolicySource(dir, name) {
				continue
			}
			p := path.Join(dir, name)
			b, err := fs.ReadFile(fsys, p)
			if err != nil {
				return nil, fmt.Errorf("policies %s: %w", origin, err)
			}
			set.Files = append(set.Files, newFile(p, dir, isTestSource(name), string(b)))
		}
	}
	sort.SliceStable(set.Files, func(i, j int) bool { return set.Files[i].Path < set.Files[j].Path })
	rules, err := fs.ReadFile(fsys, LintRulesFile)
	if errors.Is(err, fs.ErrNotExist) {
		rules, err = fs.ReadFile(policies.FS, LintRulesFile)
	}
	if err != nil {
		return nil, fmt.Errorf("policies %s: %w", origin, err)
	}
	set.LintRules = string(rules)
	if len(set.Sources(CEL, false)) == 0 || len(set.Sources(Rego, false)) == 0 {
		return nil, fmt.Errorf("policies %s: need at least one CEL policy (cel/*.yaml) and one Rego policy (rego/*.rego)", origin)
	}
	if set.releases, err = readReleases(fsys, policies.FS, origin); err != nil {
		return nil, err
	}
	set.Release = set.Newest()
	return set, nil
}

func isPolicySource(dir, name string) bool {
	if dir == CEL {
		return strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml")
	}
	return strings.HasSuffix(name, ".rego")
}

func isTestSource(name string) bool {
	base := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(name, ".yaml"), ".yml"), ".rego")
	return strings.HasSuffix(base, "_test")
}

// Sources returns the files of one engine, policies (tests=false) or their
// unit tests (tests=true), in path order.
func (s *Set) Sources(engine string, tests bool) []File {
	var out []File
	for _, f := range s.Files {
		if f.Engine == engine && f.Test == tests {
			out = append(out, f)
		}
	}
	return out
}

// Find is the policy file named name: its path in the set, or where it
// FindAll finds the policy files named (Find), in order; none named is
// every file. A name that no file has is an error that says where to look.
func (s *Set) FindAll(names []string) ([]File, error) {
	if len(names) == 0 {
		return s.Files, nil
	}
	out := make([]File, 0, len(names))
	for _, n := range names {
		f, ok := s.Find(n)
		if !ok {
			return nil, fmt.Errorf("no policy file %q in %s (see 'evaluate policies')", n, s.Origin)
		}
		out = append(out, f)
	}
	return out, nil
}

// came from (Where).
func (s *Set) Find(name string) (File, bool) {
	for _, f := range s.Files {
		if f.Path == name || s.Where(f) == name {
			return f, true
		}
	}
	return File{}, false
}

// Where says where a policy file came from, for messages.
func (s *Set) Where(f File) string { return s.where(f.Path) }

// Texts are the texts of every source of an engine (CEL or Rego) the set
// holds, by where each is (Where): its policies, their unit tests, and each
// release's changes to them.
func (s *Set) Texts(engine string) map[string]string {
	out := map[string]string{}
	for _, f := range s.Files {
		if f.Engine == engine {
			out[s.Where(f)], _ = f.text.get()
		}
	}
	for _, rc := range s.releases {
		for _, c := range rc.files {
			if c.Engine == engine {
				out[s.where(c.Path)], _ = c.text.get()
			}
		}
	}
	return out
}

func (s *Set) where(p string) string {
	if s.Origin == "embedded" {
		return "embedded:" + p
	}
	return path.Join(s.Origin, p)
}
