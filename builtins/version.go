// Package builtins holds the plain-Go semantics of OME model versions: the
// parser, suffix and shape queries, equality and numeric ordering. It knows
// nothing of CEL or OPA: the packages cellib and regolib register it with
// each engine, so that a program that needs neither links neither.
//
// A version is one to three dot-separated decimal numbers with an optional
// lowercase "v" in front. Suffixes may follow the third number only: a dev
// suffix after ".", a pre-release after "-" and build metadata after "+".
// The text is split in this order: build (after the first "+"), then
// pre-release (after the first "-" of what is left), then the numbers and dev
// parts (split on "."): the first three pieces are the numbers, the rest dev.
package builtins

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Version is a parsed OME version.
type Version struct {
	// Original is the text the version was parsed from.
	Original string
	// V is true when the text starts with a lowercase "v".
	V bool
	// Parts is how many numbers were written: 1, 2 or 3.
	Parts int
	// Major, Minor and Patch are the numbers; a number not written is 0.
	Major, Minor, Patch uint64
	// Dev, Pre and Build are the suffix parts; nil when absent.
	Dev, Pre, Build []string
}

// ParseError explains why a version does not parse.
type ParseError struct {
	Input  string
	Reason string
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("invalid version %q: %s", e.Input, e.Reason)
}

func parseErr(s, format string, args ...any) error {
	return &ParseError{Input: s, Reason: fmt.Sprintf(format, args...)}
}

// Parse parses an OME version. It never panics; text that is not a version
// yields a *ParseError saying why.
func Parse(s string) (Version, error) {
	if s == "" {
		return Version{}, &ParseError{Input: s, Reason: "the version is empty"}
	}
	v := Version{Original: s}
	rest := s
	if strings.HasPrefix(rest, "v") {
		v.V = true
		rest = rest[1:]
	}
	var hasBuild, hasPre bool
	var build, pre string
	if i := strings.IndexByte(rest, '+'); i >= 0 {
		hasBuild, build, rest = true, rest[i+1:], rest[:i]
	}
	if i := strings.IndexByte(rest, '-'); i >= 0 {
		hasPre, pre, rest = true, rest[i+1:], rest[:i]
	}
	pieces := strings.Split(rest, ".")
	numbers := pieces
	var dev []string
	if len(pieces) > 3 {
		numbers, dev = pieces[:3], pieces[3:]
	}
	for i, p := range numbers {
		n, err := parseNumber(p)
		if err != nil {
			if i > 0 && p != "" && !isDigits(p) {
				return Version{}, parseErr(s, "number %d: %s (a suffix may only follow the third number, after \".\", \"-\" or \"+\")", i+1, err)
			}
			return Version{}, parseErr(s, "number %d: %s", i+1, err)
		}
		switch i {
		case 0:
			v.Major = n
		case 1:
			v.Minor = n
		case 2:
			v.Patch = n
		}
	}
	v.Parts = len(numbers)
	if (hasPre || hasBuild) && v.Parts < 3 {
		return Version{}, parseErr(s, "a suffix may only follow the third number")
	}
	if len(dev) > 0 {
		if err := checkParts(dev); err != nil {
			return Version{}, parseErr(s, "dev suffix: %s", err)
		}
		v.Dev = dev
	}
	if hasPre {
		parts := strings.Split(pre, ".")
		if err := checkParts(parts); err != nil {
			return Version{}, parseErr(s, "pre-release suffix: %s", err)
		}
		v.Pre = parts
	}
	if hasBuild {
		parts := strings.Split(build, ".")
		if err := checkParts(parts); err != nil {
			return Version{}, parseErr(s, "build suffix: %s", err)
		}
		v.Build = parts
	}
	return v, nil
}

func isDigits(p string) bool {
	if p == "" {
		return false
	}
	for i := 0; i < len(p); i++ {
		if p[i] < '0' || p[i] > '9' {
			return false
		}
	}
	return true
}

func parseNumber(p string) (uint64, error) {
	switch {
	case p == "":
		return 0, errors.New("a number is missing")
	case !isDigits(p):
		return 0, fmt.Errorf("%q is not a decimal number", p)
	case len(p) > 1 && p[0] == '0':
		return 0, fmt.Errorf("%q has a leading zero", p)
	}
	n, err := strconv.ParseUint(p, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q does not fit in 64 bits", p)
	}
	return n, nil
}

func checkParts(parts []string) error {
	for _, p := range parts {
		if p == "" {
			return errors.New("a part is empty")
		}
	}
	return nil
}

// IsValid reports whether s parses as an OME version.
func IsValid(s string) bool {
	_, err := Parse(s)
	return err == nil
}

// Problem says why s does not parse as an OME version ("a suffix may only
// follow the third number"), or returns "" when it does.
func Problem(s string) string {
	_, err := ParseCached(s)
	if pe, ok := err.(*ParseError); ok {
		return pe.Reason
	}
	if err != nil {
		return err.Error()
	}
	return ""
}

// HasSuffix reports whether v has a dev, pre-release or build suffix.
func (v Version) HasSuffix() bool {
	return len(v.Dev) > 0 || len(v.Pre) > 0 || len(v.Build) > 0
}

// Equal reports whether a and b are equal as OME compares them: the same
// three numbers (missing numbers are 0) and the same dev, pre-release and
// build parts. The "v" and the number of parts do not matter.
func Equal(a, b Version) bool {
	return a.Major == b.Major && a.Minor == b.Minor && a.Patch == b.Patch &&
		equalParts(a.Dev, b.Dev) && equalParts(a.Pre, b.Pre) && equalParts(a.Build, b.Build)
}

func equalParts(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Compare orders a and b by major, then minor, then patch, numerically; it
// returns -1, 0 or +1. Suffixes, the "v" and the number of parts are not
// looked at.
func Compare(a, b Version) int {
	for _, p := range [3][2]uint64{{a.Major, b.Major}, {a.Minor, b.Minor}, {a.Patch, b.Patch}} {
		switch {
		case p[0] < p[1]:
			return -1
		case p[0] > p[1]:
			return 1
		}
	}
	return 0
}

// String writes the version back in its canonical form, which is the text it
// was parsed from.
func (v Version) String() string {
	var b strings.Builder
	if v.V {
		b.WriteByte('v')
	}
	nums := [3]uint64{v.Major, v.Minor, v.Patch}
	for i := 0; i < v.Parts; i++ {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(strconv.FormatUint(nums[i], 10))
	}
	for _, d := range v.Dev {
		b.WriteByte('.')
		b.WriteString(d)
	}
	if len(v.Pre) > 0 {
		b.WriteByte('-')
		b.WriteString(strings.Join(v.Pre, "."))
	}
	if len(v.Build) > 0 {
		b.WriteByte('+')
		b.WriteString(strings.Join(v.Build, "."))
	}
	return b.String()
}
