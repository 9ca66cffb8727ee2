package reference

import (
	"math"
	"testing"
)

// The spec's section 3, read by the reference's own parser.
func TestReadVersion(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want omeVersion
	}{
		{"1", omeVersion{count: 1, nums: [3]uint64{1}}},
		{"v1.2", omeVersion{v: true, count: 2, nums: [3]uint64{1, 2}}},
		{"0.0.0", omeVersion{count: 3}},
		{"4.45.0.dev0", omeVersion{count: 3, nums: [3]uint64{4, 45, 0}, dev: "dev0"}},
		{"4.45.0.dev0.post1", omeVersion{count: 3, nums: [3]uint64{4, 45, 0}, dev: "dev0.post1"}},
		{"4.51.3-SAM-HQ-preview", omeVersion{count: 3, nums: [3]uint64{4, 51, 3}, pre: "SAM-HQ-preview"}},
		{"1.8.0+20240707", omeVersion{count: 3, nums: [3]uint64{1, 8, 0}, build: "20240707"}},
		{"1.2.3.a-b.c+d.e", omeVersion{count: 3, nums: [3]uint64{1, 2, 3}, dev: "a", pre: "b.c", build: "d.e"}},
		{"1.2.3+a-b", omeVersion{count: 3, nums: [3]uint64{1, 2, 3}, build: "a-b"}},
		{"1.2.3.a+b-c", omeVersion{count: 3, nums: [3]uint64{1, 2, 3}, dev: "a", build: "b-c"}},
		{"1.2.3.4", omeVersion{count: 3, nums: [3]uint64{1, 2, 3}, dev: "4"}},
		{"1.2.3-a b", omeVersion{count: 3, nums: [3]uint64{1, 2, 3}, pre: "a b"}},
		{"18446744073709551615", omeVersion{count: 1, nums: [3]uint64{math.MaxUint64}}},
	} {
		got, ok := readVersion(tc.in)
		if !ok || got != tc.want {
			t.Errorf("readVersion(%q) = %+v, %v; want %+v", tc.in, got, ok, tc.want)
		}
	}
	for _, in := range []string{
		"", "v", "V1.0.0", "vv1", "01.0.0", "1.00.0", "1..0", "1.0-rc1", "4.45.dev0", "1.0.0.", "1.0.0-",
		"1.0.0+", "1.0.0+b..c", " 1.0.0", "1.0.0 ", "-1", "latest", "18446744073709551616", "1.0.0.a..b",
		"1.0.0-.a", "1.0.0.a.-b", "1+b", "1.2.3a", "1.2.", ".1", "1.2.3.4.",
	} {
		if v, ok := readVersion(in); ok {
			t.Errorf("readVersion(%q) = %+v, want no version", in, v)
		}
	}
}

