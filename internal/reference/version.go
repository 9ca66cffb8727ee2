package reference

import (
	"slices"
	"strconv"
)

// The meaning of versions and sizes, written here a second time from the
// spec (sections 3, 4 and 9) and docs/ome-releases.md, so that the
// differential tests check the product's own code for them (package
// builtins) instead of sharing it. This package must import nothing of the
// module: see independence_test.go.

// omeVersion is a version read as the spec's section 3 says. The suffixes
// are kept as written: two lists of non-empty parts split on "." are equal
// exactly when their texts are.
type omeVersion struct {
	v     bool      // a lowercase "v" in front
	count int       // how many numbers were written: 1, 2 or 3
	nums  [3]uint64 // major, minor, patch; 0 when not written
	dev   string    // after the "." that follows the third number
	pre   string    // after the first "-"
	build string    // after the first "+"
}

func (v omeVersion) suffixed() bool { return v.dev != "" || v.pre != "" || v.build != "" }

// readVersion reads s from left to right: an optional "v", then numbers
// separated by "."; after the third number, a "." opens the dev suffix
// (up to the first "-" or "+"), a "-" the pre-release (up to the first
// "+") and a "+" the build (to the end). Any other character, or a suffix
// after the first or second number, and s is not a version.
func readVersion(s string) (omeVersion, bool) {
	var out omeVersion
	i := 0
	if i < len(s) && s[i] == 'v' {
		out.v = true
		i++
	}
	for out.count < 3 {
		j := i
		for j < len(s) && '0' <= s[j] && s[j] <= '9' {
			j++
		}
		digits := s[i:j]
		if digits == "" || (len(digits) > 1 && digits[0] == '0') {
			return out, false
		}
		n, err := strconv.ParseUint(digits, 10, 64)
		if err != nil {
			return out, false
		}
		out.nums[out.count] = n
		out.count++
		i = j
		if i == len(s) {
			return out, true
		}
		if s[i] != '.' {
			break
		}
		if out.count == 3 {
			break
		}
		i++
	}
	if out.count < 3 {
		// Only "." may follow the first and second numbers, and only to
		// start another number.
		return out, false
	}
	// What follows the third number: [.dev][-pre][+build], in that order.
	rest := s[i:]
	if rest != "" && rest[0] == '.' {
		end := 1
		for end < len(rest) && rest[end] != '-' && rest[end] != '+' {
			end++
		}
		out.dev, rest = rest[1:end], rest[end:]
		if !partsOK(out.dev) {
			return out, false
		}
	}
	if rest != "" && rest[0] == '-' {
		end := 1
		for end < len(rest) && rest[end] != '+' {
			end++
		}
		out.pre, rest = rest[1:end], rest[end:]
		if !partsOK(out.pre) {
			return out, false
		}
	}
	if rest != "" && rest[0] == '+' {
		out.build, rest = rest[1:], ""
		if !partsOK(out.build) {
			return out, false
		}
	}
	return out, rest == ""
}

// partsOK reports whether a suffix, split on ".", has no empty part.
func partsOK(suffix string) bool {
	if suffix == "" {
		return false
	}
	last := -1
	for k := 0; k <= len(suffix); k++ {
		if k == len(suffix) || suffix[k] == '.' {
			if k-last == 1 {
				return false
			}
			last = k
		}
	}
	return true
}

// sameVersion is the spec's equality (4.2): the numbers, missing ones
// counting as 0, and each suffix; not the "v" nor how many numbers.
func sameVersion(a, b omeVersion) bool {
	return a.nums == b.nums && a.dev == b.dev && a.pre == b.pre && a.build == b.build
}

// order is the spec's ordering: major, then minor, then patch.
func order(a, b omeVersion) int { return slices.Compare(a.nums[:], b.nums[:]) }

// versionAccepts is spec 4.1 for a release: the entry's operator compares
// the entry's version (left) with the model's (right).
func (r Release) versionAccepts(op, entry, model string) bool {
	e, ok := readVersion(entry)
	if !ok {
		return false
	}
	m, ok := readVersion(model)
	if !ok {
		return false
	}
	if r.threeNumbers {
		// OME before v0.1.5 reads exactly three numbers, without a v.
		for _, x := range []omeVersion{e, m} {
			if x.count != 3 || x.v {
				return false
			}
		}
	}
	suffixed := e.suffixed() || m.suffixed()
	switch {
	case suffixed, op == "Equal":
		return sameVersion(e, m)
	case e.count != m.count, e.v != m.v:
		return false
	case op == "GreaterThan":
		return order(e, m) == 1
	case op == "GreaterThanOrEqual":
		return order(e, m) != -1
	default:
		return sameVersion(e, m)
	}
}

// sizeUnits are the suffixes a model size may end with (spec 9).
var sizeUnits = map[byte]float64{'T': 1e12, 'B': 1e9, 'M': 1e6}

// sizeOf is a model size as OME reads it: a number as Go's strconv reads
// one (OME's own code calls it), times its unit; text that is not a number
// counts as 0.
func sizeOf(s string) float64 {
	unit := 1.0
	if s != "" {
		if u, ok := sizeUnits[s[len(s)-1]]; ok {
			unit, s = u, s[:len(s)-1]
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0
	}
	return f * unit
}

// outsideRange is spec 9's size check: lo <= size <= hi, both bounds
// included, a missing bound unbounded. A size that is not a number (NaN)
// is never outside, as OME compares with < and >.
func outsideRange(size string, lo string, hasLo bool, hi string, hasHi bool) bool {
	x := sizeOf(size)
	return (hasLo && x < sizeOf(lo)) || (hasHi && x > sizeOf(hi))
}
