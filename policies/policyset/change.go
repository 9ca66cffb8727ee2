package policyset

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"gopkg.in/yaml.v3"
)

// How a release's change file replaces definitions of the file it changes,
// in its text, so that the result reads as a policy file: each replaced
// definition, with the comment lines right above it, gives way to the
// change's definitions of that name, with theirs, under a comment line
// naming the change file. The engines then read the result as they read
// any policy file.

// span is a part of a text, [start, end) in bytes.
type span struct{ start, end int }

// edit replaces a span of a text.
type edit struct {
	span
	text string
}

// applyEdits applies edits that do not overlap.
func applyEdits(text string, edits []edit) string {
	sort.Slice(edits, func(i, j int) bool { return edits[i].start > edits[j].start })
	for _, e := range edits {
		text = text[:e.start] + e.text + text[e.end:]
	}
	return text
}

// lineStart is the offset of the start of the line that holds offset off.
func lineStart(text string, off int) int { return strings.LastIndexByte(text[:off], '\n') + 1 }

// lineEnd is the offset just past the end of the line that holds offset
// off (past its newline).
func lineEnd(text string, off int) int {
	if i := strings.IndexByte(text[off:], '\n'); i >= 0 {
		return off + i + 1
	}
	return len(text)
}

// withComments extends a span that starts a line upward over the comment
// lines right above it.
func withComments(text string, s span) span {
	for s.start > 0 {
		prev := lineStart(text, s.start-1)
		if !strings.HasPrefix(strings.TrimSpace(text[prev:s.start]), "#") {
			break
		}
		s.start = prev
	}
	return s
}

// withBlankLine extends a span over the blank line that follows it, if
// any, so that removing it leaves no double blank line.
func withBlankLine(text string, s span) span {
	if s.end < len(text) {
		if e := lineEnd(text, s.end); strings.TrimSpace(text[s.end:e]) == "" {
			s.end = e
		}
	}
	return s
}

// named is a definition in a text: its name and its span, with its
// comments.
type named struct {
	name string
	span
}

// regoRules lists a module's rules, each from the comment lines above it to
// the end of its last line (a rule's else branches are part of it).
func regoRules(where, text string) (*ast.Module, []named, error) {
	m, err := ast.ParseModuleWithOpts(where, text, ast.ParserOptions{RegoVersion: ast.RegoV1})
	if err != nil {
		return nil, nil, err
	}
	var out []named
	for _, r := range m.Rules {
		off := r.Location.Offset
		s := span{lineStart(text, off), lineEnd(text, off+len(r.Location.Text))}
		out = append(out, named{name: r.Head.Ref().String(), span: withComments(text, s)})
	}
	return m, out, nil
}

// replaceRegoRules replaces, in a Rego module, every rule of a name the
// change defines by the change's rules of that name (where the first of
// them was), and adds the change's rules of other names at its end.
func replaceRegoRules(base, change, where string) (string, error) {
	bm, baseRules, err := regoRules("base", base)
	if err != nil {
		return "", err
	}
	cm, changeRules, err := regoRules(where, change)
	if err != nil {
		return "", err
	}
	if !bm.Package.Path.Equal(cm.Package.Path) {
		pkg := func(m *ast.Module) string { return strings.TrimPrefix(m.Package.Path.String(), "data.") }
		return "", fmt.Errorf("%s: package %s, but the file it changes is package %s", where, pkg(cm), pkg(bm))
	}
	for _, imp := range cm.Imports {
		if !slices.ContainsFunc(bm.Imports, func(b *ast.Import) bool { return b.Equal(imp) }) {
			return "", fmt.Errorf("%s:%d: import %s, which the file it changes does not import", where, imp.Location.Row, imp.Path)
		}
	}
	var names []string
	texts := map[string][]string{}
	for _, r := range changeRules {
		if texts[r.name] == nil {
			names = append(names, r.name)
		}
		texts[r.name] = append(texts[r.name], change[r.start:r.end])
	}
	var edits []edit
	var added []string
	for _, name := range names {
		replacement := "# " + where + ":\n" + strings.Join(texts[name], "\n")
		first := true
		for _, r := range baseRules {
			if r.name != name {
				continue
			}
			if first {
				edits = append(edits, edit{span: r.span, text: replacement})
				first = false
			} else {
				edits = append(edits, edit{span: withBlankLine(base, r.span)})
			}
		}
		if first {
			added = append(added, replacement)
		}
	}
	out := applyEdits(base, edits)
	for _, a := range added {
		out = strings.TrimRight(out, "\n") + "\n\n" + a
	}
	return out, nil
}

// celDoc is a CEL policy document of a file: its name and its variables'
// spans, with the indentation of their items.
type celDoc struct {
	name      string
	line      int
	vars      []named
	varLines  map[string]int
	indent    int // of the variables' "-"
	validates bool
}

