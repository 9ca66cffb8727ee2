package output

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/ome-policy/evaluator/results"
)

// ViolationsFormats lists the -o values of gatekeeper violations.
var ViolationsFormats = []string{"text", "json"}

// WriteViolations writes the objects' violations: as text, each object
// that has some, with its file and line, then how many objects had some
// under the severities enforced; as json, {"objects": [...]}, every object.
func WriteViolations(w io.Writer, format string, objs []results.ObjectViolations, severities []string) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"objects": objs})
	case "text":
		n := 0
		for _, o := range objs {
			if len(o.Violations) == 0 {
				continue
			}
			n++
			fmt.Fprintf(w, "%s: %s:\n", FileLine(o.File, o.Line), refPath(o.Object))
			for _, m := range o.Violations {
				fmt.Fprintf(w, "  %s\n", m)
			}
		}
		_, err := fmt.Fprintf(w, "%d object(s), %d with violations (severities: %s)\n", len(objs), n, strings.Join(severities, ", "))
		return err
	}
	return UnknownFormat(format, ViolationsFormats)
}
