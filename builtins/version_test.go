package builtins_test

import (
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ome-policy/evaluator/builtins"
)

// validVersions lists texts that parse, with every field of the result
// except Original (which must always be the input).
var validVersions = []struct {
	in   string
	want builtins.Version
}{
	// Spec section 3, the suffix table and the splitting examples.
	{"4.45.0.dev0", builtins.Version{Parts: 3, Major: 4, Minor: 45, Patch: 0, Dev: []string{"dev0"}}},
	{"4.51.3-SAM-HQ-preview", builtins.Version{Parts: 3, Major: 4, Minor: 51, Patch: 3, Pre: []string{"SAM-HQ-preview"}}},
	{"1.8.0+20240707", builtins.Version{Parts: 3, Major: 1, Minor: 8, Build: []string{"20240707"}}},
	{"1.2.3.a-b.c+d.e", builtins.Version{Parts: 3, Major: 1, Minor: 2, Patch: 3, Dev: []string{"a"}, Pre: []string{"b", "c"}, Build: []string{"d", "e"}}},
	{"1.2.3+a-b", builtins.Version{Parts: 3, Major: 1, Minor: 2, Patch: 3, Build: []string{"a-b"}}},
	{"1.2.3.4", builtins.Version{Parts: 3, Major: 1, Minor: 2, Patch: 3, Dev: []string{"4"}}},
	{"4.45.0.dev0.post1", builtins.Version{Parts: 3, Major: 4, Minor: 45, Dev: []string{"dev0", "post1"}}},

	// Versions used in spec section 4.4.
	{"4.46.0", builtins.Version{Parts: 3, Major: 4, Minor: 46}},
	{"4.44.2", builtins.Version{Parts: 3, Major: 4, Minor: 44, Patch: 2}},
	{"4.46", builtins.Version{Parts: 2, Major: 4, Minor: 46}},
	{"4.45", builtins.Version{Parts: 2, Major: 4, Minor: 45}},
	{"v4.46.0", builtins.Version{V: true, Parts: 3, Major: 4, Minor: 46}},
	{"v4.45.0", builtins.Version{V: true, Parts: 3, Major: 4, Minor: 45}},
	{"4.10.0", builtins.Version{Parts: 3, Major: 4, Minor: 10}},
	{"4.9.0", builtins.Version{Parts: 3, Major: 4, Minor: 9}},
	{"1.0", builtins.Version{Parts: 2, Major: 1}},
	{"1.0.0", builtins.Version{Parts: 3, Major: 1}},
	{"v1.0.0", builtins.Version{V: true, Parts: 3, Major: 1}},
	{"1", builtins.Version{Parts: 1, Major: 1}},
	{"2.0.0", builtins.Version{Parts: 3, Major: 2}},
	{"4.45.0-dev0", builtins.Version{Parts: 3, Major: 4, Minor: 45, Pre: []string{"dev0"}}},
	{"1.2.3", builtins.Version{Parts: 3, Major: 1, Minor: 2, Patch: 3}},

	// Edge cases.
	{"0", builtins.Version{Parts: 1}},
	{"v0", builtins.Version{V: true, Parts: 1}},
	{"0.0.0", builtins.Version{Parts: 3}},
	{"v1.2", builtins.Version{V: true, Parts: 2, Major: 1, Minor: 2}},
	{"10.20.30", builtins.Version{Parts: 3, Major: 10, Minor: 20, Patch: 30}},
	{"18446744073709551615", builtins.Version{Parts: 1, Major: math.MaxUint64}},
	{"18446744073709551615.18446744073709551615.18446744073709551615", builtins.Version{Parts: 3, Major: math.MaxUint64, Minor: math.MaxUint64, Patch: math.MaxUint64}},
	{"1.0.0- x", builtins.Version{Parts: 3, Major: 1, Pre: []string{" x"}}},
	{"1.0.0- ", builtins.Version{Parts: 3, Major: 1, Pre: []string{" "}}},
	{"1.2.3-a+b", builtins.Version{Parts: 3, Major: 1, Minor: 2, Patch: 3, Pre: []string{"a"}, Build: []string{"b"}}},
	{"1.2.3-a-b", builtins.Version{Parts: 3, Major: 1, Minor: 2, Patch: 3, Pre: []string{"a-b"}}},
	{"1.2.3-rc.1", builtins.Version{Parts: 3, Major: 1, Minor: 2, Patch: 3, Pre: []string{"rc", "1"}}},
	{"v1.2.3-rc.1", builtins.Version{V: true, Parts: 3, Major: 1, Minor: 2, Patch: 3, Pre: []string{"rc", "1"}}},
	{"1.2.3+-", builtins.Version{Parts: 3, Major: 1, Minor: 2, Patch: 3, Build: []string{"-"}}},
	{"1.2.3+a+b", builtins.Version{Parts: 3, Major: 1, Minor: 2, Patch: 3, Build: []string{"a+b"}}},
	{"1.2.3.dev0+x.y", builtins.Version{Parts: 3, Major: 1, Minor: 2, Patch: 3, Dev: []string{"dev0"}, Build: []string{"x", "y"}}},
	{"0.0.0.0", builtins.Version{Parts: 3, Dev: []string{"0"}}},
	{"1.2.3.01", builtins.Version{Parts: 3, Major: 1, Minor: 2, Patch: 3, Dev: []string{"01"}}},
	{"1.2.3.V", builtins.Version{Parts: 3, Major: 1, Minor: 2, Patch: 3, Dev: []string{"V"}}},
	{"1.2.3-é.日本", builtins.Version{Parts: 3, Major: 1, Minor: 2, Patch: 3, Pre: []string{"é", "日本"}}},
	{"1.2.3+a b", builtins.Version{Parts: 3, Major: 1, Minor: 2, Patch: 3, Build: []string{"a b"}}},
}

