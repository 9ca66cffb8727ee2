package main

import (
	"fmt"
	"regexp"
	"strings"
)

// The kinds of change of the release notes, in their order. A commit's
// kind follows from its subject: the area before the first colon
// ("docs/ci.md: ...", "engine: ...", "perf(rego): ...") when it has one,
// then words of the subject.
var kinds = []string{
	"Policies and admission bundles",
	"Commands and engines",
	"Fixes",
	"Performance and benchmarks",
	"Tests",
	"Documentation",
	"Build, release and CI",
}

var (
	fixWords   = regexp.MustCompile(`(?i)\b(fix|fixes|fixed|not a panic)\b`)
	perfArea   = regexp.MustCompile(`(?i)^(perf|bench)\b`)
	docsArea   = regexp.MustCompile(`(?i)^(readme|docs?)\b|\.md$`)
	testArea   = regexp.MustCompile(`(?i)\btests?\b|^(e2e|testdata|cases)\b|_test\.go$`)
	buildArea  = regexp.MustCompile(`(?i)^(make|makefile|gofmt|go\.mod|go\.sum|tools|scripts|\.ci|release|action\.yml|\.gitignore)\b`)
	policyArea = regexp.MustCompile(`(?i)^(policies|gatekeeper|kyverno|omeversionlint|omeruntimeselection)\b|\.rego$|^evaluate (gatekeeper|kyverno)\b`)
)

// kindOf is the kind of a commit subject; "" for merges, which the notes
// leave out (their branches' commits are listed).
func kindOf(subject string) string {
	if strings.HasPrefix(subject, "Merge ") {
		return ""
	}
	area, _, found := strings.Cut(subject, ":")
	if !found || strings.Contains(area, " ") && !strings.HasPrefix(area, "evaluate ") && !strings.HasSuffix(area, " tests") {
		area = ""
	}
	area = strings.TrimSpace(area)
	switch {
	case buildArea.MatchString(area) || buildArea.MatchString(subject):
		return "Build, release and CI"
	case perfArea.MatchString(area) || area == "" && perfArea.MatchString(subject):
		return "Performance and benchmarks"
	case docsArea.MatchString(area):
		return "Documentation"
	case testArea.MatchString(area) || area == "" && strings.HasPrefix(subject, "Tests"):
		return "Tests"
	case fixWords.MatchString(subject):
		return "Fixes"
	case policyArea.MatchString(area) || area == "" && policyArea.MatchString(subject):
		return "Policies and admission bundles"
	}
	return "Commands and engines"
}

// changelog is the release notes: the subjects of the commits since the
// tag before (else of every commit), grouped by kind, oldest first.
func changelog(repo string, src source) ([]byte, error) {
	rng := "HEAD"
	if src.Previous != "" {
		rng = src.Previous + "..HEAD"
	}
	log, err := git(repo, "log", "--reverse", "--no-merges", "--format=%s", rng)
	if err != nil {
		return nil, err
	}
	return notes(src, strings.Split(log, "\n")), nil
}

// notes writes the release notes of the subjects.
func notes(src source, subjects []string) []byte {
	byKind := map[string][]string{}
	n := 0
	for _, s := range subjects {
		s = strings.TrimSpace(s)
		if k := kindOf(s); s != "" && k != "" {
			byKind[k] = append(byKind[k], s)
			n++
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# evaluate %s\n\n", src.Version)
	since := "since the first commit"
	if src.Previous != "" {
		since = "since " + src.Previous
	}
	fmt.Fprintf(&b, "%d changes %s, by kind; revision %s.\n", n, since, src.Revision)
	for _, k := range kinds {
		if len(byKind[k]) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n## %s\n\n", k)
		for _, s := range byKind[k] {
			fmt.Fprintf(&b, "- %s\n", s)
		}
	}
	return []byte(b.String())
}
