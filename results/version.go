package results

import (
	"fmt"
	"strings"
)

// Version is what evaluate says of itself (`evaluate version`): its
// version and revision, and the versions it follows.
type Version struct {
	Version  string `json:"version" yaml:"version"`
	Revision string `json:"revision" yaml:"revision"`
	Go       string `json:"go" yaml:"go"`
	CELGo    string `json:"celGo" yaml:"celGo"`
	OPA      string `json:"opa" yaml:"opa"`
	// OMEReleases are the OME releases the policies state, newest (the
	// default) first.
	OMEReleases []string `json:"omeReleases" yaml:"omeReleases"`
	OMECRDs     string   `json:"omeCRDs" yaml:"omeCRDs"`
	Gatekeeper  string   `json:"gatekeeper" yaml:"gatekeeper"`
	Kubernetes  string   `json:"kubernetes" yaml:"kubernetes"`
	Kyverno     string   `json:"kyverno" yaml:"kyverno"`
}

// FirstLine is what --version prints, and the first line of `evaluate version`.
func (v Version) FirstLine() string {
	return fmt.Sprintf("evaluate %s (revision %s)", v.Version, v.Revision)
}

// Rows are the facts after the first line, as label and value; the
// rows from cel-go on are what docs/compatibility.md states.
func (v Version) Rows() [][2]string {
	return [][2]string{
		{"go", v.Go},
		{"cel-go", v.CELGo},
		{"opa", v.OPA},
		{"ome releases", releasesText(v.OMEReleases)},
		{"ome crds", v.OMECRDs},
		{"gatekeeper (e2e)", v.Gatekeeper},
		{"kubernetes (e2e)", v.Kubernetes},
		{"kyverno (e2e)", v.Kyverno},
	}
}

// releasesText is "v1.2.2 (default), v0.1.5, v0.1.4".
func releasesText(releases []string) string {
	if len(releases) == 0 {
		return "none"
	}
	return strings.Join(append([]string{releases[0] + " (default)"}, releases[1:]...), ", ")
}
