// Package progress is the bar a long run shows on a terminal while it
// works: github.com/schollz/progressbar's, shown only once the run has
// taken a while, cleared when the run is done and before anything else is
// written through the bar's writer, so that what stays on the terminal is
// the run's own output. Whether to show one (standard error a terminal)
// is the command line's to say.
package progress

import (
	"io"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
)

// Bar is a progress bar on a writer. A nil *Bar does nothing.
type Bar struct {
	mu          sync.Mutex
	w           io.Writer // the writer as it was
	after       time.Duration
	start       time.Time
	step        string
	done, total int
	bar         *progressbar.ProgressBar // nil until shown
	nested      int                      // the Nest calls inside this run
	finished    func()
}

// New starts a bar on w at step (such as "linting"), of total steps (-1:
// not known in advance), drawn once the run has taken after; finished is
// called when the run is done (Finish).
func New(w io.Writer, step string, total int, after time.Duration, finished func()) *Bar {
	return &Bar{w: w, after: after, start: time.Now(), step: step, total: total, finished: finished}
}

// Of is the bar whose Writer w is, nil when it is none.
func Of(w io.Writer) *Bar {
	if c, ok := w.(clearing); ok {
		return c.b
	}
	return nil
}

// Nest is b itself, at step, for a run inside b's (a cluster read inside
// lint): its Finish ends the nested run, not b's.
func (b *Bar) Nest(step string, total int) *Bar {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.nested++
	b.update(step, 0, total)
	return b
}

// Add counts n more steps done.
func (b *Bar) Add(n int) {
	if b != nil {
		b.mu.Lock()
		b.update(b.step, b.done+n, b.total)
		b.mu.Unlock()
	}
}

// Set says how far step is: done of total; another step starts a bar of
// its own.
func (b *Bar) Set(step string, done, total int) {
	if b != nil {
		b.mu.Lock()
		b.update(step, done, total)
		b.mu.Unlock()
	}
}

func (b *Bar) update(step string, done, total int) {
	if b.bar != nil && (step != b.step || total != b.total) {
		_ = b.bar.Finish()
		b.bar = nil
	}
	b.step, b.done, b.total = step, done, total
	if b.bar == nil {
		if time.Since(b.start) < b.after {
			return
		}
		b.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(b.w),
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
	_ = b.bar.Set(done)
}

// Finish clears the bar and calls New's finished, once the run is done;
// for a nested run, it ends that run only.
func (b *Bar) Finish() {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.nested > 0 {
		b.nested--
		return
	}
	if b.bar != nil {
		_ = b.bar.Finish()
		b.bar = nil
	}
	if b.finished != nil {
		b.finished()
	}
}

// Writer is what to write through while the bar may show: it clears the
// bar before the text, which the bar's next step draws under.
func (b *Bar) Writer() io.Writer { return clearing{b} }

type clearing struct{ b *Bar }

func (c clearing) Write(p []byte) (int, error) {
	c.b.mu.Lock()
	defer c.b.mu.Unlock()
	if c.b.bar != nil {
		_ = c.b.bar.Clear()
	}
	return c.b.w.Write(p)
}
