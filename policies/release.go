package policies

import "strings"

// NormalizeRelease writes an OME release as the policies name it
// (releases.yaml, a case file's omeVersions, --ome-version): "0.1.4" and
// "v0.1.4" are "v0.1.4". ok is false for text that is not a release of
// three numbers.
func NormalizeRelease(s string) (release string, ok bool) {
	v := strings.TrimPrefix(s, "v")
	parts := strings.Split(v, ".")
	if len(parts) != 3 {
		return "", false
	}
	for _, p := range parts {
		if p == "" || strings.Trim(p, "0123456789") != "" || (len(p) > 1 && p[0] == '0') {
			return "", false
		}
	}
	return "v" + v, true
}
