package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/ome-policy/evaluator/engine/policyset"
	"github.com/ome-policy/evaluator/policies"
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
// every command that evaluates has (addReleaseFlag).
type globalOptions struct {
	policyDir  string
	cpuProfile string
	release    string
	stdin      io.Reader
	// chosen is what policies gave, by engine, kept: a command asks more
	// than once, from more than one goroutine.
	mu     sync.Mutex
	chosen map[string]*policyset.Set
}

// releaseEnv sets the OME release when --ome-version is not given.
const releaseEnv = "EVALUATE_OME_VERSION"

// policies are the policies of the OME release the command applies
// (release), for the engine named (cel or rego: that engine's files only;
// both or "": every file).
func (g *globalOptions) policies(engineName string) (*policyset.Set, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if set := g.chosen[engineName]; set != nil {
		return set, nil
	}
	set, err := g.allPolicies()
	if err != nil {
		return nil, err
	}
	r, err := g.chosenRelease(set)
	if err != nil {
		return nil, err
	}
	if set, err = set.Only(engineName).ForRelease(r); err != nil {
		return nil, err
	}
	if g.chosen == nil {
		g.chosen = map[string]*policyset.Set{}
	}
	g.chosen[engineName] = set
	return set, nil
}

// allPolicies are the policies as loaded: the newest release's, with what
// every other release changes.
func (g *globalOptions) allPolicies() (*policyset.Set, error) {
	if g.policyDir == "" {
		return policyset.Embedded()
	}
	return policyset.LoadDir(g.policyDir)
}

// chosenRelease is the OME release the command applies: --ome-version,
// else $EVALUATE_OME_VERSION, else the newest the policies state.
func (g *globalOptions) chosenRelease(set *policyset.Set) (string, error) {
	r, from := g.requestedRelease()
	if r == "" {
		return set.Newest(), nil
	}
	return knownRelease(set, r, from)
}

// requestedRelease is the OME release asked for, as written, and where:
// --ome-version, else $EVALUATE_OME_VERSION; "" when neither gives one.
func (g *globalOptions) requestedRelease() (r, from string) {
	if g.release != "" {
		return g.release, "--ome-version"
	}
	return os.Getenv(releaseEnv), releaseEnv
}

// knownRelease is the release r names ("0.1.4" names v0.1.4); one the
// policies do not state is bad input, said of from (the flag that gave it).
func knownRelease(set *policyset.Set, r, from string) (string, error) {
	name, ok := policies.NormalizeRelease(r)
	if !ok || !slices.Contains(set.Releases(), name) {
		return "", badInput(fmt.Errorf("%s: %w", from, &policyset.UnknownReleaseError{Release: r, Known: set.Releases()}))
	}
	return name, nil
}

// newRootCommand builds the command tree; tests run it in-process.
func newRootCommand(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	g := &globalOptions{stdin: stdin}
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
	root.PersistentFlags().StringVar(&g.policyDir, "policies", "", "load the policies from this folder (cel/*.yaml, rego/*.rego) instead of the built-in ones")
	root.PersistentFlags().StringVar(&g.cpuProfile, "cpuprofile", "", "write a Go CPU profile of the run to this file (for 'go tool pprof')")
	var profile *os.File
	root.PersistentPreRunE = func(*cobra.Command, []string) error {
		if g.cpuProfile == "" {
			return nil
		}
		f, err := os.Create(g.cpuProfile)
		if err != nil {
			return badInput(fmt.Errorf("--cpuprofile: %w", err))
		}
		profile = f
		return pprof.StartCPUProfile(f)
	}
	root.PersistentPostRun = func(*cobra.Command, []string) { stopProfile(profile) }
	root.AddCommand(
		newMatchCommand(g),
		newSelectCommand(g),
		newTestCommand(g),
		newPoliciesCommand(g),
		newCapabilitiesCommand(g),
		newGenerateCommand(g),
	)
	root.AddCommand(newLintCommand(g))
	root.AddCommand(newExplainCommand(g))
	root.AddCommand(newGatekeeperCommand(g))
	root.AddCommand(newKyvernoCommand(g))
	root.AddCommand(newReportCommand(g))
	root.AddCommand(newDiffCommand(g))
	root.AddCommand(newVersionCommand())
	root.Version = buildVersion().firstLine()
	root.SetVersionTemplate("{{.Version}}\n")
	root.Flags().Bool("version", false, "print the version (the first line of 'evaluate version') and exit")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return badInput(err) })
	return root
}

func stopProfile(f *os.File) {
	if f != nil {
		pprof.StopCPUProfile()
		f.Close()
	}
}

// run executes the command line and returns the exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRootCommand(stdin, stdout, stderr)
	root.SetArgs(args)
	err := root.Execute()
	// A command that fails skips PersistentPostRun; stopping twice is harmless.
	pprof.StopCPUProfile()
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
	for _, v := range valid {
		if v == value {
			return nil
		}
	}
	return badInput(fmt.Errorf("--%s: %q is not one of %s", flag, value, strings.Join(valid, ", ")))
}
