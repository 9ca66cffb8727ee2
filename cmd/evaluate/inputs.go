package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ome-policy/evaluator/input"
	"github.com/ome-policy/evaluator/live"
	"github.com/ome-policy/evaluator/objects"
)

// inputOptions are the flags that say what a command reads, declared once
// for every command: its arguments and -f (any mix of objects, as kubectl
// takes them), -R, --fail-on-empty, and where a command takes models and
// runtimes apart, -m and -r; then the cluster's flags, whose -n is also the
// namespace of the objects of the files that give none.
//
// Every path, whichever way it is given, is read by one rule, kubectl's: a
// folder's own files, and the model folders (<model>/config.json) directly
// in it, each one model; the folders inside it only with -R, else a notice
// names them.
type inputOptions struct {
	// Options holds what the flags set of input.Options: -m, -r, -R,
	// --fail-on-empty; and what a command sets itself (diff:
	// UnreadIsProblem).
	input.Options
	// files are -f's; paths a command's arguments (takePathArgs): any
	// mix, read as -f reads. Both are the Options' Paths.
	files, paths []string
	cluster      clusterOptions
	// stdin, when not nil, is standard input as a fleet's cluster reads
	// it (read once for every cluster).
	stdin io.Reader
}

// pathRule is how a folder given in any way is read, for the flags' help.
const pathRule = "a file, a folder (its files and model folders; the folders inside it with -R) or - for standard input (repeatable)"

// addInputFlags gives cmd the input flags; modelsAndRuntimes adds -m and -r.
func addInputFlags(cmd *cobra.Command, in *inputOptions, modelsAndRuntimes bool) {
	f := cmd.Flags()
	f.StringArrayVarP(&in.files, "filename", "f", nil, "objects of any kind: "+pathRule)
	f.BoolVarP(&in.Recursive, "recursive", "R", false, "also read the folders inside the folders given (as arguments, -f, -m or -r)")
	f.BoolVar(&in.FailOnEmpty, "fail-on-empty", false, "exit 2 when the input, or a path given, holds no OME object (default: a notice, and exit 0)")
	if modelsAndRuntimes {
		f.StringArrayVarP(&in.Models, "models", "m", nil, "models only: "+pathRule)
		f.StringArrayVarP(&in.Runtimes, "runtimes", "r", nil, "runtimes only: "+pathRule)
	}
	addClusterFlags(cmd, &in.cluster)
}

// takePathArgs has cmd take paths as arguments, read as -f reads them.
func takePathArgs(cmd *cobra.Command, in *inputOptions) {
	cmd.Args = cobra.ArbitraryArgs
	before := cmd.PreRunE
	cmd.PreRunE = func(c *cobra.Command, args []string) error {
		in.paths = args
		if before != nil {
			return before(c, args)
		}
		return nil
	}
}

// given says whether any input was named at all.
func (in *inputOptions) given() bool {
	return len(in.files)+len(in.paths)+len(in.Models)+len(in.Runtimes) > 0 || in.cluster.Enabled()
}

// sources names where objects were looked for, for notices.
func (in *inputOptions) sources() string {
	parts := slices.Concat(in.paths, in.files, in.Models, in.Runtimes)
	if in.cluster.Enabled() {
		parts = append(parts, "the cluster")
	}
	return strings.Join(parts, ", ")
}

// options are what the flags say to read (input.Options), with the
// cluster's resources when the cluster is read; each notice goes to
// standard error.
func (in *inputOptions) options(cmd *cobra.Command, resources []live.Resource) input.Options {
	o := in.Options
	o.Paths, o.Namespace, o.Stdin = slices.Concat(in.paths, in.files), in.cluster.FilesNamespace(), cmd.InOrStdin()
	if in.stdin != nil {
		o.Stdin = in.stdin
	}
	o.Notice = func(n string) { fmt.Fprintln(cmd.ErrOrStderr(), n) }
	if in.cluster.Enabled() && len(resources) > 0 {
		o.Cluster, o.Resources = &in.cluster, resources
	}
	return o
}

// read reads every input the flags name (input.Read): the arguments and
// -f's files, -m's, -r's, then with the cluster flags the cluster's
// resources. Each object goes to sink, or when sink is nil, into the
// Input's Objects. What is read is held: the memory limit follows it as it
// grows.
func (in *inputOptions) read(cmd *cobra.Command, resources []live.Resource, lenient bool, sink func(*objects.Object)) (*input.Result, error) {
	o := in.options(cmd, resources)
	o.Lenient = lenient
	o.Visit = sink
	o.Count = func(read int) {
		if read%256 == 0 {
			fitMemoryLimit()
		}
	}
	return input.Read(o)
}

// readWithServices reads the inputs as read does, all of them kept, and
// from the cluster its InferenceServices only when no file gives any, so
// that -f isvc.yaml --cluster checks the file's InferenceServices against
// the cluster's models and runtimes (input.ClusterSource.AddServices).
func (in *inputOptions) readWithServices(cmd *cobra.Command) (*input.Result, error) {
	got, err := in.read(cmd, live.ModelsAndRuntimes, false, nil)
	if err == nil {
		err = in.cluster.AddServices(got)
	}
	return got, err
}

// empty handles an input with none of the objects a command reads: a
// notice naming where they were looked for, and exit 0, or an error with
// --fail-on-empty. what is "OME objects", "InferenceServices", ...
func (in *inputOptions) empty(cmd *cobra.Command, what string) error {
	msg := fmt.Sprintf("no %s in %s", what, in.sources())
	if in.FailOnEmpty {
		return badInput(fmt.Errorf("%s (--fail-on-empty)", msg))
	}
	fmt.Fprintln(cmd.ErrOrStderr(), "notice: "+msg)
	return nil
}

// nothingToTell ends a command whose input holds none of what it reads
// (what): with the input's problems, exit 2; without, the notice of an
// empty input (naming what, or "OME objects" when it held none at all).
func (in *inputOptions) nothingToTell(cmd *cobra.Command, got *input.Result, what string) error {
	reportProblems(cmd, got.Problems)
	if len(got.Problems) > 0 {
		return exitAfter(got.Problems, false)
	}
	if len(got.Objects) == 0 {
		what = "OME objects"
	}
	return in.empty(cmd, what)
}

// pick keeps the objects a command reads and says in one notice how many
// of the others it leaves, by kind.
func pick(cmd *cobra.Command, objs []*objects.Object, command, reads string, want func(*objects.Object) bool) []*objects.Object {
	noteSkipped(cmd, command, reads, input.Others(objs, want))
	return input.Only(objs, want)
}

// noteSkipped says in one notice how many OME objects of other kinds (left,
// by kind) a command skipped; nothing when it skipped none.
func noteSkipped(cmd *cobra.Command, command, reads string, left map[string]int) {
	if n := input.SkippedNotice(command, reads, left); n != "" {
		fmt.Fprintln(cmd.ErrOrStderr(), n)
	}
}

// reportProblems writes each problem on standard error, after a command's
// results; the command then exits 2.
func reportProblems(cmd *cobra.Command, problems []*objects.InputError) {
	for _, p := range problems {
		fmt.Fprintf(cmd.ErrOrStderr(), "evaluate: %s\n", p.Error())
	}
}

// exitAfter is the exit of a command that wrote its results: 2 when some
// input was bad, else 1 when it found something (findings), else 0.
func exitAfter(problems []*objects.InputError, findings bool) error {
	switch {
	case len(problems) > 0:
		return &silentExit{code: exitBadInput}
	case findings:
		return &silentExit{code: exitFindings}
	}
	return nil
}
