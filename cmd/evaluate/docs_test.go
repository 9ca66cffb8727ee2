package main

// The examples of README.md and docs/*.md run here, as a reader would type
// them at the repository's root. A `console` block holds commands after "$ "
// and what each prints (standard output and standard error, as a terminal
// shows them); "$ echo $?" after a command shows its exit code, and a
// command without one must exit 0. A command is `evaluate ...`, run
// in-process, optionally piped into other commands (run by sh). A console
// block right after the line "<!-- skip: REASON -->" is not run (it needs a
// live cluster, say), and the test says so with the reason.
//
// go test ./cmd/evaluate -run TestDocExamples -update rewrites every shown
// output and exit code in place (make docs).

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// docFiles are the Markdown files whose examples run: README.md and
// docs/*.md, relative to the repository's root.
func docFiles(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md"}
	more, err := filepath.Glob(filepath.Join(repo, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range more {
		rel, err := filepath.Rel(repo, f)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, filepath.ToSlash(rel))
	}
	return files
}

// fence is one fenced code block of a Markdown file.
type fence struct {
	lang  string
	start int      // the index of the line after the opening fence
	lines []string // the block's lines
	skip  string   // the reason of a "<!-- skip: REASON -->" line right before it
}

// fences reads the fenced code blocks of a Markdown file's lines.
func fences(lines []string) []fence {
	var out []fence
	for i := 0; i < len(lines); i++ {
		open := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(open, "```") {
			continue
		}
		f := fence{lang: strings.TrimSpace(strings.TrimPrefix(open, "```")), start: i + 1}
		if i > 0 {
			prev := strings.TrimSpace(lines[i-1])
			if r, ok := strings.CutPrefix(prev, "<!-- skip:"); ok {
				f.skip = strings.TrimSpace(strings.TrimSuffix(r, "-->"))
			}
		}
		j := i + 1
		for j < len(lines) && strings.TrimSpace(lines[j]) != "```" {
			j++
		}
		f.lines = lines[i+1 : min(j, len(lines))]
		out = append(out, f)
		i = j
	}
	return out
}

// example is one command of a console block and what it shows.
type example struct {
	command   string
	line      int      // the index of the command's line in the file
	output    []string // what it shows
	outFrom   int      // the index of the output's first line
	code      int      // the exit code shown by "$ echo $?", else 0
	codeLine  int      // the index of that code's line, -1 when none is shown
	codeShown bool
}

// examples splits a console block into its commands.
func examples(f fence) ([]example, error) {
	var out []example
	for k := 0; k < len(f.lines); k++ {
		line := f.lines[k]
		cmd, ok := strings.CutPrefix(line, "$ ")
		if !ok {
			return nil, fmt.Errorf("line %d: output before any command: %q", f.start+k+1, line)
		}
		end := k + 1
		for end < len(f.lines) && !strings.HasPrefix(f.lines[end], "$ ") {
			end++
		}
		if strings.TrimSpace(cmd) == "echo $?" {
			if len(out) == 0 || end != k+2 {
				return nil, fmt.Errorf("line %d: echo $? must follow a command and show one line", f.start+k+1)
			}
			code, err := strconv.Atoi(strings.TrimSpace(f.lines[k+1]))
			if err != nil {
				return nil, fmt.Errorf("line %d: echo $? shows %q, not a number", f.start+k+2, f.lines[k+1])
			}
			last := &out[len(out)-1]
			last.code, last.codeLine, last.codeShown = code, f.start+k+1, true
			k = end - 1
			continue
		}
		out = append(out, example{
			command: cmd, line: f.start + k, output: f.lines[k+1 : end], outFrom: f.start + k + 1, codeLine: -1,
		})
		k = end - 1
	}
	return out, nil
}

// shellWords splits a command line as sh does for the simple cases the
// examples use: words apart by spaces, '...' and "..." quoting, and | between
// the commands of a pipeline (returned as a word of its own).
func shellWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			if inWord {
				words, inWord = append(words, cur.String()), false
				cur.Reset()
			}
		case c == '|':
			if inWord {
				words, inWord = append(words, cur.String()), false
				cur.Reset()
			}
			words = append(words, "|")
		case c == '\'' || c == '"':
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				return nil, fmt.Errorf("unclosed %c in %q", c, s)
			}
			cur.WriteString(s[i+1 : i+1+j])
			inWord = true
			i += j + 1
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// runExample runs a command line at the repository's root: the evaluate
// command in-process, the rest of a pipeline with sh. It returns what a
// terminal shows and the pipeline's exit code.
func runExample(t *testing.T, line string) ([]string, int) {
	t.Helper()
	words, err := shellWords(line)
	if err != nil {
		t.Fatal(err)
	}
	if len(words) == 0 || words[0] != "evaluate" {
		t.Fatalf("%q: an example runs evaluate", line)
	}
	args, rest := words[1:], ""
	for i, w := range args {
		if w == "|" {
			args = args[:i]
			rest = strings.TrimSpace(line[strings.Index(line, "|")+1:])
			break
		}
	}
	var shown bytes.Buffer
	var code int
	if rest == "" {
		code = runInProcess(t, args, &shown, &shown)
	} else {
		var piped bytes.Buffer
		runInProcess(t, args, &piped, &shown)
		sh := exec.Command("sh", "-c", rest)
		sh.Stdin, sh.Stdout, sh.Stderr = &piped, &shown, &shown
		err := sh.Run()
		if exit, ok := err.(*exec.ExitError); ok {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatalf("%q: %v", rest, err)
		}
	}
	text := strings.TrimRight(shown.String(), "\n")
	if text == "" {
		return nil, code
	}
	return strings.Split(text, "\n"), code
}

