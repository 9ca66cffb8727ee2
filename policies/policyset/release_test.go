package policyset

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

const baseRego = `package ome.match

import data.ome.lib

# The greeting.
greeting := "hello"

# Twice defined: both go.
size(x) := 1 if x == "a"

size(x) := 2 if x == "b"

# Kept.
kept := true
`

const baseCEL = `apiVersion: policy.ome.io/v1alpha1
kind: CELPolicy
metadata:
  name: entry
spec:
  variables:
  # The greeting.
  - name: greeting
    expression: '"hello"'
  - name: kept
    expression: >-
      true
      && true
  validations:
  - expression: variables.kept
---
apiVersion: policy.ome.io/v1alpha1
kind: CELPolicy
metadata:
  name: runtime
spec:
  variables:
  - name: greeting
    expression: '"hi"'
`

func TestReplaceRegoRules(t *testing.T) {
	for _, c := range []struct {
		name, change string
		want         string // the result, or the error's text
		fails        bool
	}{
		{
			name: "a rule, with its comment",
			change: `package ome.match

# Older: shorter.
greeting := "hi"
`,
			want: `package ome.match

import data.ome.lib

# v0.1.4/match.rego:
# Older: shorter.
greeting := "hi"

# Twice defined: both go.
size(x) := 1 if x == "a"

size(x) := 2 if x == "b"

# Kept.
kept := true
`,
		},
		{
			name: "every definition of a name goes, where the first was",
			change: `package ome.match

size(_) := 0
`,
			want: `package ome.match

import data.ome.lib

# The greeting.
greeting := "hello"

# v0.1.4/match.rego:
size(_) := 0

# Kept.
kept := true
`,
		},
		{
			name: "a name the file lacks is added at its end",
			change: `package ome.match

extra := 1
`,
			want: baseRego + "\n# v0.1.4/match.rego:\nextra := 1\n",
		},
		{name: "another package", change: "package ome.select\n\nx := 1\n", want: "v0.1.4/match.rego: package ome.select, but the file it changes is package ome.match", fails: true},
		{name: "an import the file lacks", change: "package ome.match\n\nimport data.other\n\nx := 1\n", want: "v0.1.4/match.rego:3: import data.other", fails: true},
		{name: "not Rego", change: "package ome.match\n\nx := \n", want: "v0.1.4/match.rego:4: rego_parse_error", fails: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := replaceRegoRules(baseRego, c.change, "v0.1.4/match.rego")
			checkChange(t, got, err, c.want, c.fails)
		})
	}
}

func TestReplaceCELVariables(t *testing.T) {
	for _, c := range []struct {
		name, change string
		want         string
		fails        bool
	}{
		{
			name: "a variable of one policy, re-indented, the other policy's alone",
			change: `metadata:
  name: entry
spec:
  variables:
    # Older: shorter.
    - name: kept
      expression: 'false'
`,
			want: strings.Replace(baseCEL, `  - name: kept
    expression: >-
      true
      && true
`, `  # v0.1.4/match.yaml:
  # Older: shorter.
  - name: kept
    expression: 'false'
`, 1),
		},
		{
			name: "the comment above a variable goes with it",
			change: `metadata:
  name: entry
spec:
  variables:
  - name: greeting
    expression: '"hi"'
`,
			want: strings.Replace(baseCEL, `  # The greeting.
  - name: greeting
    expression: '"hello"'
`, `  # v0.1.4/match.yaml:
  - name: greeting
    expression: '"hi"'
`, 1),
		},
		{name: "no such policy", change: "metadata:\n  name: nope\nspec:\n  variables:\n  - name: x\n    expression: '1'\n", want: "v0.1.4/match.yaml:1: no policy nope to change", fails: true},
		{name: "no such variable", change: "metadata:\n  name: entry\nspec:\n  variables:\n  - name: nope\n    expression: '1'\n", want: "v0.1.4/match.yaml:5: policy entry has no variable nope to replace", fails: true},
		{name: "validations", change: "metadata:\n  name: entry\nspec:\n  validations:\n  - expression: 'true'\n", want: "policy entry: a change gives variables only", fails: true},
		{name: "a variable without a name", change: "metadata:\n  name: entry\nspec:\n  variables:\n  - expression: '1'\n", want: "v0.1.4/match.yaml:5: a variable without a name", fails: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := replaceCELVariables(baseCEL, c.change, "v0.1.4/match.yaml")
			checkChange(t, got, err, c.want, c.fails)
		})
	}
}