// invalidVersions lists texts that do not parse, with a piece of text the
// reason must contain.
var invalidVersions = []struct {
	in     string
	reason string
}{
	// Spec section 3, "Does not parse".
	{"", "empty"},
	{"v", "number 1: a number is missing"},
	{"V1.0.0", `"V1" is not a decimal number`},
	{"vv1", `"v1" is not a decimal number`},
	{"01.0.0", `"01" has a leading zero`},
	{"1.00.0", `"00" has a leading zero`},
	{"1..0", "number 2: a number is missing"},
	{"1.0-rc1", "a suffix may only follow the third number"},
	{"4.45.dev0", "a suffix may only follow the third number"},
	{"1.0.0.", "dev suffix: a part is empty"},
	{"1.0.0-", "pre-release suffix: a part is empty"},
	{"1.0.0+", "build suffix: a part is empty"},
	{"1.0.0+b..c", "build suffix: a part is empty"},
	{" 1.0.0", `" 1" is not a decimal number`},
	{"1.0.0 ", `"0 " is not a decimal number`},
	{"-1", "number 1: a number is missing"},
	{"latest", `"latest" is not a decimal number`},
	{"18446744073709551616", "does not fit in 64 bits"},

	// Edge cases.
	{"1.2.3-", "pre-release suffix: a part is empty"},
	{"+", "a number is missing"},
	{"-", "a number is missing"},
	{".", "a number is missing"},
	{"v.1", "number 1: a number is missing"},
	{"1.", "number 2: a number is missing"},
	{"1.2.", "number 3: a number is missing"},
	{".1", "number 1: a number is missing"},
	{"1.2.3..", "dev suffix: a part is empty"},
	{"1.2.3.a..b", "dev suffix: a part is empty"},
	{"1.2.3.-a", "dev suffix: a part is empty"},
	{"1.2.3-.", "pre-release suffix: a part is empty"},
	{"1.2.3-a.", "pre-release suffix: a part is empty"},
	{"1.2.3-a..b", "pre-release suffix: a part is empty"},
	{"1.2.3-+b", "pre-release suffix: a part is empty"},
	{"1.2.3+.", "build suffix: a part is empty"},
	{"1.2.3+a.", "build suffix: a part is empty"},
	{"1-rc1", "a suffix may only follow the third number"},
	{"1+b", "a suffix may only follow the third number"},
	{"1.0+b", "a suffix may only follow the third number"},
	{"v1.0-rc1", "a suffix may only follow the third number"},
	{"1.2.3a", `"3a" is not a decimal number`},
	{"1.2a.3", `"2a" is not a decimal number`},
	{"00", "leading zero"},
	{"1.2.03", `"03" has a leading zero`},
	{"+1", "a number is missing"},
	{"0x1", "not a decimal number"},
	{"1e3", "not a decimal number"},
	{"1_000", "not a decimal number"},
	{"1.2.3\n", "not a decimal number"},
	{"\t1", "not a decimal number"},
	{"99999999999999999999.0.0", "does not fit in 64 bits"},
	{"1.18446744073709551616.0", "number 2: \"18446744073709551616\" does not fit in 64 bits"},
	{"\uff11.0.0", "not a decimal number"},           // fullwidth digit one
	{"\u0661.\u0660.\u0660", "not a decimal number"}, // Arabic-Indic digits
	{"1.2.\u0663", "not a decimal number"},           // Arabic-Indic three
	{"1.2.3\u00a0", "not a decimal number"},          // no-break space
	{"v-1", "a number is missing"},
	{"\x00", "not a decimal number"},
	{"\xff", "not a decimal number"},
}

