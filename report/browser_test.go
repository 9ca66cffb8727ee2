package report

// The page, tested in headless Chromium (Debian's chromium package) driven
// over the DevTools protocol with chromedp: what a person sees and can do,
// not the HTML text.

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/require"
)

var screenshot = flag.String("screenshot", "", "also write the screenshot of the catalog report to this PNG file (make screenshot)")

// chromiumPath finds Chromium; without it the browser tests fail, saying
// how to install it.
func chromiumPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("the report's browser tests need headless Chromium, and it is not installed: " +
		"run `apt-get update && apt-get install -y chromium` (Debian's package; make test does this as root or with passwordless sudo), " +
		"or set CHROMIUM to a Chromium or Chrome binary")
	return ""
}

// browser is one headless Chromium with one tab, watched for console
// errors, exceptions and requests. It is closed when the test ends.
type browser struct {
	ctx      context.Context
	mu       sync.Mutex
	problems []string // console errors and warnings, exceptions, log errors
	requests []string // every URL the page asked for
}

func newBrowser(t *testing.T) *browser {
	t.Helper()
	profile := t.TempDir()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath(t)),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(1600, 1000),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-breakpad", true),
		chromedp.Flag("disable-crash-reporter", true),
		// Chromium's crash handler keeps its database under the config
		// folder: keep it in the profile, so that nothing is written to
		// ~/.config and the handler is found (and waited for) with the rest.
		chromedp.Env("XDG_CONFIG_HOME="+filepath.Join(profile, "config"), "XDG_CACHE_HOME="+filepath.Join(profile, "cache")),
		chromedp.Flag("disable-default-apps", true),
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(allocCtx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 3*time.Minute)
	b := &browser{ctx: ctx}
	t.Cleanup(func() {
		cancelTimeout()
		// Close the browser, then make sure its process is gone.
		_ = chromedp.Cancel(ctx)
		cancel()
		cancelAlloc()
		// No process of this browser may outlive the test.
		deadline := time.Now().Add(10 * time.Second)
		for {
			left := processesUsing(profile)
			if len(left) == 0 {
				return
			}
			if time.Now().After(deadline) {
				for _, p := range left {
					if proc, err := os.FindProcess(p); err == nil {
						_ = proc.Kill()
					}
				}
				t.Errorf("Chromium processes %v were still running after the browser was closed", left)
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
	require.NoError(t, chromedp.Listen(ctx, func(ev any) {
		b.mu.Lock()
		defer b.mu.Unlock()
		switch e := ev.(type) {
		case *cdpruntime.EventConsoleAPICalled:
			switch e.Type {
			case cdpruntime.ConsoleAPICalledTypeError, cdpruntime.ConsoleAPICalledTypeWarning, cdpruntime.ConsoleAPICalledTypeAssert:
				var args []string
				for _, a := range e.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				b.problems = append(b.problems, fmt.Sprintf("console.%s: %s", e.Type, strings.Join(args, " ")))
			}
		case *cdpruntime.EventExceptionThrown:
			d := e.ExceptionDetails
			msg := d.Text
			if d.Exception != nil {
				msg += " " + d.Exception.Description
			}
			b.problems = append(b.problems, fmt.Sprintf("exception at %s:%d: %s", d.URL, d.LineNumber, msg))
		case *cdplog.EventEntryAdded:
			if e.Entry.Level == cdplog.EntryLevelError || e.Entry.Level == cdplog.EntryLevelWarning {
				b.problems = append(b.problems, fmt.Sprintf("log %s (%s): %s %s", e.Entry.Level, e.Entry.Source, e.Entry.Text, e.Entry.URL))
			}
		case *network.EventRequestWillBeSent:
			b.requests = append(b.requests, e.Request.URL)
		}
	}), "starting %s", chromiumPath(t))
	_, err := chromedp.Call(ctx, network.Enable, network.EnableParams{})
	require.NoError(t, err)
	_, err = chromedp.Call(ctx, cdplog.Enable, cdp.Empty{})
	require.NoError(t, err)
	_, err = chromedp.Call(ctx, cdpruntime.Enable, cdp.Empty{})
	require.NoError(t, err)
	return b
}

// processesUsing lists the processes whose command line names dir (the
// browser's profile folder, unique to one browser).
func processesUsing(dir string) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmd, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && bytes.Contains(cmd, []byte(dir)) {
			out = append(out, pid)
		}
	}
	return out
}

// open loads a page from disk, waits until it says it is ready and
// returns how long that took from the start of navigation, in ms.
func (b *browser) open(t *testing.T, path string) (url string, interactiveMs int) {
	return b.openURL(t, path, "")
}

// openURL is open with a fragment (such as #virtual) after the address.
func (b *browser) openURL(t *testing.T, path, fragment string) (url string, interactiveMs int) {
	t.Helper()
	abs, err := filepath.Abs(path)
	require.NoError(t, err)
	url = "file://" + abs + fragment
	if fragment != "" {
		// A new fragment alone would not load the page again.
		b.do(t, chromedp.Navigate("about:blank"))
	}
	b.do(t, chromedp.Navigate(url))
	// A poll that starts while the navigation still replaces the page's
	// JavaScript context fails at once with "Cannot find context with
	// specified id" (or "Execution context was destroyed"); it is asked
	// again, in the new context.
	for attempt := 1; ; attempt++ {
		_, err = chromedp.Run(b.ctx, chromedp.Poll[bool](`document.body.dataset.ready === 'yes'`, chromedp.WithPollingTimeout(time.Minute)))
		if err == nil || attempt == 5 || !contextReplaced(err) {
			break
		}
		t.Logf("%s: the page's context was replaced while polling (%v); polling again", path, err)
	}
	require.NoError(t, err, "the page never said it was ready")
	return url, evalJS[int](t, b, `Number(document.body.dataset.interactiveMs)`)
}

// contextReplaced reports whether err is the DevTools protocol's answer to
// an evaluation in a JavaScript context that a navigation has just
// replaced.
func contextReplaced(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "Cannot find context with specified id") || strings.Contains(msg, "Execution context was destroyed")
}

