package rules

import (
	"context"
	"errors"
	"fmt"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ome-policy/evaluator/objects"
)

// Sandbox is what a team's rules may do (sandbox.go): the builtins they
// may call beside the sandbox's, and how long and how much memory a rule
// may take on one object. The zero value is the default sandbox.
type Sandbox struct {
	// Allow are builtins of those the sandbox refuses (Refused) that the
	// rules may call nonetheless: lint's --allow-builtin.
	Allow []string
	// ForBundles loads the rules for an admission bundle: no builtin is
	// allowed, whatever Allow says, and a policy whose estimated CEL cost
	// is over Kubernetes' limit is refused.
	ForBundles bool
	// Timeout bounds the time a rule takes on one object; 0 means
	// DefaultTimeout.
	Timeout time.Duration
	// Memory bounds how much the heap may grow, in bytes, while the rules
	// judge one object; 0 means DefaultMemory.
	Memory int64
}

// The sandbox's default limits. A rule judges one object in well under a
// millisecond; one that takes seconds would time out at admission too
// (Gatekeeper's webhook waits 3 s by default) and is a loop or a runaway
// comprehension, stopped before it holds a CI run for hours.
const (
	DefaultTimeout = 10 * time.Second
	DefaultMemory  = 1 << 30
)

// Kubernetes' limits on a ValidatingAdmissionPolicy's CEL (the API
// server's, k8s.io/apiserver/pkg/apis/cel): each expression's evaluation
// is stopped past PerCallCostLimit, and its comprehensions are checked for
// interruption every CheckFrequency iterations.
const (
	PerCallCostLimit = 1_000_000
	checkFrequency   = 100
)

func (sb Sandbox) timeout() time.Duration {
	if sb.Timeout > 0 {
		return sb.Timeout
	}
	return DefaultTimeout
}

func (sb Sandbox) memory() int64 {
	if sb.Memory > 0 {
		return sb.Memory
	}
	return DefaultMemory
}

// allowed are the builtins the rules may call beside the sandbox's.
func (sb Sandbox) allowed() []string {
	if sb.ForBundles {
		return nil
	}
	return sb.Allow
}

// Check says what is wrong with the sandbox's settings: a builtin of
// Allow that the sandbox does not refuse, a limit below zero.
func (sb Sandbox) Check() error {
	if sb.Timeout < 0 {
		return fmt.Errorf("--rule-timeout: %s is below zero", sb.Timeout)
	}
	if sb.Memory < 0 {
		return fmt.Errorf("--rule-memory: %d is below zero", sb.Memory)
	}
	return checkAllow(sb.Allow)
}

// TestRun starts a run of Rego unit tests in the sandbox, as a rule's
// evaluation of an object is: each test is given the time limit (timeout,
// for OPA's test runner; a test past it is said to be stopped by timedOut),
// and the whole run ends (ctx) once what is live in memory grew by the
// memory limit. done ends the watch, and gives that stop as an error when
// it ended the run.
func (sb Sandbox) TestRun() (ctx context.Context, timeout time.Duration, timedOut string, done func() error) {
	ctx, cancel := context.WithCancelCause(context.Background())
	w := heapWatch.add(sb.memory(), cancel)
	timedOut = (&stopped{what: "time", limit: sb.timeout().String(), flag: "--rule-timeout"}).Error()
	return ctx, sb.timeout(), timedOut, func() error {
		heapWatch.remove(w)
		var err error
		if s := stopCause(ctx); s != nil {
			err = s
		}
		cancel(nil)
		return err
	}
}

// stopped says why a rule's evaluation was stopped by the sandbox: past
// its time limit, or its memory limit. It is the cause of the evaluation's
// context.
type stopped struct {
	what  string // "time" or "memory"
	limit string // the limit, as the flag takes it
	flag  string
}

func (s *stopped) Error() string {
	return fmt.Sprintf("stopped at the %s limit of %s (%s)", s.what, s.limit, s.flag)
}