func TestParseValid(t *testing.T) {
	for _, tc := range validVersions {
		t.Run(tc.in, func(t *testing.T) {
			got, err := builtins.Parse(tc.in)
			require.NoError(t, err)
			want := tc.want
			want.Original = tc.in
			require.Equal(t, want, got)
			require.True(t, builtins.IsValid(tc.in))
			require.Equal(t, len(got.Dev) > 0 || len(got.Pre) > 0 || len(got.Build) > 0, got.HasSuffix())
		})
	}
}

func TestParseInvalid(t *testing.T) {
	for _, tc := range invalidVersions {
		t.Run(tc.in, func(t *testing.T) {
			got, err := builtins.Parse(tc.in)
			require.Error(t, err)
			require.Equal(t, builtins.Version{}, got, "a failed parse returns the zero Version")
			require.False(t, builtins.IsValid(tc.in))

			var pe *builtins.ParseError
			require.True(t, errors.As(err, &pe), "error is a *ParseError: %T", err)
			require.Equal(t, tc.in, pe.Input)
			require.Contains(t, pe.Reason, tc.reason)
			require.Contains(t, err.Error(), "invalid version ")
			require.Contains(t, err.Error(), tc.reason)
		})
	}
}

func TestHasSuffix(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"4.45.0.dev0", true},
		{"4.51.3-SAM-HQ-preview", true},
		{"1.8.0+20240707", true},
		{"1.2.3.4", true},
		{"4.45.0", false},
		{"v4.45.0", false},
		{"4.45", false},
		{"1", false},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			v, err := builtins.Parse(tc.in)
			require.NoError(t, err)
			require.Equal(t, tc.want, v.HasSuffix())
		})
	}
	require.False(t, builtins.Version{}.HasSuffix())
}

func TestEqual(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		// Spec 4.2 and the equality rows of 4.4.
		{"4.45.0.dev0", "4.45.0.dev0", true},
		{"1.0", "1.0.0", true},
		{"v1.0.0", "1.0.0", true},
		{"1", "v1.0.0", true},
		{"1.0.0", "1.0.0", true},
		{"4.45.0.dev0", "4.45.0-dev0", false},
		{"4.45.0.dev0", "4.45.0", false},
		{"2.0.0", "1.0.0", false},
		{"1.2.3.4", "1.2.3", false},
		{"4.46.0", "4.46", true},
		{"v4.46.0", "4.46.0", true},
		{"4.45.0.dev0", "4.44.0", false},
		{"4.46.0", "4.45.0.dev0", false},

		// Suffix parts are compared part by part.
		{"1.2.3-rc.1", "1.2.3-rc.1", true},
		{"1.2.3-rc.1", "1.2.3-rc1", false},
		{"1.2.3-rc.1", "1.2.3-rc.1.0", false},
		{"1.8.0+a", "1.8.0+b", false},
		{"1.8.0+a", "1.8.0", false},
		{"1.8.0+a.b", "1.8.0+a", false},
		{"1.2.3.a.b", "1.2.3.a-b", false},
		{"1.2.3.a-b", "1.2.3-a.b", false},
		{"1.2.3.a-b.c+d.e", "v1.2.3.a-b.c+d.e", true},
		{"1.2.3-a+b", "1.2.3+b-a", false},
		{"4.45.0.dev0.post1", "4.45.0.dev0", false},
		{"1.2.3.01", "1.2.3.1", false},

		// Numbers.
		{"0", "0.0.0", true},
		{"v0", "0.0", true},
		{"1.1", "1.0.1", false},
		{"18446744073709551615", "18446744073709551615.0.0", true},
		{"18446744073709551615", "18446744073709551614", false},
	}
	for _, tc := range tests {
		t.Run(tc.a+" vs "+tc.b, func(t *testing.T) {
			a, err := builtins.Parse(tc.a)
			require.NoError(t, err)
			b, err := builtins.Parse(tc.b)
			require.NoError(t, err)
			require.Equal(t, tc.want, builtins.Equal(a, b))
			require.Equal(t, tc.want, builtins.Equal(b, a), "Equal is symmetric")
			require.True(t, builtins.Equal(a, a))
			require.True(t, builtins.Equal(b, b))
			if tc.want {
				require.Zero(t, builtins.Compare(a, b), "equal versions compare as 0")
			}
		})
	}
}

