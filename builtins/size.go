package builtins

import (
	"math"
	"strconv"
	"strings"
)

// ParseModelSize reads a model parameter size as OME does: a decimal number
// with an optional suffix T (10^12), B (10^9) or M (10^6). Text that is not
// such a number counts as 0.
func ParseModelSize(s string) float64 {
	number, mult := sizeNumber(s)
	f, err := strconv.ParseFloat(number, 64)
	if err != nil {
		return 0
	}
	return f * mult
}

// sizeNumber splits a size as OME does: one last T, B or M off, with its
// multiplier (1 when there is none).
func sizeNumber(s string) (string, float64) {
	switch {
	case strings.HasSuffix(s, "T"):
		return strings.TrimSuffix(s, "T"), 1e12
	case strings.HasSuffix(s, "B"):
		return strings.TrimSuffix(s, "B"), 1e9
	case strings.HasSuffix(s, "M"):
		return strings.TrimSuffix(s, "M"), 1e6
	}
	return s, 1
}

// SizeParses reports whether OME reads s as the size it writes: what is
// left once one last T, B or M is off, strconv.ParseFloat takes. Any other
// text OME reads as 0 without a word, whatever it meant: "8b" (a
// lower-case suffix), "7 B", "7G", "1.5K", "seven", "", and a number
// beyond the largest float64.
func SizeParses(s string) bool {
	number, _ := sizeNumber(s)
	return IsFloat(number)
}

// SizeValue is ParseModelSize for arithmetic, such as how far a size lies
// from a range's bounds: a size that is not a finite number (NaN, Inf)
// counts as 0, like any other size that is not a number.
func SizeValue(s string) float64 {
	f := ParseModelSize(s)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return f
}

// CompareSizes orders two model sizes after ParseModelSize: -1 when a < b,
// 1 when a > b, otherwise 0. Like OME's own comparison, a size that is not a
// number (NaN) is neither smaller nor larger than anything.
func CompareSizes(a, b string) int {
	x, y := ParseModelSize(a), ParseModelSize(b)
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}
