package objects

import (
	"bytes"
	"fmt"
	"strings"
)

// FromStdin ends the file of a document of standard input that a Helm
// "# Source: PATH" comment names: its file is "PATH (stdin)", and its
// lines are standard input's.
const FromStdin = " (stdin)"

// FileLine is where a line of a file is, as every output says it:
// "file:line", "file" when the line is unknown (0), and for a document of
// standard input that a "# Source: PATH" comment names, "PATH (stdin:line)".
func FileLine(file string, line int) string {
	if line <= 0 {
		return file
	}
	if path, ok := SourcePath(file); ok {
		return fmt.Sprintf("%s (stdin:%d)", path, line)
	}
	return fmt.Sprintf("%s:%d", file, line)
}

// SourcePath is the path that a "# Source:" comment named for a document
// of standard input whose file is file, and whether there was one.
func SourcePath(file string) (string, bool) {
	return strings.CutSuffix(file, FromStdin)
}

// HelmSource is the path of the "# Source: PATH" comment that heads a
// document, as helm template writes one before each, or "": only the
// comments and blank lines before the document's first content count.
func HelmSource(doc []byte) string {
	for len(doc) > 0 {
		line := doc
		if i := bytes.IndexByte(doc, '\n'); i >= 0 {
			line, doc = doc[:i], doc[i+1:]
		} else {
			doc = nil
		}
		l := strings.TrimSpace(string(line))
		switch {
		case l == "" || IsDocumentMarker(line):
		case strings.HasPrefix(l, "# Source: "):
			return strings.TrimSpace(strings.TrimPrefix(l, "# Source: "))
		case strings.HasPrefix(l, "#"):
		default:
			return ""
		}
	}
	return ""
}

func IsDocumentMarker(l []byte) bool {
	if !bytes.HasPrefix(l, []byte("---")) {
		return false
	}
	rest := l[3:]
	return len(rest) == 0 || rest[0] == ' ' || rest[0] == '\t' || rest[0] == '\n' || rest[0] == '\r'
}