// evaluation starts a rule's evaluation of one object under the sandbox's
// limits: its context ends past the time limit, or once the heap grew by
// the memory limit since it started; done ends it.
func (sb Sandbox) evaluation() (ctx context.Context, done func()) {
	limit := sb.timeout()
	ctx, cancelTime := context.WithTimeoutCause(context.Background(), limit,
		&stopped{what: "time", limit: limit.String(), flag: "--rule-timeout"})
	ctx, cancel := context.WithCancelCause(ctx)
	w := heapWatch.add(sb.memory(), cancel)
	return ctx, func() {
		heapWatch.remove(w)
		cancel(nil)
		cancelTime()
	}
}

// stopCause is why ctx ended when the sandbox stopped it, else nil.
func stopCause(ctx context.Context) *stopped {
	var s *stopped
	if errors.As(context.Cause(ctx), &s) {
		return s
	}
	return nil
}

// heapWatch watches the heap while rules run, and stops an evaluation
// during which what is live in it grew by more than its memory limit: the
// live heap as the last collection found it, so that garbage, which a
// rule that reads many objects makes and the collector takes back, never
// counts. A runaway rule keeps what it makes live, and the collections
// its growth brings on find it. It samples every heapWatchEvery while some
// evaluation runs, and stops sampling when none does.
var heapWatch = &watcher{watched: map[*watched]struct{}{}}

const heapWatchEvery = 5 * time.Millisecond

type watcher struct {
	mu      sync.Mutex
	watched map[*watched]struct{}
	running bool
	last    atomic.Uint64 // the heap at the last sample
}

type watched struct {
	base, limit uint64
	cancel      context.CancelCauseFunc
}

// heapBytes is the memory of the heap's live objects, as the last
// collection marked them.
func heapBytes() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

func (w *watcher) add(limit int64, cancel context.CancelCauseFunc) *watched {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.running {
		w.running = true
		w.last.Store(heapBytes())
		go w.run()
	}
	x := &watched{base: w.last.Load(), limit: uint64(limit), cancel: cancel}
	w.watched[x] = struct{}{}
	return x
}

func (w *watcher) remove(x *watched) {
	w.mu.Lock()
	delete(w.watched, x)
	w.mu.Unlock()
}

func (w *watcher) run() {
	for {
		time.Sleep(heapWatchEvery)
		heap := heapBytes()
		w.last.Store(heap)
		w.mu.Lock()
		if len(w.watched) == 0 {
			w.running = false
			w.mu.Unlock()
			return
		}
		for x := range w.watched {
			if heap > x.base && heap-x.base > x.limit {
				x.cancel(&stopped{what: "memory", limit: byteSize(int64(x.limit)), flag: "--rule-memory"})
				delete(w.watched, x)
			}
		}
		w.mu.Unlock()
	}
}

// byteSize writes n bytes as the flag takes them: 1Gi, 512Mi, or bytes.
func byteSize(n int64) string {
	for _, u := range []struct {
		suffix string
		size   int64
	}{{"Gi", 1 << 30}, {"Mi", 1 << 20}, {"Ki", 1 << 10}} {
		if n >= u.size && n%u.size == 0 {
			return fmt.Sprintf("%d%s", n/u.size, u.suffix)
		}
	}
	return fmt.Sprint(n)
}

// evalProblem is the problem of a rule whose evaluation of o failed: the
// rule's file and line (where, when known), naming the object and why.
func evalProblem(r Rule, file string, line int, o *objects.Object, why string) *objects.InputError {
	if file == "" {
		file, line = r.File, r.Line
	}
	return &objects.InputError{File: file, Line: line,
		Msg: fmt.Sprintf("rule %s failed on %s (%s): %s", r.ID, o.Ref(), objects.FileLine(o.File, o.Line), why)}
}

// stopProblem is the problem of a rule the sandbox stopped on o, which is
// not run on the objects after it.
func stopProblem(r Rule, o *objects.Object, s *stopped) *objects.InputError {
	return &objects.InputError{File: r.File, Line: r.Line,
		Msg: fmt.Sprintf("rule %s on %s (%s): %s; it is not run on the objects after it", r.ID, o.Ref(), objects.FileLine(o.File, o.Line), s)}
}