// runInProcess runs evaluate with args, failing the test on a panic or
// after two minutes.
func runInProcess(t *testing.T, args []string, stdout, stderr *bytes.Buffer) int {
	t.Helper()
	type outcome struct {
		code     int
		panicked any
	}
	done := make(chan outcome, 1)
	go func() {
		var o outcome
		defer func() {
			o.panicked = recover()
			done <- o
		}()
		o.code = run(args, strings.NewReader(""), stdout, stderr)
	}()
	select {
	case o := <-done:
		if o.panicked != nil {
			t.Fatalf("evaluate %s panicked: %v", strings.Join(args, " "), o.panicked)
		}
		return o.code
	case <-time.After(2 * time.Minute):
		t.Fatalf("evaluate %s did not finish in two minutes", strings.Join(args, " "))
	}
	return 0
}

// atRepoRoot runs the rest of the test at the repository's root, where a
// reader types the examples.
func atRepoRoot(t *testing.T) {
	t.Helper()
	abs, err := filepath.Abs(repo)
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(abs)
}

// TestDocExamples runs every console example of the README and docs/ and
// compares what it prints and its exit code with what the page shows.
func TestDocExamples(t *testing.T) {
	files := docFiles(t)
	atRepoRoot(t)
	for _, file := range files {
		t.Run(file, func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(string(data), "\n")
			edits := map[int][]string{}
			for _, f := range fences(lines) {
				if f.lang != "console" {
					continue
				}
				exs, err := examples(f)
				if err != nil {
					t.Fatalf("%s: %v", file, err)
				}
				for _, ex := range exs {
					name := fmt.Sprintf("line %d", ex.line+1)
					t.Run(name, func(t *testing.T) {
						if f.skip != "" {
							t.Skipf("%s:%d: %s", file, ex.line+1, f.skip)
						}
						got, code := runExample(t, ex.command)
						if *update {
							rewriteExample(edits, ex, got, code)
							return
						}
						if strings.Join(got, "\n") != strings.Join(ex.output, "\n") {
							t.Errorf("%s:%d: $ %s\nshows:\n%s\nprints:\n%s\n(go test ./cmd/evaluate -run TestDocExamples -update rewrites it)",
								file, ex.line+1, ex.command, strings.Join(ex.output, "\n"), strings.Join(got, "\n"))
						}
						if code != ex.code {
							t.Errorf("%s:%d: $ %s exits %d; the page says %d", file, ex.line+1, ex.command, code, ex.code)
						}
					})
				}
			}
			if len(edits) > 0 {
				if err := os.WriteFile(file, []byte(strings.Join(applyEdits(lines, edits), "\n")), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// rewriteExample records, in edits (a line's index to the lines that
// replace it), got and code in place of what the page shows.
func rewriteExample(edits map[int][]string, ex example, got []string, code int) {
	lines := append([]string{"$ " + ex.command}, got...)
	if code != 0 && !ex.codeShown {
		lines = append(lines, "$ echo $?", strconv.Itoa(code))
	}
	edits[ex.line] = lines
	for k := range ex.output {
		edits[ex.outFrom+k] = []string{}
	}
	if ex.codeShown {
		if code == 0 {
			edits[ex.codeLine-1], edits[ex.codeLine] = []string{}, []string{}
		} else {
			edits[ex.codeLine] = []string{strconv.Itoa(code)}
		}
	}
}

// applyEdits gives the lines with edits made.
func applyEdits(lines []string, edits map[int][]string) []string {
	var out []string
	for i, l := range lines {
		if e, ok := edits[i]; ok {
			out = append(out, e...)
			continue
		}
		out = append(out, l)
	}
	return out
}

// TestDocPages holds the pages to the rules every reader relies on: the
// README's first code block is the two commands to start with, one per
// line, and the first one works; the README fits in 250 lines; a block that
// shows a command's output ("$ ") is a console block, so it runs above; no
// page sends a reader to a folder a clone does not have; and every link to
// a file of the repository leads to one.
func TestDocPages(t *testing.T) {
	files := docFiles(t)
	atRepoRoot(t)

	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(readme), "\n"), "\n")
	if len(lines) > 250 {
		t.Errorf("README.md has %d lines; at most 250 (the rest belongs in docs/)", len(lines))
	}
	first := fences(lines)
	if len(first) == 0 || first[0].lang != "sh" {
		t.Fatalf("README.md: the first code block must be a sh block of the commands to start with")
	}
	cmds := first[0].lines
	for _, c := range cmds {
		if strings.TrimSpace(c) == "" || strings.HasPrefix(c, "$") || strings.HasPrefix(c, "#") ||
			strings.HasPrefix(c, ">") || strings.HasSuffix(c, "\\") {
			t.Errorf("README.md's first block: %q is not a command alone on its line", c)
		}
	}
	if len(cmds) != 2 || cmds[1] != "make test" || !strings.HasPrefix(cmds[0], "go run ./cmd/evaluate ") {
		t.Fatalf("README.md's first block: want the main job (go run ./cmd/evaluate ...) then make test, got %q", cmds)
	}
	words, err := shellWords(strings.TrimPrefix(cmds[0], "go run ./cmd/evaluate "))
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := runInProcess(t, words, &out, &errOut); code != 0 || out.Len() == 0 {
		t.Errorf("README.md's first command exits %d with %d bytes of output: %s", code, out.Len(), errOut.String())
	}

	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		if strings.Contains(text, "../shared") || strings.Contains(text, "shared/spec") {
			t.Errorf("%s cites the shared folder, which a clone does not have", file)
		}
		for _, f := range fences(strings.Split(text, "\n")) {
			if f.lang == "console" || f.skip != "" {
				continue
			}
			for k, l := range f.lines {
				if strings.HasPrefix(l, "$ ") {
					t.Errorf("%s:%d: a %q block shows a command's output; make it a console block (it then runs) or mark it <!-- skip: REASON -->", file, f.start+k+1, f.lang)
					break
				}
			}
		}
		checkLinks(t, file, text)
	}
}

// notYet are links to pages that other work adds.
var notYet = map[string]string{
	"docs/cluster-input.md": "reading objects from a cluster (issue 41)",
}

// checkLinks fails for a relative Markdown link to a file that does not exist.
func checkLinks(t *testing.T, file, text string) {
	t.Helper()
	// A fenced block renders no link: what it shows (a regular expression
	// in a message, say) is left out.
	var prose []string
	fenced := false
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			prose = append(prose, l)
		}
	}
	for rest := strings.Join(prose, "\n"); ; {
		i := strings.Index(rest, "](")
		if i < 0 {
			return
		}
		rest = rest[i+2:]
		j := strings.IndexByte(rest, ')')
		if j < 0 {
			return
		}
		target := rest[:j]
		if strings.Contains(target, "://") || strings.HasPrefix(target, "#") || strings.HasPrefix(target, "mailto:") {
			continue
		}
		target, _, _ = strings.Cut(target, "#")
		path := filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(file), target)))
		if _, ok := notYet[path]; ok {
			continue
		}
		if _, err := os.Stat(path); err != nil {
			t.Errorf("%s links to %s, which does not exist", file, target)
		}
	}
}

