package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/offsetlab/offsetlab/internal/testenv"
)

// chromiumEnv names the Chromium (or Chrome) binary the browser tests drive;
// without it they look for Debian's /usr/bin/chromium.
const chromiumEnv = "OFFSETLAB_CHROMIUM"

// chromiumPath finds Chromium or skips the test saying how to get one.
func chromiumPath(t *testing.T) string {
	t.Helper()
	testenv.Needs(t, testenv.Browser)
	if p := os.Getenv(chromiumEnv); p != "" {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("%s=%s: %v", chromiumEnv, p, err)
		}
		return p
	}
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	testenv.MissingSetup(t, "browser tests skipped: no Chromium found; install it (apt-get install chromium) or set %s=/path/to/chromium (scripts/test.sh does both)", chromiumEnv)
	return ""
}

// page is one headless Chromium with one tab, open on the app. It fails the
// test if the page throws an uncaught exception or breaks the CSP.
type page struct {
	t   *testing.T
	a   *app
	ctx context.Context

	mu      sync.Mutex
	console []chromedp.ConsoleMessage
}

// openPage starts a fresh Chromium (its own profile directory) sized
// width x height. Everything is torn down when the test ends.
func openPage(t *testing.T, a *app, chromium string, width, height int) *page {
	t.Helper()
	testenv.Needs(t, testenv.Browser)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(width, height),
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(allocCtx)
	t.Cleanup(func() {
		cancelCtx()
		cancelAlloc()
	})
	p := &page{t: t, a: a, ctx: ctx}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(int64(width), int64(height))); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			p.mu.Lock()
			p.console = append(p.console, m)
			p.mu.Unlock()
		}
	}()
	t.Cleanup(p.checkConsole)
	return p
}

// checkConsole fails the test on uncaught exceptions and CSP violations, and
// logs the page's other errors.
func (p *page) checkConsole() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, m := range p.console {
		switch {
		case m.IsException():
			p.t.Errorf("page threw: %s", m.Text)
		case strings.Contains(m.Text, "Content Security Policy"):
			p.t.Errorf("page broke the CSP: %s", m.Text)
		case m.Type == chromedp.ConsoleError && !strings.Contains(m.URL, "favicon.ico"):
			p.t.Logf("page console error: %s (%s)", m.Text, m.URL)
		}
	}
}

// do runs actions, failing the test on error.
func (p *page) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		p.t.Fatalf("%s: %v", what, err)
	}
}

// open navigates to a path of the app and waits for the script to boot.
func (p *page) open(path string) {
	p.t.Helper()
	p.do("open "+path, chromedp.Navigate(p.a.url+path))
	p.wait("the page script to start", `document.querySelector('#app')?.dataset.ready === 'true'`, 10*time.Second)
}

// eval evaluates a JavaScript expression into out.
func (p *page) eval(expr string, out any) {
	p.t.Helper()
	// Generous: an expression returns at once unless the page's main
	// thread is busy (a 10 MB query on a loaded two-core machine).
	ctx, cancel := context.WithTimeout(p.ctx, 30*time.Second)
	defer cancel()
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[[]byte](domHelpers+expr))
	if err != nil {
		p.t.Fatalf("evaluate %s: %v", expr, err)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			p.t.Fatalf("evaluate %s: decode %s: %v", expr, raw, err)
		}
	}
}

// domHelpers are the functions the tests' expressions use to read the page
// as a person sees it: by data-testid and data attributes.
const domHelpers = `
var byTestID = (id) => document.querySelector('[data-testid="' + id + '"]');
var cell = (o) => document.querySelector('[data-testid="log-cell"][data-offset="' + o + '"]');
var lane = (which, o) => document.querySelector('[data-testid="lane-' + which + '"][data-offset="' + o + '"]');
var flag = (id) => document.querySelector('[data-testid="pointer"][data-pointer="' + id + '"]');
var summary = (id) => document.querySelector('[data-testid="pointer-summary"][data-pointer-summary="' + id + '"]');
`

// waitErr polls a JavaScript condition until it holds or timeout passes.
func (p *page) waitErr(cond string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		ctx, cancel := context.WithTimeout(p.ctx, time.Until(deadline)+5*time.Second)
		_, err := chromedp.Run(ctx, chromedp.Poll[bool](`(() => { `+domHelpers+` return !!(`+cond+`); })()`,
			chromedp.WithPollingInterval(20*time.Millisecond), chromedp.WithPollingTimeout(time.Until(deadline))))
		cancel()
		// A page that navigates (a reload, a link) drops the context the
		// poll ran in: ask again in the new one until the deadline.
		if err != nil && time.Now().Before(deadline) && lostContext(err) {
			continue
		}
		return err
	}
}

// lostContext tells whether err is the browser saying the page's
// JavaScript context went away under an evaluation (it navigated).
func lostContext(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "Cannot find context with specified id") || strings.Contains(msg, "Execution context was destroyed")
}