// celDocs lists a CEL policy file's documents, with each variable from the
// comment lines above its item to its last line.
func celDocs(where, text string) ([]celDoc, error) {
	lines := lineOffsets(text)
	dec := yaml.NewDecoder(strings.NewReader(text))
	var out []celDoc
	for {
		var n yaml.Node
		if err := dec.Decode(&n); err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		if len(n.Content) == 0 {
			continue
		}
		root := n.Content[0]
		d := celDoc{line: root.Line, varLines: map[string]int{}}
		if md := mapValue(root, "metadata"); md != nil {
			if nm := mapValue(md, "name"); nm != nil {
				d.name = nm.Value
			}
		}
		spec := mapValue(root, "spec")
		if spec != nil {
			d.validates = mapValue(spec, "validations") != nil || mapValue(spec, "inputs") != nil
		}
		vars := mapValue(spec, "variables")
		if vars == nil {
			out = append(out, d)
			continue
		}
		items := vars.Content
		for i, it := range items {
			nm := mapValue(it, "name")
			if nm == nil {
				return nil, fmt.Errorf("%s:%d: a variable without a name", where, it.Line)
			}
			d.indent = it.Column - 3
			start := lines[it.Line-1]
			var end int
			if i+1 < len(items) {
				end = withComments(text, span{lines[items[i+1].Line-1], 0}).start
			} else {
				end = itemEnd(text, lines, it.Line, d.indent)
			}
			s := withComments(text, span{start, end})
			d.vars = append(d.vars, named{name: nm.Value, span: span{s.start, trimBlankLines(text, s.start, s.end)}})
			d.varLines[nm.Value] = it.Line
		}
		out = append(out, d)
	}
}

// itemEnd is where the last item of a list, on line (1-based), ends: at
// the first line after it that is not blank and is indented no more than
// the item's "-", or at the end of the document.
func itemEnd(text string, lines []int, line, indent int) int {
	for l := line; l < len(lines); l++ {
		s := text[lines[l]:lineEnd(text, lines[l])]
		trimmed := strings.TrimSpace(s)
		if trimmed == "" {
			continue
		}
		if len(s)-len(strings.TrimLeft(s, " ")) <= indent || strings.HasPrefix(s, "---") {
			return lines[l]
		}
	}
	return len(text)
}

// trimBlankLines moves end back over the blank lines that end [start, end).
func trimBlankLines(text string, start, end int) int {
	for end > start {
		prev := lineStart(text, end-1)
		if strings.TrimSpace(text[prev:end]) != "" {
			break
		}
		end = prev
	}
	return end
}

// lineOffsets gives the offset of each line's start.
func lineOffsets(text string) []int {
	out := []int{0}
	for i, c := range text {
		if c == '\n' && i+1 < len(text) {
			out = append(out, i+1)
		}
	}
	return out
}

func mapValue(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// replaceCELVariables replaces, in a CEL policy file, each variable the
// change gives (by its policy's metadata.name and its name) with the
// change's, indented as the file's. A change gives variables only.
func replaceCELVariables(base, change, where string) (string, error) {
	baseDocs, err := celDocs("base", base)
	if err != nil {
		return "", err
	}
	changeDocs, err := celDocs(where, change)
	if err != nil {
		return "", err
	}
	var edits []edit
	for _, cd := range changeDocs {
		if cd.validates {
			return "", fmt.Errorf("%s:%d: policy %s: a change gives variables only", where, cd.line, cd.name)
		}
		i := slices.IndexFunc(baseDocs, func(d celDoc) bool { return d.name == cd.name })
		if i < 0 {
			return "", fmt.Errorf("%s:%d: no policy %s to change", where, cd.line, cd.name)
		}
		bd := baseDocs[i]
		for _, v := range cd.vars {
			j := slices.IndexFunc(bd.vars, func(b named) bool { return b.name == v.name })
			if j < 0 {
				return "", fmt.Errorf("%s:%d: policy %s has no variable %s to replace", where, cd.varLines[v.name], cd.name, v.name)
			}
			text := reindent(change[v.start:v.end], bd.indent-cd.indent)
			marker := strings.Repeat(" ", bd.indent) + "# " + where + ":\n"
			edits = append(edits, edit{span: bd.vars[j].span, text: marker + text})
		}
	}
	return applyEdits(base, edits), nil
}

// reindent moves every line that is not blank by delta spaces.
func reindent(text string, delta int) string {
	if delta == 0 {
		return text
	}
	lines := strings.SplitAfter(text, "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if delta > 0 {
			lines[i] = strings.Repeat(" ", delta) + l
		} else {
			lines[i] = l[min(-delta, len(l)-len(strings.TrimLeft(l, " "))):]
		}
	}
	return strings.Join(lines, "")
}