// clean fails the test on any console error, exception, or request other
// than the page itself.
func (b *browser) clean(t *testing.T, url string) {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	require.Empty(t, b.problems, "the page logged errors")
	page, _, _ := strings.Cut(url, "#")
	for _, r := range b.requests {
		if r != "about:blank" {
			require.Equal(t, page, r, "the page made a request")
		}
	}
	b.requests = nil
}

// evalJS evaluates js in the page and decodes its value.
func evalJS[T any](t *testing.T, b *browser, js string) T {
	t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](js))
	require.NoError(t, err, "evaluating %s", js)
	return v
}

// eval evaluates js in the page and decodes its JSON value into out
// (nil: the value does not matter).
func (b *browser) eval(t *testing.T, js string, out any) {
	t.Helper()
	if out == nil {
		_, err := chromedp.Run(b.ctx, chromedp.Evaluate[chromedp.Void](js))
		require.NoError(t, err, "evaluating %s", js)
		return
	}
	raw := evalJS[[]byte](t, b, js)
	require.NoError(t, json.Unmarshal(raw, out), "decoding the value of %s", js)
}

// evalAsync is eval for an expression whose value is a promise.
func (b *browser) evalAsync(t *testing.T, js string, out any) {
	t.Helper()
	raw, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]byte](js, chromedp.EvalAwaitPromise))
	require.NoError(t, err, "evaluating %s", js)
	require.NoError(t, json.Unmarshal(raw, out), "decoding the value of %s", js)
}

// do runs actions, failing the test on an error.
func (b *browser) do(t *testing.T, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	require.NoError(t, chromedp.Do(ctx, actions...))
}

// cell is the selector of the matrix cell of model i at column position q.
func cell(i, q int) string {
	return fmt.Sprintf(`#matrix-body tr[data-m="%d"] > td:nth-child(%d)`, i, q+2)
}

// shownPair is what the detail panel says of a pair.
type shownPair struct {
	Model, Runtime int
	Verdict        string
	State          string
	Reason         *string
	Where          []string
	Checks         [][3]string // check, PASS/FAIL, summary
	JSON           string
}

// waitDetail waits until the panel shows the whole explanation.
func (b *browser) waitDetail(t *testing.T) {
	t.Helper()
	_, err := chromedp.Run(b.ctx, chromedp.Poll[bool](`document.getElementById('detail').dataset.complete === 'yes'`, chromedp.WithPollingTimeout(30*time.Second)))
	require.NoError(t, err, "the explanation was never shown")
}

