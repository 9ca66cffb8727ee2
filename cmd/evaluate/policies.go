package main

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/ome-policy/evaluator/builtins/cellib"
	"github.com/ome-policy/evaluator/builtins/regolib"
	"github.com/ome-policy/evaluator/engine/policyset"
)

func newPoliciesCommand(g *globalOptions) *cobra.Command {
	var (
		all       bool
		functions bool
	)
	cmd := &cobra.Command{
		Use:     "policies [FILE...]",
		Short:   "List or print the policies that run",
		Long:    helpText("policies"),
		Example: exampleText("policies"),
		RunE: func(cmd *cobra.Command, args []string) error {
			out := cmd.OutOrStdout()
			if functions {
				return writeFunctions(cmd)
			}
			set, err := g.policies("")
			if err != nil {
				return badInput(err)
			}
			if len(args) == 0 && !all {
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
					fmt.Fprintf(tw, "%s\t%s\t%s\t%d", set.Where(f), f.Engine, role, strings.Count(f.Text, "\n"))
					if changed {
						fmt.Fprintf(tw, "\t%s", strings.Join(f.Changes, ", "))
					}
					fmt.Fprintln(tw)
				}
				return tw.Flush()
			}
			files := set.Files
			if len(args) > 0 {
				files = nil
				for _, a := range args {
					f, ok := findSource(set, a)
					if !ok {
						return badInput(fmt.Errorf("no policy file %q in %s (see 'evaluate policies')", a, set.Origin))
					}
					files = append(files, f)
				}
			}
			for i, f := range files {
				if len(files) > 1 {
					if i > 0 {
						fmt.Fprintln(out)
					}
					fmt.Fprintf(out, "# ---- %s ----\n", set.Where(f))
				}
				fmt.Fprint(out, f.Text)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "print every policy source and test")
	addReleaseFlag(cmd, g)
	cmd.Flags().BoolVar(&functions, "functions", false, "list the Go builtins the policies can call")
	return cmd
}

func findSource(set *policyset.Set, name string) (policyset.File, bool) {
	for _, f := range set.Files {
		if f.Path == name || set.Where(f) == name {
			return f, true
		}
	}
	return policyset.File{}, false
}

func writeFunctions(cmd *cobra.Command) error {
	out := cmd.OutOrStdout()
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

func newCapabilitiesCommand(_ *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:     "capabilities",
		Short:   "Print OPA capabilities that declare the ome.* builtins",
		Long:    helpText("capabilities"),
		Example: exampleText("capabilities"),
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			b, err := regolib.CapabilitiesJSON()
			if err != nil {
				return err
			}
			_, err = cmd.OutOrStdout().Write(b)
			return err
		},
	}
}
