package reference

import (
	"math"
	"testing"

	"github.com/ome-policy/evaluator/builtins"
)

// versionTexts are every text of up to n characters over an alphabet that
// reaches each rule of spec section 3: the "v", digits with and without a
// leading zero, the three suffix marks, and a letter.
func versionTexts(n int) []string {
	const alphabet = "v01.-+a"
	out := []string{""}
	level := []string{""}
	for range n {
		var next []string
		for _, s := range level {
			for i := range len(alphabet) {
				next = append(next, s+alphabet[i:i+1])
			}
		}
		out = append(out, next...)
		level = next
	}
	return out
}

// The reference and the product's builtins, written apart, read every
// short text alike: the same texts are versions, with the same "v", number
// of numbers and suffix, and every pair of them is equal and ordered
// alike. Where they differ, the case files decide which is OME's.
func TestVersionMeaningAgreesWithBuiltins(t *testing.T) {
	var valid []string
	for _, s := range versionTexts(7) {
		ours, ok := readVersion(s)
		theirs, err := builtins.Parse(s)
		if ok != (err == nil) {
			t.Errorf("%q: the reference reads a version: %v; builtins: %v", s, ok, err)
			continue
		}
		if !ok {
			continue
		}
		if ours.v != theirs.V || ours.count != theirs.Parts || ours.suffixed() != theirs.HasSuffix() {
			t.Errorf("%q: the reference reads %+v; builtins %+v", s, ours, theirs)
		}
		if len(s) <= 6 {
			valid = append(valid, s)
		}
	}
	if len(valid) < 200 {
		t.Fatalf("only %d short versions", len(valid))
	}
	for _, a := range valid {
		va, _ := readVersion(a)
		ba, _ := builtins.Parse(a)
		for _, b := range valid {
			vb, _ := readVersion(b)
			bb, _ := builtins.Parse(b)
			if sameVersion(va, vb) != builtins.Equal(ba, bb) {
				t.Errorf("%q and %q: equal to the reference %v, to builtins %v", a, b, sameVersion(va, vb), builtins.Equal(ba, bb))
			}
			if order(va, vb) != builtins.Compare(ba, bb) {
				t.Errorf("%q against %q: the reference orders %d, builtins %d", a, b, order(va, vb), builtins.Compare(ba, bb))
			}
		}
	}
}

// Sizes too: the same number for every text of a few units, and the same
// order.
func TestSizeMeaningAgreesWithBuiltins(t *testing.T) {
	texts := []string{"", "0", "1", "7", "7B", "7b", "7.5B", "8000M", "8B", "0.5T", "500B", "1T", "1e3", "1e3M",
		"NaN", "NaNB", "Inf", "-InfT", "-1B", "B", "M", "T", "BT", "7BB", "0x10", "0x1p3B", "1_000", " 1B", "1B ", "huge"}
	for _, a := range texts {
		x, y := sizeOf(a), builtins.ParseModelSize(a)
		if x != y && !(math.IsNaN(x) && math.IsNaN(y)) {
			t.Errorf("size %q: the reference reads %g, builtins %g", a, x, y)
		}
		for _, b := range texts {
			lo := outsideRange(a, b, true, "", false)
			if want := builtins.CompareSizes(a, b) < 0; lo != want {
				t.Errorf("%q below %q: the reference %v, builtins %v", a, b, lo, want)
			}
			hi := outsideRange(a, "", false, b, true)
			if want := builtins.CompareSizes(a, b) > 0; hi != want {
				t.Errorf("%q above %q: the reference %v, builtins %v", a, b, hi, want)
			}
		}
	}
}