const readDetail = `(() => {
  const d = document.getElementById('detail');
  const reason = d.querySelector('[data-field=reason]');
  return {
    Model: Number(d.dataset.model), Runtime: Number(d.dataset.runtime),
    Verdict: d.querySelector('[data-field=verdict]').textContent,
    State: d.querySelector('[data-field=state]').textContent,
    Reason: reason ? reason.textContent : null,
    Where: [...d.querySelectorAll('dd .where')].map((e) => e.textContent),
    Checks: [...d.querySelectorAll('.check')].map((c) => [c.dataset.check, c.querySelector('.pass, .fail').textContent, c.querySelector('.summary').textContent]),
    JSON: d.querySelector('[data-field=json]').textContent,
  };
})()`

const clearFilter = `(() => { const f = document.getElementById('filter'); f.value = ''; f.dispatchEvent(new Event('input')); })()`

// rowsShown and colsShown are the model and runtime indexes drawn, in order.
const rowsShown = `[...document.querySelectorAll('#matrix-body tr[data-m]')].map((r) => Number(r.dataset.m))`
const colsShown = `[...document.querySelectorAll('#matrix-head th.col')].map((th) => th.querySelector('div').textContent)`

// nameOrder is the page's default order of objects: by name, then
// namespace, then input order.
func nameOrder(objs []ObjectInfo) []int {
	idx := make([]int, len(objs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		x, y := objs[idx[a]], objs[idx[b]]
		if x.Name != y.Name {
			return x.Name < y.Name
		}
		return x.Namespace < y.Namespace
	})
	return idx
}

// writePage writes the report of in to a temporary file.
func writePage(t *testing.T, in Input) (string, []byte) {
	t.Helper()
	var page bytes.Buffer
	_, err := Write(&page, in)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "report.html")
	require.NoError(t, os.WriteFile(path, page.Bytes(), 0o644))
	return path, page.Bytes()
}

