package output

import (
	"io"
	"os"
)

// Style says how text output may look. Colour is only for a terminal: text
// written to a file or a pipe stays plain.
type Style struct {
	Color bool
}

// StyleFor returns the style for text written to w: colour when w is a
// terminal, unless noColor (--no-color) or the NO_COLOR environment
// variable (https://no-color.org: set and not empty) says otherwise.
func StyleFor(w io.Writer, noColor bool) Style {
	if noColor || os.Getenv("NO_COLOR") != "" {
		return Style{}
	}
	f, ok := w.(*os.File)
	if !ok {
		return Style{}
	}
	fi, err := f.Stat()
	if err != nil {
		return Style{}
	}
	return Style{Color: fi.Mode()&os.ModeCharDevice != 0}
}

const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiRed    = "\x1b[31m"
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
	ansiCyan   = "\x1b[36m"
)

func (s Style) paint(code, text string) string {
	if !s.Color || text == "" {
		return text
	}
	return code + text + ansiReset
}

// severity colours a severity word: errors red, warnings yellow, info cyan.
func (s Style) severity(sev string) string {
	switch sev {
	case "error":
		return s.paint(ansiRed+ansiBold, sev)
	case "warning":
		return s.paint(ansiYellow, sev)
	}
	return s.paint(ansiCyan, sev)
}

// verdict colours a pass (green) or a failure (red).
func (s Style) verdict(ok bool, text string) string {
	if ok {
		return s.paint(ansiGreen, text)
	}
	return s.paint(ansiRed+ansiBold, text)
}