// wait polls a JavaScript condition, failing the test with what the page
// shows if it does not hold within timeout.
func (p *page) wait(what, cond string, timeout time.Duration) {
	p.t.Helper()
	if err := p.waitErr(cond, timeout); err != nil {
		p.t.Fatalf("waiting %v for %s: %v\npage state: %s", timeout, what, err, p.state())
	}
}

// state summarises the page for failure messages.
func (p *page) state() string {
	ctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
	defer cancel()
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[[]byte](`JSON.stringify({
		url: location.href,
		stream: document.querySelector('[data-testid="stream-status"]')?.textContent,
		cells: [...document.querySelectorAll('[data-testid="log-cell"]')].map(c => c.dataset.offset + ':' + c.dataset.kind + '/' + c.dataset.txn + '/' + (c.dataset.marker || '')),
		pointers: [...document.querySelectorAll('[data-testid="pointer-summary"]')].map(f => f.dataset.pointerSummary + '=' + f.dataset.value),
		errors: [...document.querySelectorAll('.error:not([hidden])')].map(e => e.dataset.testid + ': ' + e.textContent),
		statuses: [...document.querySelectorAll('.status')].map(e => e.dataset.testid + ': ' + e.textContent).filter(s => !s.endsWith(': ')),
		banner: document.querySelector('[data-testid="broker-banner"]')?.hidden === false,
	})`))
	if err != nil {
		return "(unreadable: " + err.Error() + ")"
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return string(raw)
	}
	return s
}

// fill sets a form field by data-testid and tells the page it changed, as
// typing or choosing would.
func (p *page) fill(testID, value string) {
	p.t.Helper()
	v, _ := json.Marshal(value)
	p.eval(fmt.Sprintf(`(() => {
		const el = byTestID(%q);
		if (!el) throw new Error('no field %s');
		el.value = %s;
		el.dispatchEvent(new Event('input', {bubbles: true}));
		el.dispatchEvent(new Event('change', {bubbles: true}));
		return el.value;
	})()`, testID, testID, v), nil)
}

// click clicks a control by data-testid with the mouse, first choosing the
// dock's tab that holds it when another tab is on show, as a person would.
func (p *page) click(testID string) {
	p.t.Helper()
	p.openTabOf(testID)
	p.do("click "+testID, chromedp.Click(chromedp.CSS(fmt.Sprintf(`[data-testid=%q]`, testID))))
}

// openTabOf clicks the dock tab whose panel holds the element with testID,
// if that panel is hidden.
func (p *page) openTabOf(testID string) {
	p.t.Helper()
	var tab string
	p.eval(fmt.Sprintf(`(() => { const panel = byTestID(%q)?.closest('[role="tabpanel"]'); return panel && panel.hidden ? panel.getAttribute('aria-labelledby') : ''; })()`, testID), &tab)
	if tab != "" {
		p.do("choose the dock tab "+tab, chromedp.Click(chromedp.CSS("#"+tab)))
	}
}

// press sends keys to whatever has the focus.
func (p *page) press(keys string, opts ...chromedp.KeyOption) {
	p.t.Helper()
	p.do(fmt.Sprintf("press %q", keys), chromedp.KeyEvent(keys, opts...))
}

// focused is the data-testid of the focused element ("" if none).
func (p *page) focused() string {
	p.t.Helper()
	var id string
	p.eval(`document.activeElement?.dataset?.testid || ''`, &id)
	return id
}

// tabTo presses Tab until the control with testID has the focus, failing
// after a bounded number of presses (it never clicks or focuses by script).
func (p *page) tabTo(testID string) {
	p.t.Helper()
	var path []string
	for range 250 {
		if id := p.focused(); id == testID {
			return
		} else if id != "" {
			path = append(path, id)
		}
		p.press(kb.Tab)
	}
	p.t.Fatalf("Tab never reached %s; it went through %v", testID, path)
}

// logCell is a cell of the log as the DOM shows it.
type logCell struct {
	Offset int64  `json:"offset"`
	Kind   string `json:"kind"`
	Marker string `json:"marker"`
	Txn    string `json:"txn"`
}

// cells returns the visible log cells that hold an offset below the high
// watermark, in offset order.
func (p *page) cells() []logCell {
	p.t.Helper()
	var out []logCell
	p.eval(`[...document.querySelectorAll('[data-testid="log-cell"]')]
		.filter(c => !c.closest('.slot').hidden && c.dataset.kind !== 'next')
		.map(c => ({offset: +c.dataset.offset, kind: c.dataset.kind, marker: c.dataset.marker || '', txn: c.dataset.txn}))
		.sort((a, b) => a.offset - b.offset)`, &out)
	return out
}

// shape renders cells as the e2e lesson tests do: "offset:MARKER" for a
// marker, "offset:txn" for data.
func shape(cells []logCell) []string {
	out := make([]string, 0, len(cells))
	for _, c := range cells {
		if c.Kind == "control" {
			out = append(out, fmt.Sprintf("%d:%s", c.Offset, c.Marker))
		} else {
			out = append(out, fmt.Sprintf("%d:%s", c.Offset, c.Txn))
		}
	}
	return out
}