// The spec's examples (4.4), and how v0.1.4 reads them.
func TestVersionAccepts(t *testing.T) {
	newest, _ := ForRelease("")
	old, ok := ForRelease("v0.1.4")
	if !ok {
		t.Fatal("the reference does not state v0.1.4")
	}
	for _, tc := range []struct {
		entry, op, model string
		want, v014       bool
	}{
		{"4.45.0.dev0", "Equal", "4.45.0.dev0", true, true},
		{"4.46.0", "GreaterThanOrEqual", "4.44.2", true, true},
		{"4.46.0", "GreaterThanOrEqual", "4.45.0.dev0", false, false},
		{"4.45.0.dev0", "GreaterThanOrEqual", "4.44.0", false, false},
		{"4.45.0.dev0", "GreaterThan", "4.45.0.dev0", true, true},
		{"4.46.0", "GreaterThanOrEqual", "4.46", false, false},
		{"4.46", "GreaterThanOrEqual", "4.45", true, false},
		{"v4.46.0", "GreaterThanOrEqual", "4.45.0", false, false},
		{"v4.46.0", "GreaterThanOrEqual", "v4.45.0", true, false},
		{"4.10.0", "GreaterThan", "4.9.0", true, true},
		{"4.9.0", "GreaterThan", "4.10.0", false, false},
		{"4.9.0", "GreaterThan", "4.9.0", false, false},
		{"4.9.0", "GreaterThanOrEqual", "4.9.0", true, true},
		{"2.0.0", "GreaterThan", "1.9.9", true, true},
		{"1.10.0", "GreaterThan", "2.0.0", false, false},
		{"1.2.10", "GreaterThan", "1.3.0", false, false},
		{"1.0", "Equal", "1.0.0", true, false},
		{"v1.0.0", "Equal", "1.0.0", true, false},
		{"1", "Equal", "v1.0.0", true, false},
		{"1.0", "", "1.0.0", false, false},
		{"1.0.0", "", "1.0.0", true, true},
		{"1.0.0", "LessThan", "1.0.0", true, true},
		{"2.0.0", "LessThan", "1.0.0", false, false},
		{"4.45.0.dev0", "Equal", "4.45.0-dev0", false, false},
		{"4.45.0.dev0", "Equal", "4.45.0", false, false},
		{"4.45.0-rc.1", "Equal", "4.45.0-rc.1", true, true},
		{"4.45.0-rc.1", "Equal", "4.45.0-rc.2", false, false},
		{"4.45.0+a", "GreaterThanOrEqual", "4.45.0+b", false, false},
		{"1.2.3.4", "GreaterThan", "1.2.3", false, false},
		{"", "Equal", "1.0.0", false, false},
		{"1.0.0", "Equal", "", false, false},
	} {
		if got := newest.versionAccepts(tc.op, tc.entry, tc.model); got != tc.want {
			t.Errorf("%s: %s %q accepts %q = %v, want %v", newest.Name, tc.op, tc.entry, tc.model, got, tc.want)
		}
		if got := old.versionAccepts(tc.op, tc.entry, tc.model); got != tc.v014 {
			t.Errorf("v0.1.4: %s %q accepts %q = %v, want %v", tc.op, tc.entry, tc.model, got, tc.v014)
		}
		if got := VersionOK(tc.op, tc.entry, tc.model); got != tc.want {
			t.Errorf("VersionOK(%s, %q, %q) = %v, want %v", tc.op, tc.entry, tc.model, got, tc.want)
		}
	}
}

// Spec 9's sizes and range.
func TestSizes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
	}{
		{"7B", 7e9}, {"3.21B", 3.21e9}, {"500M", 5e8}, {"1.5T", 1.5e12}, {"42", 42},
		{"huge", 0}, {"", 0}, {"B", 0}, {"7b", 0}, {"7BB", 0}, {"7 B", 0}, {"1e3M", 1e9},
	} {
		if got := sizeOf(tc.in); math.Abs(got-tc.want) > tc.want*1e-12 {
			t.Errorf("sizeOf(%q) = %g, want %g", tc.in, got, tc.want)
		}
	}
	if !math.IsNaN(sizeOf("NaN")) || !math.IsInf(sizeOf("InfT"), 1) {
		t.Error("sizeOf reads NaN and Inf as Go's strconv does, as OME's code does")
	}
	for _, tc := range []struct {
		size, lo, hi string
		hasLo, hasHi bool
		outside      bool
	}{
		{"7B", "1B", "8B", true, true, false},
		{"1B", "1B", "8B", true, true, false},
		{"8B", "1B", "8B", true, true, false},
		{"8000M", "1B", "8B", true, true, false},
		{"9B", "1B", "8B", true, true, true},
		{"500M", "1B", "8B", true, true, true},
		{"1T", "1B", "70B", true, true, true},
		{"huge", "1B", "8B", true, true, true},
		{"huge", "0", "8B", true, true, false},
		{"NaN", "1B", "8B", true, true, false},
		{"100T", "1B", "", true, false, false},
		{"1M", "", "8B", false, true, false},
		{"1M", "1B", "", true, false, true},
	} {
		if got := outsideRange(tc.size, tc.lo, tc.hasLo, tc.hi, tc.hasHi); got != tc.outside {
			t.Errorf("%s outside [%s, %s] = %v, want %v", tc.size, tc.lo, tc.hi, got, tc.outside)
		}
	}
}