func TestCompare(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		// The ordering rows of spec 4.4 (entry on the left, model on the right).
		{"4.46.0", "4.44.2", 1},
		{"4.46", "4.45", 1},
		{"v4.46.0", "v4.45.0", 1},
		{"v4.46.0", "4.45.0", 1},
		{"4.10.0", "4.9.0", 1},
		{"1.0", "1.0.0", 0},
		{"v1.0.0", "1.0.0", 0},
		{"2.0.0", "1.0.0", 1},
		{"1.0.0", "1.0.0", 0},
		{"4.46.0", "4.46", 0},

		// Suffixes are not looked at.
		{"4.46.0", "4.45.0.dev0", 1},
		{"4.45.0.dev0", "4.44.0", 1},
		{"4.45.0.dev0", "4.45.0", 0},
		{"4.45.0.dev0", "4.45.0-dev0", 0},
		{"1.2.3.4", "1.2.3", 0},
		{"1.0.0-rc1", "1.0.0", 0},
		{"1.0.0+b", "1.0.0+a", 0},

		// Major, then minor, then patch; numerically.
		{"1.0.0", "2.0.0", -1},
		{"1.9.9", "2.0.0", -1},
		{"1.10", "1.9", 1},
		{"1.2.10", "1.2.9", 1},
		{"0.0.1", "0.1", -1},
		{"1", "1.0.1", -1},
		{"2", "1.99.99", 1},
		{"18446744073709551615", "18446744073709551614", 1},
		{"0.18446744073709551615", "1", -1},
		{"0.0.18446744073709551615", "0.1", -1},
	}
	for _, tc := range tests {
		t.Run(tc.a+" vs "+tc.b, func(t *testing.T) {
			a, err := builtins.Parse(tc.a)
			require.NoError(t, err)
			b, err := builtins.Parse(tc.b)
			require.NoError(t, err)
			require.Equal(t, tc.want, builtins.Compare(a, b))
			require.Equal(t, -tc.want, builtins.Compare(b, a), "Compare is antisymmetric")
			require.Zero(t, builtins.Compare(a, a))
		})
	}
}

func TestStringRoundTrip(t *testing.T) {
	for _, tc := range validVersions {
		t.Run(tc.in, func(t *testing.T) {
			v, err := builtins.Parse(tc.in)
			require.NoError(t, err)
			require.Equal(t, tc.in, v.String())
			require.Equal(t, tc.in, v.Original)

			again, err := builtins.Parse(v.String())
			require.NoError(t, err)
			require.Equal(t, v, again)
		})
	}
}

func TestStringOfBuiltVersion(t *testing.T) {
	// String works from the fields, not from Original.
	v := builtins.Version{V: true, Parts: 3, Major: 1, Minor: 2, Patch: 3, Dev: []string{"dev0"}, Pre: []string{"rc", "1"}, Build: []string{"b"}}
	require.Equal(t, "v1.2.3.dev0-rc.1+b", v.String())
	require.Equal(t, "7", builtins.Version{Parts: 1, Major: 7, Minor: 8}.String())
	require.Equal(t, "", builtins.Version{}.String())
}

func TestParseCachedAgrees(t *testing.T) {
	inputs := make([]string, 0, len(validVersions)+len(invalidVersions))
	for _, tc := range validVersions {
		inputs = append(inputs, tc.in)
	}
	for _, tc := range invalidVersions {
		inputs = append(inputs, tc.in)
	}
	for round := 0; round < 2; round++ { // the second round reads the cache
		for _, in := range inputs {
			want, wantErr := builtins.Parse(in)
			got, gotErr := builtins.ParseCached(in)
			require.Equal(t, want, got, "%q", in)
			require.Equal(t, wantErr, gotErr, "%q", in)
		}
	}
}

