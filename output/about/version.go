package about

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"gopkg.in/yaml.v3"

	"github.com/ome-policy/evaluator/results"
)

// WriteVersion writes v as text (the first line, then a row of each fact),
// json or yaml.
func WriteVersion(out io.Writer, v results.Version, format string) error {
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
	fmt.Fprintln(out, FirstLine(v))
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	for _, row := range Rows(v) {
		fmt.Fprintf(tw, "  %s\t%s\n", row[0], row[1])
	}
	return tw.Flush()
}

// FirstLine is what --version prints of v, and the first line of
// `evaluate version`.
func FirstLine(v results.Version) string {
	return fmt.Sprintf("evaluate %s (revision %s)", v.Version, v.Revision)
}

// Rows are v's facts after the first line, as label and value; the
// rows from cel-go on are what docs/compatibility.md states.
func Rows(v results.Version) [][2]string {
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