func TestCatalogReportInBrowser(t *testing.T) {
	start := time.Now()
	in := catalogInput(t)
	path, page := writePage(t, in)
	t.Logf("catalog report: %d bytes, written in %s", len(page), time.Since(start).Round(time.Millisecond))
	require.Less(t, len(page), 2<<20, "the catalog's report must stay under 2 MB")

	b := newBrowser(t)
	// Interactive within 1 s of load. The clock also counts what else
	// the machine is doing (benchmarks, the other packages' tests, run in
	// parallel by go test ./...): so the best load counts, and while the
	// loads are slow the test waits a few seconds between them, for up to
	// a minute and a half.
	var url string
	best := 0
	deadline := time.Now().Add(90 * time.Second)
	for k := 1; ; k++ {
		var ms int
		url, ms = b.open(t, path)
		var timings string
		b.eval(t, `document.body.dataset.timings`, &timings)
		load, _ := os.ReadFile("/proc/loadavg")
		t.Logf("catalog report, load %d: interactive %d ms after navigation started (ms per step: %s; load average %s)", k, ms, timings, strings.Fields(string(load) + " ?")[0])
		if k == 1 || ms < best {
			best = ms
		}
		if best < 1000 || time.Now().After(deadline) {
			break
		}
		if k >= 3 {
			time.Sleep(5 * time.Second)
		}
	}
	require.Less(t, best, 1000, "the catalog's report must be interactive within 1 s of load")

	models, runtimes := infos(in.Models), infos(in.Runtimes)
	M, R := len(models), len(runtimes)
	colPos := make([]int, R) // runtime index -> column position
	for q, j := range nameOrder(runtimes) {
		colPos[j] = q
	}

	t.Run("matrix and names", func(t *testing.T) {
		var got struct {
			Cells, Rows, Cols  int
			RowNames, ColNames []string
			Virtual            string
		}
		b.eval(t, `({
		  Cells: document.querySelectorAll('#matrix-body td.c').length,
		  Rows: document.querySelectorAll('#matrix-body tr[data-m]').length,
		  Cols: document.querySelectorAll('#matrix-head th.col').length,
		  RowNames: [...document.querySelectorAll('#matrix-body th')].map((e) => e.textContent),
		  ColNames: [...document.querySelectorAll('#matrix-head th.col div')].map((e) => e.textContent),
		  Virtual: document.body.dataset.virtual,
		})`, &got)
		require.Equal(t, M*R, got.Cells)
		require.Equal(t, M, got.Rows)
		require.Equal(t, R, got.Cols)
		require.Equal(t, "no", got.Virtual)
		for q, i := range nameOrder(models) {
			require.Equal(t, models[i].Name, got.RowNames[q])
		}
		for q, j := range nameOrder(runtimes) {
			require.Equal(t, runtimes[j].Name, got.ColNames[q])
		}
	})

	exp := expectedCatalog(t, in)
	t.Logf("opening %d pairs", len(exp.sample))
	t.Run("cells and explanations equal the engine's", func(t *testing.T) {
		for _, p := range exp.sample {
			i, j := p[0], p[1]
			b.do(t, chromedp.Click(chromedp.CSS(cell(i, colPos[j]))))
			b.waitDetail(t)
			var got shownPair
			b.eval(t, readDetail, &got)
			e := exp.explanations[[2]int{i, j}]
			pair := fmt.Sprintf("%s against %s", models[i].Name, runtimes[j].Name)
			require.Equal(t, i, got.Model, pair)
			require.Equal(t, j, got.Runtime, pair)
			if e.Compatible {
				require.Equal(t, "COMPATIBLE", got.Verdict, pair)
				require.Nil(t, got.Reason, pair)
				if score, ok := exp.scores[[2]int{i, j}]; ok {
					require.Equal(t, fmt.Sprintf("selectable, score %d", score), got.State, pair)
				} else {
					require.Equal(t, "compatible, not selectable", got.State, pair)
				}
			} else {
				require.Equal(t, "NOT COMPATIBLE", got.Verdict, pair)
				require.NotNil(t, got.Reason, pair)
				require.Equal(t, e.Reason, *got.Reason, pair)
				require.True(t, strings.HasPrefix(got.State, "not compatible: "), pair)
			}
			require.Equal(t, []string{
				fmt.Sprintf("%s:%d", models[i].File, models[i].Line),
				fmt.Sprintf("%s:%d", runtimes[j].File, runtimes[j].Line),
			}, got.Where, pair)
			var checks [][3]string
			verdict := map[bool]string{true: "PASS", false: "FAIL"}
			for _, c := range e.RuntimeChecks {
				checks = append(checks, [3]string{c.Check, verdict[c.Passed], c.Summary})
			}
			for _, en := range e.Entries {
				for _, c := range en.Checks {
					checks = append(checks, [3]string{c.Check, verdict[c.Passed], c.Summary})
				}
			}
			require.Equal(t, checks, got.Checks, pair)
			// The JSON shown is the pair's match result and explanation,
			// as evaluate match and evaluate explain print them.
			k := strings.Index(got.JSON, "\n}\n{")
			require.Positive(t, k, pair)
			require.JSONEq(t, exp.matchJSON[[2]int{i, j}], got.JSON[:k+2], pair)
			require.JSONEq(t, exp.explainJSON[[2]int{i, j}], got.JSON[k+3:], pair)
		}
	})

	t.Run("the page's match and lint documents are the commands'", func(t *testing.T) {
		var match, lint string
		b.evalAsync(t, `omeReport.documents().then((d) => JSON.stringify(d.match))`, &match)
		b.evalAsync(t, `omeReport.documents().then((d) => JSON.stringify(d.lint))`, &lint)
		docs, err := Documents(page)
		require.NoError(t, err)
		require.JSONEq(t, string(docs["match"]), match)
		require.JSONEq(t, string(docs["lint"]), lint)
	})

	t.Run("filter and toggles", func(t *testing.T) {
		var rows []int
		b.do(t, chromedp.SendKeys(chromedp.CSS(`#filter`), "llama"))
		b.eval(t, rowsShown, &rows)
		var want []int
		for _, i := range nameOrder(models) {
			if facetsContain(models[i], "llama") {
				want = append(want, i)
			}
		}
		require.NotEmpty(t, want)
		require.Less(t, len(want), M)
		require.Equal(t, want, rows, "rows shown for the filter llama")

		// Architecture filter.
		b.eval(t, clearFilter, nil)
		b.do(t, chromedp.SendKeys(chromedp.CSS(`#filter`), "qwen2forcausallm"))
		b.eval(t, rowsShown, &rows)
		want = nil
		for _, i := range nameOrder(models) {
			if facetsContain(models[i], "qwen2forcausallm") {
				want = append(want, i)
			}
		}
		require.NotEmpty(t, want)
		require.Equal(t, want, rows, "rows shown for an architecture")

		// Clear the filter; only the models that no runtime accepts.
		b.eval(t, clearFilter, nil)
		b.eval(t, rowsShown, &rows)
		require.Len(t, rows, M)
		b.do(t, chromedp.Click(chromedp.CSS(`#only-unserved`)))
		b.eval(t, rowsShown, &rows)
		want = nil
		for _, i := range nameOrder(models) {
			if exp.rowCount[i] == 0 {
				want = append(want, i)
			}
		}
		require.NotEmpty(t, want)
		require.Equal(t, want, rows, "only models without a runtime")
		b.do(t, chromedp.Click(chromedp.CSS(`#only-unserved`)))

		// Only the runtimes that accept nothing.
		var cols []string
		b.do(t, chromedp.Click(chromedp.CSS(`#only-idle`)))
		b.eval(t, colsShown, &cols)
		var wantCols []string
		for _, j := range nameOrder(runtimes) {
			if exp.colCount[j] == 0 {
				wantCols = append(wantCols, runtimes[j].Name)
			}
		}
		require.NotEmpty(t, wantCols)
		require.Equal(t, wantCols, cols, "only runtimes that accept nothing")
		b.do(t, chromedp.Click(chromedp.CSS(`#only-idle`)))
		b.eval(t, rowsShown, &rows)
		require.Len(t, rows, M)

		// Sorted by matches: the rows' counts never increase.
		b.eval(t, `(() => { const s = document.getElementById('sort-rows'); s.value = 'matches'; s.dispatchEvent(new Event('change')); })()`, nil)
		b.eval(t, rowsShown, &rows)
		for k := 1; k < len(rows); k++ {
			require.GreaterOrEqual(t, exp.rowCount[rows[k-1]], exp.rowCount[rows[k]])
		}
		b.eval(t, `(() => { const s = document.getElementById('sort-rows'); s.value = 'name'; s.dispatchEvent(new Event('change')); })()`, nil)
	})

	t.Run("keyboard reaches a cell and opens it", func(t *testing.T) {
		b.do(t, chromedp.Focus(chromedp.CSS(`#filter`)))
		reached := false
		for k := 0; k < 12 && !reached; k++ {
			b.do(t, chromedp.KeyEvent(kb.Tab))
			b.eval(t, `document.activeElement.matches('td.c')`, &reached)
		}
		require.True(t, reached, "Tab never reached the matrix")
		b.do(t,
			chromedp.KeyEvent(kb.Home), chromedp.KeyEvent(kb.ArrowRight), chromedp.KeyEvent(kb.ArrowRight),
			chromedp.KeyEvent(kb.ArrowDown), chromedp.KeyEvent(kb.Enter))
		b.waitDetail(t)
		var got shownPair
		b.eval(t, readDetail, &got)
		order := nameOrder(runtimes)
		require.Equal(t, order[2], got.Runtime)
		var label string
		b.eval(t, `document.activeElement.getAttribute('aria-label')`, &label)
		require.Contains(t, label, runtimes[order[2]].Name)
		require.Contains(t, label, models[got.Model].Name)
	})

	t.Run("screenshot", func(t *testing.T) {
		// A pair with a few checks, so that the panel shows an explanation.
		p := exp.sample[0]
		b.eval(t, `document.getElementById('matrix-wrap').scrollTo(0, 0)`, nil)
		b.do(t, chromedp.Click(chromedp.CSS(cell(p[0], colPos[p[1]]))))
		b.waitDetail(t)
		png, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
		require.NoError(t, err)
		require.True(t, bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")), "not a PNG")
		require.NoError(t, os.WriteFile(filepath.Join(t.TempDir(), "report.png"), png, 0o644))
		if *screenshot != "" {
			require.NoError(t, os.MkdirAll(filepath.Dir(*screenshot), 0o755))
			require.NoError(t, os.WriteFile(*screenshot, png, 0o644))
			t.Logf("wrote %s (%d bytes)", *screenshot, len(png))
		}
	})

	t.Run("virtualised rows", func(t *testing.T) {
		b.clean(t, url)
		vurl, _ := b.openURL(t, path, "#virtual")
		var v struct {
			Virtual          string
			Rows, Cells      int
			First, Last      int
			ScrollHeight     int
			HeaderWidthCells int
		}
		const look = `({
		  Virtual: document.body.dataset.virtual,
		  Rows: document.querySelectorAll('#matrix-body tr[data-m]').length,
		  Cells: document.querySelectorAll('#matrix-body td.c').length,
		  First: Number(document.querySelector('#matrix-body tr[data-m]').dataset.pos),
		  Last: Number([...document.querySelectorAll('#matrix-body tr[data-m]')].pop().dataset.pos),
		  ScrollHeight: document.getElementById('matrix-wrap').scrollHeight,
		  HeaderWidthCells: document.querySelectorAll('#matrix-head th.col').length,
		})`
		b.eval(t, look, &v)
		require.Equal(t, "yes", v.Virtual)
		require.Less(t, v.Rows, M, "every row is drawn")
		require.Equal(t, 0, v.First)
		require.Less(t, v.HeaderWidthCells, R, "every column is drawn")
		require.Equal(t, v.Rows*v.HeaderWidthCells, v.Cells)
		// Scroll to the end: the last rows are drawn, the first are not.
		b.eval(t, `(() => { const w = document.getElementById('matrix-wrap'); w.scrollTop = w.scrollHeight; w.dispatchEvent(new Event('scroll')); })()`, nil)
		_, err := chromedp.Run(b.ctx, chromedp.Poll[bool](`Number([...document.querySelectorAll('#matrix-body tr[data-m]')].pop().dataset.pos) === `+strconv.Itoa(M-1), chromedp.WithPollingTimeout(10*time.Second)))
		require.NoError(t, err, "scrolling to the end did not draw the last row")
		b.eval(t, look, &v)
		require.Positive(t, v.First)
		var names []string
		b.eval(t, `[...document.querySelectorAll('#matrix-body th')].map((e) => e.textContent)`, &names)
		order := nameOrder(models)
		for k, name := range names {
			require.Equal(t, models[order[v.First+k]].Name, name)
		}
		// Scroll to the right end: the last columns are drawn.
		b.eval(t, `(() => { const w = document.getElementById('matrix-wrap'); w.scrollLeft = w.scrollWidth; })()`, nil)
		lastName := runtimes[nameOrder(runtimes)[R-1]].Name
		_, err = chromedp.Run(b.ctx, chromedp.Poll[bool](`(() => { const h = [...document.querySelectorAll('#matrix-head th.col div')]; return h.length > 0 && h[h.length - 1].textContent === `+strconv.Quote(lastName)+`; })()`, chromedp.WithPollingTimeout(10*time.Second)))
		require.NoError(t, err, "scrolling to the right did not draw the last column")
		// The keyboard moves past the rows and columns drawn: Ctrl+Home goes back to the first.
		// (A click from script: the rows drawn change while scrolling
		// settles, which a click at a node's position could miss.)
		b.eval(t, `document.querySelector('#matrix-body tr[data-m] > td.c').click()`, nil)
		b.waitDetail(t)
		b.do(t, chromedp.KeyEvent(kb.Home, chromedp.KeyModifiers(kb.ModifierCtrl)), chromedp.KeyEvent(kb.Enter))
		b.waitDetail(t)
		var got shownPair
		b.eval(t, readDetail, &got)
		require.Equal(t, order[0], got.Model)
		require.Equal(t, nameOrder(runtimes)[0], got.Runtime)
		b.clean(t, vurl)
		url = vurl
	})

	b.clean(t, url)
	t.Logf("browser test of the catalog report: %s in all", time.Since(start).Round(time.Millisecond))
}

// facetsContain is the page's filter: name, namespace, kind, formats,
// frameworks, architectures or quantizations contain text (lowercase).
func facetsContain(o ObjectInfo, text string) bool {
	all := append([]string{o.Name, o.Namespace, o.Kind}, o.Formats...)
	all = append(all, o.Frameworks...)
	all = append(all, o.Architectures...)
	all = append(all, o.Quantizations...)
	return strings.Contains(strings.ToLower(strings.Join(all, "\n")), text)
}

func TestHostileReportInBrowser(t *testing.T) {
	// The files also sit under a folder whose name is markup.
	dir := filepath.Join(t.TempDir(), `dir"<img src=x onerror="window.__pwned='path'">`)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	for _, f := range []string{"models.yaml", "runtimes.yaml", "inferenceservices.yaml"} {
		b, err := os.ReadFile(filepath.Join("..", "testdata", "report", "hostile", f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), b, 0o644))
	}
	in := loadInput(t, "cel", []string{filepath.Join(dir, "models.yaml")}, []string{filepath.Join(dir, "runtimes.yaml")}, []string{filepath.Join(dir, "inferenceservices.yaml")})
	path, page := writePage(t, in)
	require.NotContains(t, string(page), "pwned", "an input string is in the HTML text")

	b := newBrowser(t)
	url, _ := b.open(t, path)
	var got struct {
		Pwned                             any
		Images, Scripts, Frames, Handlers int
		RowNames, ColNames, ServiceTexts  []string
		Bold                              int
	}
	const look = `({
	  Pwned: window.__pwned === undefined ? null : window.__pwned,
	  Images: document.images.length + document.querySelectorAll('svg').length,
	  Scripts: document.scripts.length,
	  Frames: document.querySelectorAll('iframe').length,
	  Handlers: [...document.querySelectorAll('*')].filter((e) => [...e.attributes].some((a) => a.name.startsWith('on'))).length,
	  RowNames: [...document.querySelectorAll('#matrix-body th')].map((e) => e.textContent),
	  ColNames: [...document.querySelectorAll('#matrix-head th.col div')].map((e) => e.textContent),
	  ServiceTexts: [...document.querySelectorAll('#services-table td')].map((e) => e.textContent),
	  Bold: [...document.querySelectorAll('b, u, i')].filter((e) => ['bold', 'plain', 'runtime'].includes(e.textContent)).length,
	})`
	check := func() {
		b.eval(t, look, &got)
		require.Nil(t, got.Pwned, "an injected script ran")
		require.Zero(t, got.Images, "an input string became an image")
		require.Equal(t, 3, got.Scripts, "only the two data blocks and the page's script")
		require.Zero(t, got.Frames)
		require.Zero(t, got.Handlers, "an element has an inline event handler")
		require.Zero(t, got.Bold, "an input string became markup")
	}
	check()
	models, runtimes := infos(in.Models), infos(in.Runtimes)
	var wantRows, wantCols []string
	for _, i := range nameOrder(models) {
		wantRows = append(wantRows, models[i].Name)
	}
	for _, j := range nameOrder(runtimes) {
		wantCols = append(wantCols, runtimes[j].Name)
	}
	require.Equal(t, wantRows, got.RowNames, "names shown as text")
	require.Equal(t, wantCols, got.ColNames, "names shown as text")
	require.Contains(t, strings.Join(got.ServiceTexts, "\n"), `<iframe srcdoc='<script>parent.__pwned=1</script>'>`)

	// Open every pair: versions, operators and reasons are text too.
	var text string
	for q := range runtimes {
		for i := range models {
			b.do(t, chromedp.Click(chromedp.CSS(cell(i, q))))
			b.waitDetail(t)
			check()
			var d string
			b.eval(t, `document.getElementById('detail').innerText`, &d)
			text += d + "\n"
		}
	}
	for _, s := range []string{
		`1.0.0</script><script>window.__pwned = 'entry version'</script>`,
		`4.46.0<img src=x onerror=window.__pwned=1>`,
		`<b onmouseover="window.__pwned = 'operator'">GreaterThan</b>`,
		`<svg onload="window.__pwned = 'architecture'">`,
		`dir"<img src=x onerror="window.__pwned='path'">`,
	} {
		require.Contains(t, text, s, "shown as text")
	}
	var lintText string
	b.eval(t, `document.getElementById('findings').textContent`, &lintText)
	require.Contains(t, lintText, "<b onmouseover=")
	b.clean(t, url)

	// Were markup to get in anyway, the page's policy would stop it: an
	// inline handler, an inline script and an image from the network
	// are refused.
	var blocked struct {
		Ran        any
		Violations []string
	}
	b.evalAsync(t, `new Promise((done) => {
	  const seen = [];
	  document.addEventListener('securitypolicyviolation', (e) => seen.push(e.effectiveDirective));
	  const img = document.createElement('img');
	  img.setAttribute('onerror', 'window.__csp = "handler"');
	  img.src = 'http://example.invalid/x.png';
	  document.body.appendChild(img);
	  const s = document.createElement('script');
	  s.textContent = 'window.__csp = "script"';
	  document.body.appendChild(s);
	  setTimeout(() => done({ Ran: window.__csp === undefined ? null : window.__csp, Violations: seen.sort() }), 500);
	})`, &blocked)
	require.Nil(t, blocked.Ran, "injected code ran")
	require.Subset(t, blocked.Violations, []string{"img-src", "script-src-elem"})
}

