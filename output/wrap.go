package output

import (
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"golang.org/x/term"
)

// terminalWidth is the width of the terminal w writes to, or 0 when w is no
// terminal (a file, a pipe): text for a terminal is wrapped to its width,
// text for anything else is never cut.
func terminalWidth(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return 0
	}
	width, _, err := term.GetSize(int(f.Fd()))
	if err != nil {
		return 0
	}
	return width
}

// minWrapWidth is the narrowest terminal text is wrapped for; below it a
// wrapped line would hold a word or two, and lines are left whole.
const minWrapWidth = 40

// wrapTo writes line to b, and when it is wider than width, breaks it at
// spaces into lines of at most width characters, the continuations
// indented by hang spaces (the line's own indent plus four when hang is
// not deeper than it or deeper than half the width). The spaces inside a
// line stay as they are (a table's columns); a word wider than a line is
// cut, never dropped. Below minWrapWidth (0: no terminal) lines stay whole.
func wrapTo(b *strings.Builder, line string, width, hang int) {
	if width < minWrapWidth || utf8.RuneCountInString(line) <= width {
		b.WriteString(line)
		b.WriteByte('\n')
		return
	}
	indent := len(line) - len(strings.TrimLeft(line, " "))
	if hang <= indent || hang > width/2 {
		hang = min(indent+4, width/2)
	}
	b.WriteString(line[:indent])
	col, empty := indent, true
	newLine := func() {
		b.WriteByte('\n')
		b.WriteString(strings.Repeat(" ", hang))
		col, empty = hang, true
	}
	rest := line[indent:]
	for rest != "" {
		// The next word, with the spaces before it.
		word := strings.TrimLeft(rest, " ")
		spaces := len(rest) - len(word)
		if end := strings.IndexByte(word, ' '); end >= 0 {
			word = word[:end]
		}
		rest = rest[spaces+len(word):]
		n := utf8.RuneCountInString(word)
		if !empty && col+spaces+n > width {
			newLine()
		}
		if !empty {
			b.WriteString(strings.Repeat(" ", spaces))
			col += spaces
		}
		for col+n > width {
			if col >= width {
				newLine()
				continue
			}
			cut := cutAt(word, width-col)
			b.WriteString(word[:cut])
			word = word[cut:]
			n = utf8.RuneCountInString(word)
			newLine()
		}
		b.WriteString(word)
		col += n
		empty = empty && n == 0
	}
	b.WriteByte('\n')
}

// cutAt is the byte offset of the first n runes of s.
func cutAt(s string, n int) int {
	i := 0
	for k := 0; k < n && i < len(s); k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return i
}
