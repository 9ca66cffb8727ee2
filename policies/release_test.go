package policies

import "testing"

func TestNormalizeRelease(t *testing.T) {
	for _, c := range []struct {
		in, want string
		ok       bool
	}{
		{"v1.2.2", "v1.2.2", true},
		{"0.1.4", "v0.1.4", true},
		{"v10.20.30", "v10.20.30", true},
		{"v1.2", "", false},
		{"1.2.3.4", "", false},
		{"v01.2.3", "", false},
		{"v1.2.x", "", false},
		{"vv1.2.3", "", false},
		{"", "", false},
		{"v1..3", "", false},
	} {
		got, ok := NormalizeRelease(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("NormalizeRelease(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}