// checkChange checks a change's result: the text wanted, or, when the
// change fails, an error holding want.
func checkChange(t *testing.T, got string, err error, want string, fails bool) {
	t.Helper()
	if fails {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("error %v, want one with %q", err, want)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// A policy folder with three releases: each older release takes the
// changes of every release down to it, newest first.
func TestForRelease(t *testing.T) {
	fsys := fstest.MapFS{
		"cel/match.yaml":                  {Data: []byte(baseCEL)},
		"rego/match.rego":                 {Data: []byte(baseRego)},
		"releases.yaml":                   {Data: []byte("releases:\n- name: v2.0.0\n- name: v1.0.0\n- name: v0.9.0\n")},
		"releases/v1.0.0/rego/match.rego": {Data: []byte("package ome.match\n\ngreeting := \"v1\"\n")},
		"releases/v0.9.0/rego/match.rego": {Data: []byte("package ome.match\n\nkept := false\n")},
		"releases/v0.9.0/cel/match.yaml":  {Data: []byte("metadata:\n  name: runtime\nspec:\n  variables:\n  - name: greeting\n    expression: '\"yo\"'\n")},
	}
	set, err := Load(fsys, "test")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(set.Releases(), " "); got != "v2.0.0 v1.0.0 v0.9.0" || set.Release != "v2.0.0" || set.Newest() != "v2.0.0" {
		t.Fatalf("releases %s, release %s", got, set.Release)
	}
	file := func(s *Set, p string) File {
		for _, f := range s.Files {
			if f.Path == p {
				return f
			}
		}
		t.Fatalf("no %s", p)
		return File{}
	}
	old, err := set.ForRelease("0.9.0")
	if err != nil {
		t.Fatal(err)
	}
	if old.Release != "v0.9.0" {
		t.Errorf("release %s", old.Release)
	}
	rego := file(old, "rego/match.rego")
	for _, want := range []string{`greeting := "v1"`, "kept := false"} {
		if !strings.Contains(source(t, rego), want) {
			t.Errorf("v0.9.0's match.rego lacks %q:\n%s", want, source(t, rego))
		}
	}
	if got := strings.Join(rego.Changes, " "); got != "releases/v1.0.0/rego/match.rego releases/v0.9.0/rego/match.rego" {
		t.Errorf("changes %q", got)
	}
	if cel := file(old, "cel/match.yaml"); !strings.Contains(source(t, cel), `'"yo"'`) || !strings.Contains(source(t, cel), `'"hello"'`) {
		t.Errorf("v0.9.0's match.yaml:\n%s", source(t, cel))
	}
	if mid, err := set.ForRelease("v1.0.0"); err != nil || strings.Contains(source(t, file(mid, "rego/match.rego")), "kept := false") {
		t.Errorf("v1.0.0 takes v0.9.0's change (%v)", err)
	}
	if source(t, file(set, "rego/match.rego")) != baseRego {
		t.Error("ForRelease changed the set it was called on")
	}

	var unknown *UnknownReleaseError
	if _, err := set.ForRelease("v1.5.0"); !errors.As(err, &unknown) || !strings.Contains(err.Error(), "v2.0.0, v1.0.0, v0.9.0") {
		t.Errorf("an unknown release: %v", err)
	}
	if _, err := old.ForRelease("v0.9.0"); err == nil {
		t.Error("ForRelease on an older release's set")
	}
}

// Only(engine).ForRelease(r) holds that engine's files of release r, as
// ForRelease(r) gives them, and no other engine's; on the embedded
// policies, for every release and both engines.
func TestOnlyOneEngine(t *testing.T) {
	set, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	if set.Only("both") != set {
		t.Error(`Only("both") is not the whole set`)
	}
	for _, r := range set.Releases() {
		whole, err := set.ForRelease(r)
		if err != nil {
			t.Fatal(err)
		}
		for _, engine := range []string{CEL, Rego} {
			one, err := set.Only(engine).ForRelease(r)
			if err != nil {
				t.Fatalf("%s %s: %v", r, engine, err)
			}
			if one.Release != r || one.LintRules != whole.LintRules {
				t.Errorf("%s %s: release %s", r, engine, one.Release)
			}
			var want []File
			for _, f := range whole.Files {
				if f.Engine == engine {
					want = append(want, f)
				}
			}
			if len(one.Files) != len(want) {
				t.Fatalf("%s %s: %d files, want %d", r, engine, len(one.Files), len(want))
			}
			for i, f := range one.Files {
				if f.Path != want[i].Path || source(t, f) != source(t, want[i]) || strings.Join(f.Changes, " ") != strings.Join(want[i].Changes, " ") {
					t.Errorf("%s %s: %s differs from ForRelease's", r, engine, f.Path)
				}
			}
		}
	}
}

func TestReleasesFolderErrors(t *testing.T) {
	base := func() fstest.MapFS {
		return fstest.MapFS{
			"cel/match.yaml":  {Data: []byte(baseCEL)},
			"rego/match.rego": {Data: []byte(baseRego)},
		}
	}
	for _, c := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"changes without the list", map[string]string{"releases/v1.0.0/rego/match.rego": "package ome.match\n"}, "releases/ needs releases.yaml"},
		{"a release written otherwise", map[string]string{"releases.yaml": "releases:\n- name: 2.0.0\n"}, `release "2.0.0" is not written vMAJOR.MINOR.PATCH`},
		{"a release twice", map[string]string{"releases.yaml": "releases:\n- name: v2.0.0\n- name: v2.0.0\n"}, "listed twice"},
		{"no release", map[string]string{"releases.yaml": "releases: []\n"}, "names no release"},
	} {
		t.Run(c.name, func(t *testing.T) {
			fsys := base()
			for p, text := range c.files {
				fsys[p] = &fstest.MapFile{Data: []byte(text)}
			}
			if _, err := Load(fsys, "test"); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one with %q", err, c.want)
			}
		})
	}
	// A change of a file that is not there is an error of ForRelease.
	fsys := base()
	fsys["releases.yaml"] = &fstest.MapFile{Data: []byte("releases:\n- name: v2.0.0\n- name: v1.0.0\n")}
	fsys["releases/v1.0.0/rego/select.rego"] = &fstest.MapFile{Data: []byte("package ome.select\n")}
	set, err := Load(fsys, "test")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := set.ForRelease("v1.0.0"); err == nil || !strings.Contains(err.Error(), "releases/v1.0.0/rego/select.rego changes rego/select.rego, which is not there") {
		t.Fatalf("error %v", err)
	}
	// A folder without releases.yaml states the embedded list's newest.
	set, err = Load(base(), "test")
	if err != nil {
		t.Fatal(err)
	}
	if got := set.Releases(); len(got) != 1 || got[0] != EmbeddedReleases()[0] {
		t.Errorf("releases %v", got)
	}
}

