package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ome-policy/evaluator/output/about"
	"github.com/ome-policy/evaluator/runner"
)

// Exit codes, the same for every command.
const (
	exitOK       = 0
	exitFindings = 1 // a model with no runtime, a failing case, ...
	exitBadInput = 2 // bad input or usage
)

// exitError carries the exit code of a failed command.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }

func badInput(err error) error { return &exitError{code: exitBadInput, err: err} }

// silentExit ends with a code and no message (the output said it all).
type silentExit struct{ code int }

func (e *silentExit) Error() string { return fmt.Sprintf("exit %d", e.code) }

// globalOptions are the flags every command has, and --ome-version, which
// every command that evaluates has (addReleaseFlag): the policies a run
// applies (runner.Policies: --policies, --ome-version).
type globalOptions struct {
	runner.Policies
	cpuProfile string
	// stopProfile stops the CPU profile of --cpuprofile (nil: none).
	stopProfile func()
	stdin       io.Reader
	// restoreMemory puts back the collector's settings that the command
	// run changed (memoryFor).
	restoreMemory func()
}

func newRoot(g *globalOptions, stdout, stderr io.Writer) *cobra.Command {
	stdin := g.stdin
	root := &cobra.Command{
		Use:           "evaluate",
		Short:         "Check OME runtime selection with CEL and Rego policies",
		Long:          helpText("evaluate"),
		Example:       exampleText("evaluate"),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.PersistentFlags().StringVar(&g.Dir, "policies", "", "load the policies from this folder (cel/*.yaml, rego/*.rego) instead of the built-in ones")
	root.PersistentFlags().StringVar(&g.cpuProfile, "cpuprofile", "", "write a Go CPU profile of the run to this file (for 'go tool pprof')")
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) (err error) {
		g.restoreMemory = memoryFor(cmd)
		if g.cpuProfile != "" {
			if g.stopProfile, err = cpuProfile(g.cpuProfile); err != nil {
				return badInput(fmt.Errorf("--cpuprofile: %w", err))
			}
		}
		return nil
	}
	root.AddCommand(
		newMatchCommand(g),
		newSelectCommand(g),
		newTestCommand(g),
		newPoliciesCommand(g),
		newCapabilitiesCommand(g),
		newGenerateCommand(g),
		newLintCommand(g),
		newExplainCommand(g),
		newGatekeeperCommand(g),
		newKyvernoCommand(g),
		newReportCommand(g),
		newDiffCommand(g),
		newAuditCommand(g),
		newVersionCommand(),
	)
	root.Version = about.FirstLine(buildVersion())
	root.SetVersionTemplate("{{.Version}}\n")
	root.Flags().Bool("version", false, "print the version (the first line of 'evaluate version') and exit")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return badInput(err) })
	return root
}

// run executes the command line and returns the exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	g := &globalOptions{stdin: stdin}
	root := newRoot(g, stdout, stderr)
	root.SetArgs(args)
	err := root.Execute()
	if g.stopProfile != nil {
		g.stopProfile()
	}
	if g.restoreMemory != nil {
		g.restoreMemory()
	}
	if err == nil {
		return exitOK
	}
	var silent *silentExit
	if errors.As(err, &silent) {
		return silent.code
	}
	code := exitBadInput
	var ee *exitError
	if errors.As(err, &ee) {
		code = ee.code
	}
	msg := err.Error()
	fmt.Fprintf(stderr, "evaluate: %s\n", msg)
	if strings.HasPrefix(msg, "unknown command") || strings.HasPrefix(msg, "unknown flag") || strings.HasPrefix(msg, "unknown shorthand flag") {
		fmt.Fprintln(stderr, "Run 'evaluate --help' for usage.")
	}
	return code
}

// checkChoice rejects a flag value outside its list.
func checkChoice(flag, value string, valid []string) error {
	if slices.Contains(valid, value) {
		return nil
	}
	return badInput(fmt.Errorf("--%s: %q is not one of %s", flag, value, strings.Join(valid, ", ")))
}
