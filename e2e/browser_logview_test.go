package e2e

import (
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The log view at the sizes a class meets: the lane labels whole on one
// line, a page opened at 150 % zoom showing cells, a phone's legend out of
// the way, and the replay's minimap showing the replayed moment.

// laneLabelsWrapped lists the gutter's lane labels that are not whole on
// one line ("read_" over "committed" was), or are cut.
func (p *page) laneLabelsWrapped() []string {
	p.t.Helper()
	var bad []string
	p.eval(`[...document.querySelectorAll('.gutter .g-lane')].filter((e) => e.getClientRects().length > 0).map((e) => {
		const r = document.createRange();
		r.selectNodeContents(e);
		const lines = new Set([...r.getClientRects()].map((x) => Math.round(x.top))).size;
		const want = e.classList.contains('g-rc') ? 'RC' : 'RU';
		return e.textContent !== want || lines !== 1 || e.scrollWidth > e.clientWidth + 1 ? e.textContent + ': ' + lines + ' lines, ' + e.scrollWidth + '>' + e.clientWidth : '';
	}).filter(Boolean)`, &bad)
	return bad
}

// writtenCellsInView counts the written cells (not the next offset's
// slot) at least half inside the log's viewport.
func (p *page) writtenCellsInView() int {
	p.t.Helper()
	var n int
	p.eval(`(() => { const r = byTestID('log-viewport').getBoundingClientRect();
		return [...document.querySelectorAll('[data-testid="log-cell"]')].filter((c) => c.dataset.kind !== 'next' && !c.closest('.slot[hidden]'))
			.filter((c) => { const b = c.getBoundingClientRect(); return Math.min(b.bottom, r.bottom, innerHeight) - Math.max(b.top, r.top, 0) >= b.height / 2; }).length; })()`, &n)
	return n
}

// TestBrowserLogViewFit: lesson 2's log (0…7, the next offset 8) opened at
// 150 % zoom shows written cells, not the next slot alone; the lane labels
// read "RC" and "RU" (the counts above the log say RC · read_committed …)
// on one line at 1280×720, 1920×1080 and 150 %, in
// English and Korean; on a phone the legend takes at most a tenth of the
// screen until its button opens it; the replay's minimap shows the
// crash's moment (HW 3, offset 2 open) and the live partition again after
// Live.
func TestBrowserLogViewFit(t *testing.T) {
	t.Parallel()
	chromium := chromiumPath(t)
	a := startApp(t, embedded)
	st := a.runLesson("2", true)
	topic := st.Names["order-totals-tx"]
	path := "/topics/" + topic + "/partitions/0"

	p := openPage(t, a, chromium, 1280, 720)
	// Opened at 150 %: the page lays out in 853×480.
	p.do("zoom to 150%", chromedp.EmulateViewport(853, 480, chromedp.EmulateScale(1.5)))
	p.open(path)
	p.wait("lesson 2's log at 150 %", `summary('hw')?.dataset.value === '8' && cell(7)?.dataset.marker === 'COMMIT'`, 15*time.Second)
	p.settled("opened at 150 %")
	if n := p.writtenCellsInView(); n == 0 {
		t.Errorf("opened at 150 %%, the log shows no written cell; page state: %s", p.state())
	}
	if bad := p.laneLabelsWrapped(); len(bad) > 0 {
		t.Errorf("at 150 %%: lane labels wrap or are cut: %v", bad)
	}
	p.screenshot("logview-zoom150", 853, 480, false)

	for _, size := range []struct {
		name string
		w, h int64
	}{{"1280x720", 1280, 720}, {"1920x1080", 1920, 1080}} {
		p.screenshot("logview-"+size.name, size.w, size.h, false)
		if bad := p.laneLabelsWrapped(); len(bad) > 0 {
			t.Errorf("at %s: lane labels wrap or are cut: %v", size.name, bad)
		}
		if n := p.writtenCellsInView(); n < 8 {
			t.Errorf("at %s: %d written cells on show, want all 8", size.name, n)
		}
		p.click("ui-lang-ko")
		p.wait("the page in Korean", `document.documentElement.lang === 'ko' && document.querySelector('.gutter .g-rc')?.textContent === 'RC'`, 5*time.Second)
		if bad := p.laneLabelsWrapped(); len(bad) > 0 {
			t.Errorf("at %s in Korean: lane labels wrap or are cut: %v", size.name, bad)
		}
		p.screenshot("logview-"+size.name+"-ko", size.w, size.h, false)
		p.click("ui-lang-en")
		p.wait("the page in English", `document.documentElement.lang === 'en'`, 5*time.Second)
	}

	// A phone: the legend is a line (its button opens the rest).
	p.screenshot("logview-phone", 390, 844, true)
	var legend struct {
		Height float64 `json:"height"`
		Toggle bool    `json:"toggle"`
	}
	legendJS := `(() => { const l = byTestID('legend'); const t = byTestID('legend-toggle');
		return {height: l.getClientRects().length ? l.getBoundingClientRect().height : 0, toggle: t.getClientRects().length > 0}; })()`
	p.eval(legendJS, &legend)
	if legend.Height > 844*0.1 {
		t.Errorf("on a phone the legend takes %.0f px of 844", legend.Height)
	}
	if !legend.Toggle {
		t.Errorf("on a phone the legend has no button to open it")
	}
	if n := p.writtenCellsInView(); n == 0 {
		t.Errorf("on a phone the first screen shows no written cell")
	}
	p.click("legend-toggle")
	p.wait("the legend open on the phone", `byTestID('legend').getBoundingClientRect().height > 84 && byTestID('legend-toggle').getAttribute('aria-expanded') === 'true'`, 5*time.Second)
	p.screenshot("logview-phone-legend", 390, 844, true)
	p.click("legend-toggle")
	p.wait("the legend closed", `byTestID('legend-toggle').getAttribute('aria-expanded') === 'false'`, 5*time.Second)

	// The replay's minimap: the crash's moment, then the live partition.
	p.do("back to 1280x720", chromedp.EmulateViewport(1280, 720))
	p.wait("the strip mapped", `byTestID('minimap').dataset.heat === 'done' && byTestID('minimap').dataset.heatHw === '8'`, 15*time.Second)
	p.scrubToCrash()
	strip := func() map[string]string {
		var m map[string]string
		p.eval(`(() => { const d = byTestID('minimap').dataset; return {moment: d.heatMoment, hw: d.heatHw, open: d.heatOpen, aborted: d.heatAborted, abortMarkers: d.heatAbortMarkers, committed: d.heatCommitted}; })()`, &m)
		return m
	}
	p.wait("the crash replayed", `summary('hw')?.dataset.value === '3' && cell(2)?.dataset.txn === 'open'`, 5*time.Second)
	if got, want := strip(), map[string]string{"moment": "past", "hw": "3", "open": "1", "aborted": "0", "abortMarkers": "0", "committed": "1"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("the replay's minimap at the crash counts %v; want %v", got, want)
	}
	p.screenshot("logview-replay-crash", 1280, 720, false)
	p.click("replay-live")
	p.wait("live again", `byTestID('replay').dataset.state === 'live'`, 5*time.Second)
	if got := strip(); got["moment"] != "live" || got["hw"] != "8" || got["aborted"] != "1" || got["open"] != "0" {
		t.Errorf("the live minimap counts %v; want HW 8, 1 aborted, none open", got)
	}
}
