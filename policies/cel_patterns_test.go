package policies

import (
	"io/fs"
	"path"
	"regexp"
	"strings"
	"testing"
)

// CEL compiles the pattern of matches() once with the program when it is a
// literal, and at every call otherwise; lint calls matches() for every entry
// of every runtime, and a pattern chosen by a variable once cost a third of
// its time. Every matches() of the CEL policies, of every release, takes a
// literal.
func TestCELMatchesTakeLiteralPatterns(t *testing.T) {
	call := regexp.MustCompile(`\.matches\(\s*(.)`)
	files := 0
	err := fs.WalkDir(FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path.Ext(p) != ".yaml" || !strings.Contains("/"+p, "/cel/") {
			return err
		}
		files++
		b, err := fs.ReadFile(FS, p)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			for _, m := range call.FindAllStringSubmatch(line, -1) {
				if m[1] != `"` && m[1] != `'` {
					t.Errorf("%s:%d: matches() with a pattern that is not a literal, compiled at every call: %s", p, i+1, strings.TrimSpace(line))
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files == 0 {
		t.Fatal("no CEL policy read")
	}
}