// The data block's JSON, read back in the browser, is the documents the
// commands print, whole, for the bundled examples with InferenceServices.
func TestPageDecodesTheDocuments(t *testing.T) {
	ex := filepath.Join("..", "testdata", "examples")
	in := loadInput(t, "cel", []string{filepath.Join(ex, "models")}, []string{filepath.Join(ex, "runtimes")}, []string{filepath.Join(ex, "select")})
	path, page := writePage(t, in)
	docs, err := Documents(page)
	require.NoError(t, err)
	b := newBrowser(t)
	url, ms := b.open(t, path)
	var timings string
	b.eval(t, `document.body.dataset.timings`, &timings)
	t.Logf("examples report (%d bytes): interactive %d ms after navigation started (ms per step: %s)", len(page), ms, timings)
	var got map[string]json.RawMessage
	b.evalAsync(t, `omeReport.documents()`, &got)
	for _, k := range []string{"match", "explain", "lint", "select", "probes"} {
		require.JSONEq(t, string(docs[k]), string(got[k]), k)
	}
	var services int
	b.eval(t, `document.querySelectorAll('#services-table tr').length - 1`, &services)
	require.Equal(t, len(in.Services), services)
	b.clean(t, url)
}

// TestReportPageInBrowser measures a report written beforehand, such as
// the 300 x 700 generated cluster's (see the README):
//
//	OME_REPORT_PAGE=/tmp/c/report.html go test ./report -run TestReportPageInBrowser -v
//
// It opens the page, scrolls from the first row to the last and opens a
// cell there, and says how long each took. Without OME_REPORT_PAGE it has
// nothing to measure.
func TestReportPageInBrowser(t *testing.T) {
	path := os.Getenv("OME_REPORT_PAGE")
	if path == "" {
		t.Skip("set OME_REPORT_PAGE to a report to measure it")
	}
	info, err := os.Stat(path)
	require.NoError(t, err)
	b := newBrowser(t)
	url, ms := b.open(t, path)
	var timings string
	b.eval(t, `document.body.dataset.timings`, &timings)
	var shape struct {
		M, R    int
		Virtual bool
	}
	b.eval(t, `omeReport.cells()`, &shape)
	t.Logf("%s: %d bytes, %d x %d, virtualised rows: %v; interactive %d ms after navigation started (ms per step: %s)",
		path, info.Size(), shape.M, shape.R, shape.Virtual, ms, timings)

	// Scroll to the end in 20 steps; each waits until the rows in view are drawn.
	start := time.Now()
	var worst time.Duration
	for k := 1; k <= 20; k++ {
		step := time.Now()
		b.eval(t, fmt.Sprintf(`(() => { const w = document.getElementById('matrix-wrap'); w.scrollTop = (w.scrollHeight - w.clientHeight) * %d / 20; })()`, k), nil)
		_, err := chromedp.Run(b.ctx, chromedp.Poll[bool](`(() => {
		  const w = document.getElementById('matrix-wrap');
		  const rows = [...document.querySelectorAll('#matrix-body tr[data-m]')];
		  if (!rows.length) return false;
		  const top = w.getBoundingClientRect().top + document.getElementById('matrix-head').offsetHeight;
		  return rows.some((r) => Math.abs(r.getBoundingClientRect().top - top) < 2 * r.offsetHeight);
		})()`, chromedp.WithPollingTimeout(30*time.Second)))
		require.NoError(t, err, "step %d: the rows in view were not drawn", k)
		worst = max(worst, time.Since(step))
	}
	t.Logf("scrolled to the last row in 20 steps: %s in all, the slowest step %s", time.Since(start).Round(time.Millisecond), worst.Round(time.Millisecond))

	open := time.Now()
	b.eval(t, `[...document.querySelectorAll('#matrix-body tr[data-m]')].pop().querySelector('td.c').click()`, nil)
	b.waitDetail(t)
	t.Logf("a cell of the last row opened, its explanation shown in %s", time.Since(open).Round(time.Millisecond))
	b.clean(t, url)
}