// received lists the offsets a consumer lane ("rc" or "ru") marks received.
func (p *page) received(lane string) []int64 {
	p.t.Helper()
	var out []int64
	p.eval(fmt.Sprintf(`[...document.querySelectorAll('[data-testid="lane-%s"][data-received="true"]')]
		.filter(l => !l.closest('.slot').hidden).map(l => +l.dataset.offset).sort((a, b) => a - b)`, lane), &out)
	return out
}

// laneReasons maps offset -> why the lane skips it ("" when received).
func (p *page) laneReasons(lane string) map[int64]string {
	p.t.Helper()
	var pairs [][2]any
	p.eval(fmt.Sprintf(`[...document.querySelectorAll('[data-testid="lane-%s"]')]
		.filter(l => !l.closest('.slot').hidden && l.dataset.reason !== 'next').map(l => [+l.dataset.offset, l.dataset.reason])`, lane), &pairs)
	out := map[int64]string{}
	for _, pr := range pairs {
		out[int64(pr[0].(float64))] = pr[1].(string)
	}
	return out
}

// pointer reads a pointer drawn on the log (data-pointer) and the same
// pointer in the summary above it; both must agree.
func (p *page) pointer(id string) int64 {
	p.t.Helper()
	var v struct {
		Flag    *int64 `json:"flag"`
		Summary *int64 `json:"summary"`
	}
	p.eval(fmt.Sprintf(`({flag: flag(%q) ? +flag(%q).dataset.value : null, summary: summary(%q) ? +summary(%q).dataset.value : null})`, id, id, id, id), &v)
	if v.Summary == nil {
		p.t.Fatalf("pointer %s is not shown; page state: %s", id, p.state())
	}
	if v.Flag == nil || *v.Flag != *v.Summary {
		p.t.Fatalf("pointer %s: drawn on the log as %v, summary says %d", id, v.Flag, *v.Summary)
	}
	return *v.Summary
}

// text is an element's textContent by data-testid.
func (p *page) text(testID string) string {
	p.t.Helper()
	var s string
	p.eval(fmt.Sprintf(`byTestID(%q)?.textContent ?? ''`, testID), &s)
	return s
}

// screenshot saves the viewport (and the whole page) as PNG files under
// test-output/screenshots at the repository root.
func (p *page) screenshot(name string, width, height int64, mobile bool) {
	p.t.Helper()
	emulate := []chromedp.EmulateViewportOption{}
	if mobile {
		emulate = append(emulate, chromedp.EmulateMobile, chromedp.EmulateTouch, chromedp.EmulatePortrait)
	}
	p.do("resize to "+name, chromedp.EmulateViewport(width, height, emulate...))
	// Let the log re-measure its columns and redraw after the resize.
	// A page without a log (the Exercises page) has nothing to redraw.
	p.wait("the log to redraw at "+name, `(() => { const v = byTestID('log-viewport'); if (!v) return true; return v.clientWidth <= `+fmt.Sprint(width)+` &&
		(document.getElementById('log-frame').hidden || document.querySelectorAll('[data-testid="log-cell"], [data-testid="log-row"]').length > 0); })()`, 5*time.Second)
	p.wait("animations to finish", `document.getAnimations().length === 0`, 5*time.Second)
	p.do("settle", chromedp.Sleep(200*time.Millisecond)) // let a frame paint after the resize; only for pixels
	dir := filepath.Join(repoRoot(p.t), "test-output", "screenshots")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		p.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(p.ctx, 30*time.Second)
	defer cancel()
	for _, shot := range []struct {
		suffix string
		action chromedp.Action[[]byte]
	}{
		{"", chromedp.CaptureScreenshot()},
		{"-full", chromedp.FullScreenshot(100)},
	} {
		png, err := chromedp.Run(ctx, shot.action)
		if err != nil {
			p.t.Fatalf("screenshot %s: %v", name, err)
		}
		path := filepath.Join(dir, name+shot.suffix+".png")
		if err := os.WriteFile(path, png, 0o644); err != nil {
			p.t.Fatal(err)
		}
		p.t.Logf("screenshot: %s", path)
	}
}

// domNodes counts the elements in the document.
func (p *page) domNodes() int {
	p.t.Helper()
	var n int
	p.eval(`document.getElementsByTagName('*').length`, &n)
	return n
}

// repoRoot is the directory holding go.mod.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal(errors.New("go.mod not found above the test directory"))
		}
		dir = parent
	}
}

// equalOffsets is equal for offset lists, with nil and empty alike.
func equalOffsets(t *testing.T, what string, got, want []int64) {
	t.Helper()
	if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
		t.Fatalf("%s:\n got  %v\n want %v", what, got, want)
	}
}
