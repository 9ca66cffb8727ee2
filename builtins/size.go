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
	mult := 1.0
	switch {
	case strings.HasSuffix(s, "T"):
		mult, s = 1e12, strings.TrimSuffix(s, "T")
	case strings.HasSuffix(s, "B"):
		mult, s = 1e9, strings.TrimSuffix(s, "B")
	case strings.HasSuffix(s, "M"):
		mult, s = 1e6, strings.TrimSuffix(s, "M")
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0
	}
	return f * mult
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
