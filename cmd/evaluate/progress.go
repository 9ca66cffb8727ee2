package main

import (
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/ome-policy/evaluator/output/progress"
)

// A long run (report, lint, diff, test, a cluster read over pages) says
// how far it is on standard error while it works (progress.Bar), when
// standard error is a terminal and the run has taken showProgressAfter; to
// a file or a pipe it says nothing.

// showProgressAfter is how long a run goes on before its bar shows: a
// quick run shows none.
var showProgressAfter = time.Second

// isTerminal says whether w is a terminal; tests replace it.
var isTerminal = func(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// newProgress starts the progress of cmd's run, at step (such as
// "linting"), of total steps (-1: not known in advance); nil, which does
// nothing, when standard error is no terminal. Until its Finish, what cmd
// writes on standard error clears the bar first. Inside a run that has a
// bar (a cluster read inside lint), it is that bar, at this step.
func newProgress(cmd *cobra.Command, step string, total int) *progress.Bar {
	w := cmd.ErrOrStderr()
	if b := progress.Of(w); b != nil {
		return b.Nest(step, total)
	}
	if !isTerminal(w) {
		return nil
	}
	b := progress.New(w, step, total, showProgressAfter, func() { cmd.SetErr(w) })
	cmd.SetErr(b.Writer())
	return b
}