// docs/policies.md names every builtin that `evaluate policies --functions`
// lists: the Rego builtins and the CEL library's functions.
func TestPoliciesDocNamesEveryBuiltin(t *testing.T) {
	doc, err := os.ReadFile(at("docs/policies.md"))
	if err != nil {
		t.Fatal(err)
	}
	r := evaluate(t, time.Minute, "", "policies", "--functions")
	n := 0
	for _, line := range strings.Split(r.stdout, "\n") {
		var name string
		switch {
		case strings.HasPrefix(line, "  ome."):
			name, _, _ = strings.Cut(strings.TrimSpace(line), "(")
		case strings.HasPrefix(line, "  ") && !strings.HasPrefix(line, "    ") && strings.Contains(line, " -> "):
			name = strings.TrimSpace(line) // a CEL overload, written whole
		default:
			continue
		}
		n++
		if !bytes.Contains(doc, []byte("`"+name)) {
			t.Errorf("docs/policies.md does not name %s", name)
		}
	}
	if n < 20 {
		t.Fatalf("read %d builtins from policies --functions; the test no longer reads its output", n)
	}
}

// TestRulesDocQuotesTheExample: every Rego block of docs/rules.md is
// written, as it stands, in a file of examples/company-rules, whose tests
// and runs hold it to what it says.
func TestRulesDocQuotesTheExample(t *testing.T) {
	doc, err := os.ReadFile(at("docs/rules.md"))
	require.NoError(t, err)
	files, err := filepath.Glob(filepath.Join(companyRules, "*.rego"))
	require.NoError(t, err)
	var sources []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		sources = append(sources, string(b))
	}
	blocks := strings.Split(string(doc), "```rego\n")[1:]
	require.NotEmpty(t, blocks)
	for _, b := range blocks {
		block := b[:strings.Index(b, "```")]
		found := false
		for _, s := range sources {
			found = found || strings.Contains(s, block)
		}
		require.True(t, found, "docs/rules.md quotes Rego that no file of %s holds:\n%s", companyRules, block)
	}
}