// source is f's text, with its release's changes applied.
func source(t testing.TB, f File) string {
	t.Helper()
	text, err := f.Source()
	if err != nil {
		t.Fatal(err)
	}
	return text
}

// An embedded release's changes are applied to a file when its text is
// first read, so that a command parses the files it compiles and no other;
// a folder's are applied as the release is chosen, so that a change that
// does not apply is said at once (TestReleasesFolderErrors).
func TestEmbeddedChangesAppliedWhenRead(t *testing.T) {
	set, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	old, err := set.Only(Rego).ForRelease("v0.1.4")
	if err != nil {
		t.Fatal(err)
	}
	var changed []File
	for _, f := range old.Files {
		if len(f.Changes) > 0 {
			changed = append(changed, f)
		}
	}
	if len(changed) < 2 {
		t.Fatalf("v0.1.4 changes %d Rego files", len(changed))
	}
	for _, f := range changed {
		if f.text.make == nil {
			t.Errorf("%s: changed before it is read", f.Path)
		}
	}
	match := changed[slices.IndexFunc(changed, func(f File) bool { return f.Path == "rego/match.rego" })]
	text := source(t, match)
	if !strings.Contains(text, "# embedded:releases/v0.1.4/rego/match.rego:\n") {
		t.Errorf("match.rego read without v0.1.4's change")
	}
	for _, f := range changed {
		if made := f.text.make == nil; made != (f.Path == "rego/match.rego") {
			t.Errorf("%s: made %v after match.rego alone was read", f.Path, made)
		}
	}
}
