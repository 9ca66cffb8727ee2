package about

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"gopkg.in/yaml.v3"
)

// Version is what `evaluate version` prints.
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

// WriteVersion writes v as text (the first line, then a row of each fact),
// json or yaml.
func WriteVersion(out io.Writer, v Version, format string) error {
	switch format {
	case "json":
		data, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(out, "%s\n", data)
		return err
	case "yaml":
		data, err := yaml.Marshal(v)
		if err != nil {
			return err
		}
		_, err = out.Write(data)
		return err
	}
	fmt.Fprintln(out, v.FirstLine())
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	for _, row := range v.Rows() {
		fmt.Fprintf(tw, "  %s\t%s\n", row[0], row[1])
	}
	return tw.Flush()
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
