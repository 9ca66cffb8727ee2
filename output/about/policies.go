package about

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/ome-policy/evaluator/builtins/cellib"
	"github.com/ome-policy/evaluator/builtins/regolib"
	"github.com/ome-policy/evaluator/policies/policyset"
)

// WritePolicyList lists the policy files of set: path, engine, role and
// lines, and for an older release what changed each.
func WritePolicyList(out io.Writer, set *policyset.Set) error {
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	changed := slices.ContainsFunc(set.Files, func(f policyset.File) bool { return len(f.Changes) > 0 })
	if changed {
		fmt.Fprintf(tw, "FILE\tENGINE\tROLE\tLINES\tCHANGED FOR %s BY\n", set.Release)
	} else {
		fmt.Fprintf(tw, "FILE\tENGINE\tROLE\tLINES\n")
	}
	for _, f := range set.Files {
		role := "policy"
		if f.Test {
			role = "test"
		}
		text, err := f.Source()
		if err != nil {
			return err
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d", set.Where(f), f.Engine, role, strings.Count(text, "\n"))
		if changed {
			fmt.Fprintf(tw, "\t%s", strings.Join(f.Changes, ", "))
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

// WritePolicySources prints the texts of files, each after a header
// naming it when there are several.
func WritePolicySources(out io.Writer, set *policyset.Set, files []policyset.File) error {
	for i, f := range files {
		if len(files) > 1 {
			if i > 0 {
				fmt.Fprintln(out)
			}
			fmt.Fprintf(out, "# ---- %s ----\n", set.Where(f))
		}
		text, err := f.Source()
		if err != nil {
			return err
		}
		fmt.Fprint(out, text)
	}
	return nil
}

// WriteFunctions lists the Go builtins the policies can call: the Rego
// builtins and the signatures of the CEL library.
func WriteFunctions(out io.Writer) error {
	fmt.Fprintln(out, "Rego builtins (declared in policies/capabilities.json):")
	bs := regolib.Builtins()
	sort.Slice(bs, func(i, j int) bool { return bs[i].Decl.Name < bs[j].Decl.Name })
	for _, b := range bs {
		fmt.Fprintf(out, "  %s%s\n      %s\n", b.Decl.Name, b.Decl.Decl.String(), b.Decl.Description)
	}
	fmt.Fprintln(out, "\nCEL library ome.version (see 'go doc github.com/ome-policy/evaluator/builtins/cellib.Library'):")
	for _, sig := range cellib.Signatures() {
		fmt.Fprintf(out, "  %s\n", sig)
	}
	return nil
}
