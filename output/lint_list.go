package output

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/ome-policy/evaluator/engine"
)

// WriteRules writes the lint rules as `evaluate lint --list-rules` lists
// them: a table of id, severity, the OME releases each applies to ("all"
// for every one) and what each finds, input-error last.
func WriteRules(w io.Writer, rules []engine.Rule) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "RULE\tSEVERITY\tOME\tFINDS")
	for _, r := range rules {
		releases := "all"
		if len(r.Releases) > 0 {
			releases = strings.Join(r.Releases, ", ")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.ID, r.Severity, releases, r.Description)
	}
	fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", engine.RuleInputError, engine.SeverityError, "all", "an input that cannot be read at all (YAML that does not parse, a template, an object without a name); never turned off")
	return tw.Flush()
}
