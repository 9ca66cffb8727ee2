package about

import (
	"encoding/json"
	"fmt"
	"io"
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
	fmt.Fprintln(out, v.FirstLine())
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	for _, row := range v.Rows() {
		fmt.Fprintf(tw, "  %s\t%s\n", row[0], row[1])
	}
	return tw.Flush()
}
