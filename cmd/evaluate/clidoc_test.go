package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/ome-policy/evaluator/output/about"
	"github.com/ome-policy/evaluator/results"
)

// cliDoc is docs/cli.md: every command's --help, from the command tree
// itself, in the tree's order.
func cliDoc() string {
	root := newRoot(&globalOptions{stdin: strings.NewReader("")}, &bytes.Buffer{}, &bytes.Buffer{})
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	var b strings.Builder
	b.WriteString("# Command reference\n\n")
	b.WriteString("What `evaluate COMMAND --help` prints, for every command. Generated from\n")
	b.WriteString("the commands themselves: `make docs` rewrites this page, and a test fails\n")
	b.WriteString("when it is stale.\n\n")
	var walk func(c *cobra.Command)
	var toc, body strings.Builder
	walk = func(c *cobra.Command) {
		if c.Hidden || c.Name() == "help" || c.Name() == "completion" {
			return
		}
		path := c.CommandPath()
		anchor := strings.ReplaceAll(path, " ", "-")
		fmt.Fprintf(&toc, "- [`%s`](#%s): %s\n", path, anchor, c.Short)
		fmt.Fprintf(&body, "## %s\n\n", path)
		var help bytes.Buffer
		c.SetOut(&help)
		c.SetErr(&help)
		_ = c.Help()
		fmt.Fprintf(&body, "```text\n%s\n```\n\n", strings.TrimRight(help.String(), "\n"))
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	b.WriteString(toc.String())
	b.WriteString("\n")
	b.WriteString(strings.TrimRight(body.String(), "\n") + "\n")
	return b.String()
}

// TestCLIDocIsCurrent fails when docs/cli.md differs from the commands'
// help; -update (make docs) rewrites it.
func TestCLIDocIsCurrent(t *testing.T) {
	path := filepath.Join(repo, "docs", "cli.md")
	want := cliDoc()
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("docs/cli.md is stale: run make docs (go test ./cmd/evaluate -run TestCLIDocIsCurrent -update)")
	}
	for _, name := range []string{"match", "select", "lint", "explain", "test", "report", "gatekeeper violations", "version"} {
		if !strings.Contains(want, "## evaluate "+name+"\n") {
			t.Errorf("docs/cli.md has no section for evaluate %s", name)
		}
	}
}

// compatibilityTable is the table docs/compatibility.md holds between its
// markers: the facts of `evaluate version` that do not depend on the build.
func compatibilityTable(v results.Version) string {
	var b strings.Builder
	b.WriteString("| | version |\n|---|---|\n")
	for _, row := range about.Rows(v)[1:] {
		fmt.Fprintf(&b, "| %s | %s |\n", row[0], row[1])
	}
	return b.String()
}

const (
	compatBegin = "<!-- evaluate version: begin -->\n"
	compatEnd   = "<!-- evaluate version: end -->\n"
)

// TestCompatibilityDocIsCurrent keeps docs/compatibility.md's table equal to
// what `evaluate version` prints; -update rewrites the table.
func TestCompatibilityDocIsCurrent(t *testing.T) {
	path := filepath.Join(repo, "docs", "compatibility.md")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	i, j := strings.Index(doc, compatBegin), strings.Index(doc, compatEnd)
	if i < 0 || j < i {
		t.Fatalf("%s: no %q ... %q markers", path, compatBegin, compatEnd)
	}
	want := compatibilityTable(buildVersion())
	if got := doc[i+len(compatBegin) : j]; got != want {
		if *update {
			doc = doc[:i+len(compatBegin)] + want + doc[j:]
			if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Errorf("docs/compatibility.md states\n%s\nevaluate version says\n%s(go test ./cmd/evaluate -run TestCompatibilityDocIsCurrent -update)", got, want)
	}
}
