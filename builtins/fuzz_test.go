package builtins_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/ome-policy/evaluator/builtins"
)

// specVersions are the version texts of spec sections 3 and 4.4, valid or
// not: the seed corpus of FuzzParse.
var specVersions = []string{
	"4.45.0.dev0", "4.51.3-SAM-HQ-preview", "1.8.0+20240707",
	"1.2.3.a-b.c+d.e", "1.2.3+a-b", "1.2.3.4", "4.45.0.dev0.post1",
	"", "v", "V1.0.0", "vv1", "01.0.0", "1.00.0", "1..0", "1.0-rc1",
	"4.45.dev0", "1.0.0.", "1.0.0-", "1.0.0+", "1.0.0+b..c", " 1.0.0",
	"1.0.0 ", "-1", "latest", "18446744073709551616",
	"4.46.0", "4.44.2", "4.46", "4.45", "v4.46.0", "v4.45.0", "4.10.0",
	"4.9.0", "1.0", "1.0.0", "v1.0.0", "1", "2.0.0", "4.45.0-dev0", "1.2.3",
	"18446744073709551615", "v0", "0.0.0", "1.0.0- x", "+", "-", ".",
}

func FuzzParse(f *testing.F) {
	for _, s := range specVersions {
		f.Add(s)
	}
	for _, tc := range validVersions {
		f.Add(tc.in)
	}
	for _, tc := range invalidVersions {
		f.Add(tc.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := builtins.Parse(s)

		cv, cerr := builtins.ParseCached(s)
		if !reflect.DeepEqual(v, cv) || !reflect.DeepEqual(err, cerr) {
			t.Fatalf("ParseCached(%q) = %#v, %v; Parse gives %#v, %v", s, cv, cerr, v, err)
		}
		if builtins.IsValid(s) != (err == nil) {
			t.Fatalf("IsValid(%q) disagrees with Parse (err %v)", s, err)
		}

		if err != nil {
			var pe *builtins.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("Parse(%q): error %T is not a *ParseError", s, err)
			}
			if pe.Input != s || pe.Reason == "" {
				t.Fatalf("Parse(%q): ParseError %#v", s, pe)
			}
			if !reflect.DeepEqual(v, builtins.Version{}) {
				t.Fatalf("Parse(%q) failed but returned %#v", s, v)
			}
			return
		}

		if got := v.String(); got != s {
			t.Fatalf("Parse(%q).String() = %q", s, got)
		}
		if v.Original != s {
			t.Fatalf("Parse(%q).Original = %q", s, v.Original)
		}
		again, err := builtins.Parse(v.String())
		if err != nil {
			t.Fatalf("Parse(%q) ok but Parse(String()) failed: %v", s, err)
		}
		if !reflect.DeepEqual(v, again) {
			t.Fatalf("Parse(%q) = %#v but Parse(String()) = %#v", s, v, again)
		}
		if !builtins.Equal(v, v) || !builtins.Equal(v, again) {
			t.Fatalf("Parse(%q) is not Equal to itself", s)
		}
		if c := builtins.Compare(v, v); c != 0 {
			t.Fatalf("Compare(%q, itself) = %d", s, c)
		}
		if v.Parts < 1 || v.Parts > 3 {
			t.Fatalf("Parse(%q).Parts = %d", s, v.Parts)
		}
		if v.HasSuffix() && v.Parts != 3 {
			t.Fatalf("Parse(%q) has a suffix with %d parts", s, v.Parts)
		}
		if v.V != (s[0] == 'v') {
			t.Fatalf("Parse(%q).V = %v", s, v.V)
		}
		for _, parts := range [][]string{v.Dev, v.Pre, v.Build} {
			if parts != nil && len(parts) == 0 {
				t.Fatalf("Parse(%q): a suffix is an empty, non-nil list", s)
			}
			for _, p := range parts {
				if p == "" {
					t.Fatalf("Parse(%q): an empty suffix part", s)
				}
			}
		}
		// The "v" and the number of parts never matter for equality.
		bare := v
		bare.V, bare.Parts = false, 3
		if !builtins.Equal(v, bare) || builtins.Compare(v, bare) != 0 {
			t.Fatalf("Parse(%q): equality depends on v or parts", s)
		}
	})
}

func FuzzCompareSizes(f *testing.F) {
	for _, s := range [][2]string{
		{"7B", "8B"}, {"3.21B", "3210M"}, {"500M", "0.5B"}, {"1.5T", "1500B"},
		{"", "abc"}, {"NaN", "7B"}, {"Inf", "-Inf"}, {"huge", "0"}, {"1e3M", "1B"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		ab, ba := builtins.CompareSizes(a, b), builtins.CompareSizes(b, a)
		if ab < -1 || ab > 1 {
			t.Fatalf("CompareSizes(%q, %q) = %d", a, b, ab)
		}
		if ab != -ba {
			t.Fatalf("CompareSizes(%q, %q) = %d but CompareSizes(%q, %q) = %d", a, b, ab, b, a, ba)
		}
		if c := builtins.CompareSizes(a, a); c != 0 {
			t.Fatalf("CompareSizes(%q, itself) = %d", a, c)
		}
	})
}