func TestParseModelSize(t *testing.T) {
	tests := []struct {
		in   string
		want float64
	}{
		{"7B", 7e9},
		{"3.21B", 3.21e9},
		{"500M", 500e6},
		{"1.5T", 1.5e12},
		{"0.5B", 0.5e9},
		{"70B", 70e9},
		{"405B", 405e9},
		{"7", 7},
		{"0", 0},
		{"1e3M", 1e9},
		{"-1B", -1e9},

		// Anything that is not a number counts as 0.
		{"", 0},
		{"abc", 0},
		{"B", 0},
		{"T", 0},
		{"7b", 0},  // suffixes are upper case only
		{"7m", 0},  // likewise
		{"7K", 0},  // no K suffix
		{"7G", 0},  // no G suffix
		{"7BB", 0}, // one suffix only
		{" 7B", 0},
		{"7B ", 0},
		{"7 B", 0},
		{"1,5B", 0},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			require.InDelta(t, tc.want, builtins.ParseModelSize(tc.in), math.Abs(tc.want)*1e-12)
		})
	}

	// strconv.ParseFloat's special values come through as they are.
	require.True(t, math.IsNaN(builtins.ParseModelSize("NaN")))
	require.True(t, math.IsNaN(builtins.ParseModelSize("nanB")))
	require.True(t, math.IsInf(builtins.ParseModelSize("Inf"), 1))
	require.True(t, math.IsInf(builtins.ParseModelSize("-infT"), -1))
}

// SizeParses tells a size OME reads as written from one it reads as 0:
// a real zero parses; what strconv.ParseFloat refuses once one T, B or M
// is off does not.
func TestSizeParses(t *testing.T) {
	for _, s := range []string{"7B", "3.21B", "500M", "1.5T", "7", "0", "0B", "-0", "0.0M", "1e3M", "1_000B", "0x1p3B", "NaN", "InfT", "1e-400"} {
		require.True(t, builtins.SizeParses(s), "%q", s)
	}
	for _, s := range []string{"8b", "7 B", "7G", "1.5K", "seven", "", "B", "7BB", " 7B", "1,5B", "1e400", "1e400B", "0x1p1024T", "_1B"} {
		require.False(t, builtins.SizeParses(s), "%q", s)
		require.Zero(t, builtins.ParseModelSize(s), "%q", s)
	}
}

func TestCompareSizes(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"8B", "7B", 1},
		{"7B", "8B", -1},
		{"7B", "7B", 0},
		{"7B", "7000M", 0},
		{"500M", "0.5B", 0},
		{"1.5T", "1500B", 0},
		{"3.21B", "3B", 1},
		{"3.21B", "3210M", 0},
		{"999M", "1B", -1},
		{"1T", "999B", 1},
		{"7", "7B", -1},

		// Unparsable sizes count as 0.
		{"huge", "0", 0},
		{"abc", "", 0},
		{"abc", "1M", -1},
		{"", "1M", -1},
		{"7b", "1", -1},

		// NaN is neither smaller nor larger than anything.
		{"NaN", "7B", 0},
		{"NaN", "0", 0},
		{"NaN", "NaN", 0},
		{"NaN", "Inf", 0},

		{"Inf", "1000T", 1},
		{"-1B", "0", -1},
	}
	for _, tc := range tests {
		t.Run(tc.a+" vs "+tc.b, func(t *testing.T) {
			require.Equal(t, tc.want, builtins.CompareSizes(tc.a, tc.b))
			require.Equal(t, -tc.want, builtins.CompareSizes(tc.b, tc.a), "CompareSizes is antisymmetric")
		})
	}
}

// TestSizeRangeInclusive checks the spec 9 range rule as a policy writes it
// with CompareSizes: min <= size <= max, both bounds included.
func TestSizeRangeInclusive(t *testing.T) {
	within := func(size, lo, hi string) bool {
		return builtins.CompareSizes(size, lo) >= 0 && builtins.CompareSizes(size, hi) <= 0
	}
	tests := []struct {
		size, lo, hi string
		want         bool
	}{
		{"7B", "7B", "70B", true},
		{"70B", "7B", "70B", true},
		{"8B", "7B", "70B", true},
		{"7000M", "7B", "70B", true},
		{"0.07T", "7B", "70B", true},
		{"6.99B", "7B", "70B", false},
		{"70.1B", "7B", "70B", false},
		{"500M", "1B", "8B", false},
		{"3.21B", "3.21B", "3.21B", true},
		{"unknown", "0", "1B", true}, // counts as 0
		{"unknown", "1B", "8B", false},
		{"NaN", "1B", "8B", true}, // NaN is never outside a range
	}
	for _, tc := range tests {
		t.Run(tc.size+" in ["+tc.lo+", "+tc.hi+"]", func(t *testing.T) {
			require.Equal(t, tc.want, within(tc.size, tc.lo, tc.hi))
		})
	}
}
