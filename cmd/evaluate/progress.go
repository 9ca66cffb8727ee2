package main

import (
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// A long run (report, lint, diff, test, a cluster read over pages) says
// how far it is on standard error while it works, when standard error is a
// terminal and the run has taken showProgressAfter; to a file or a pipe it
// says nothing. The bar is github.com/schollz/progressbar's, cleared when
// the run is done and before anything else is written on standard error,
// so that what stays on the terminal is the command's own output.

// showProgressAfter is how long a run goes on before its bar shows: a
// quick run shows none.
var showProgressAfter = time.Second

// isTerminal says whether w is a terminal; tests replace it.
var isTerminal = func(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// progress is a bar on standard error. A nil *progress, what newProgress
// gives when standard error is no terminal, does nothing.
type progress struct {
	mu          sync.Mutex
	cmd         *cobra.Command
	w           io.Writer // standard error, as it was
	start       time.Time
	step        string
	done, total int
	bar         *progressbar.ProgressBar // nil until shown
	nested      int                      // the newProgress calls the run made inside this one
}

// newProgress starts the progress of cmd's run, at step (such as
// "linting"), of total steps (-1: not known in advance); nil when standard
// error is no terminal. Until p.finish, what cmd writes on standard error
// clears the bar first. Inside a run that has a bar (a cluster read inside
// lint), it is that bar, at this step.
func newProgress(cmd *cobra.Command, step string, total int) *progress {
	w := cmd.ErrOrStderr()
	if cw, ok := w.(clearingWriter); ok {
		cw.p.mu.Lock()
		defer cw.p.mu.Unlock()
		cw.p.nested++
		cw.p.update(step, 0, total)
		return cw.p
	}
	if !isTerminal(w) {
		return nil
	}
	p := &progress{cmd: cmd, w: w, start: time.Now(), step: step, total: total}
	cmd.SetErr(clearingWriter{p})
	return p
}

// add counts n more steps done.
func (p *progress) add(n int) {
	if p != nil {
		p.mu.Lock()
		p.update(p.step, p.done+n, p.total)
		p.mu.Unlock()
	}
}

// set says how far step is: done of total; another step starts a bar of
// its own.
func (p *progress) set(step string, done, total int) {
	if p != nil {
		p.mu.Lock()
		p.update(step, done, total)
		p.mu.Unlock()
	}
}

func (p *progress) update(step string, done, total int) {
	if p.bar != nil && (step != p.step || total != p.total) {
		_ = p.bar.Finish()
		p.bar = nil
	}
	p.step, p.done, p.total = step, done, total
	if p.bar == nil {
		if time.Since(p.start) < showProgressAfter {
			return
		}
		p.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(p.w),
			progressbar.OptionSetDescription(step),
			progressbar.OptionSetWidth(30),
			progressbar.OptionShowCount(),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionSpinnerType(14),
			// Drawn only when told how far the run is, so that only
			// this goroutine-safe wrapper touches it.
			progressbar.OptionSetSpinnerChangeInterval(0),
			progressbar.OptionClearOnFinish(),
		)
	}
	_ = p.bar.Set(done)
}

// finish clears the bar, and gives cmd its standard error back.
func (p *progress) finish() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.nested > 0 {
		p.nested--
		return
	}
	if p.bar != nil {
		_ = p.bar.Finish()
		p.bar = nil
	}
	p.cmd.SetErr(p.w)
}

// clearingWriter is standard error while a bar may show: it clears the
// bar before the text, which the bar's next step draws under.
type clearingWriter struct{ p *progress }

func (c clearingWriter) Write(b []byte) (int, error) {
	c.p.mu.Lock()
	defer c.p.mu.Unlock()
	if c.p.bar != nil {
		_ = c.p.bar.Clear()
	}
	return c.p.w.Write(b)
}
