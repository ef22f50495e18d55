package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/twmb/franz-go/pkg/kgo"
)

// The stage: at 1280×720 a class sees the log and the control
// that acts on it at once, without scrolling.

// visibleJS defines visible(el): the element's box lies inside the window
// and inside every ancestor that clips it (the log's viewport, the dock's
// scrolling tab), and the page itself is not scrolled.
const visibleJS = `
var visible = (el) => {
	if (!el || window.scrollY !== 0 || window.scrollX !== 0) return false;
	const r = el.getBoundingClientRect();
	if (r.width === 0 || r.height === 0) return false;
	const inside = (q) => r.top >= q.top - 0.5 && r.left >= q.left - 0.5 && r.bottom <= q.bottom + 0.5 && r.right <= q.right + 0.5;
	if (!inside({top: 0, left: 0, bottom: innerHeight, right: innerWidth})) return false;
	for (let a = el.parentElement; a; a = a.parentElement) {
		const s = getComputedStyle(a);
		if (s.display === 'none' || s.visibility === 'hidden') return false;
		if (/hidden|auto|scroll|clip/.test(s.overflowX + ' ' + s.overflowY) && !inside(a.getBoundingClientRect())) return false;
	}
	return true;
};
`

// assertOnScreen fails the test naming every element (a JavaScript
// expression) that is not on screen without scrolling.
func (p *page) assertOnScreen(when string, exprs map[string]string) {
	p.t.Helper()
	var parts []string
	for name, expr := range exprs {
		parts = append(parts, fmt.Sprintf("[%q, visible(%s)]", name, expr))
	}
	slices.Sort(parts)
	var got [][2]any
	p.eval("(() => {"+visibleJS+" return ["+strings.Join(parts, ",")+"]; })()", &got)
	var off []string
	for _, g := range got {
		if ok, _ := g[1].(bool); !ok {
			off = append(off, g[0].(string))
		}
	}
	if len(off) > 0 {
		shot := strings.NewReplacer(" ", "-", "/", "-", ",", "").Replace(when)
		p.screenshot("stage-offscreen-"+shot, 1280, 720, false)
		p.t.Fatalf("%s: not on screen at 1280×720 without scrolling: %v\npage state: %s", when, off, p.state())
	}
}

// logOnScreen waits until the page shows topic's partition 0 as the API
// reads it, then checks that the lesson's Next button, every cell of the
// log, the LSO and HW pointers (the summary and the flags on the log) are
// on screen.
func (p *page) logOnScreen(when, topic string) partitionLog {
	p.t.Helper()
	l := p.a.log(topic)
	p.wait(when+": the page on "+topic+" at HW "+fmt.Sprint(l.HighWatermark),
		fmt.Sprintf(`location.pathname === '/topics/%s/partitions/0' && byTestID('stream-status').dataset.state === 'open' &&
			summary('hw')?.dataset.value === '%d' && summary('lso')?.dataset.value === '%d' &&
			[...Array(%d).keys()].every((o) => cell(o + %d) && cell(o + %d).dataset.kind !== 'loading')`,
			topic, l.HighWatermark, l.LastStableOffset, l.HighWatermark-l.LogStartOffset, l.LogStartOffset, l.LogStartOffset), 20*time.Second)
	exprs := map[string]string{
		"Next":          `byTestID('lesson-next')`,
		"LSO summary":   `summary('lso')`,
		"HW summary":    `summary('hw')`,
		"LSO flag":      `flag('lso')`,
		"HW flag":       `flag('hw')`,
		"the HW's cell": fmt.Sprintf(`cell(%d)`, l.HighWatermark),
	}
	for o := l.LogStartOffset; o < l.HighWatermark; o++ {
		exprs[fmt.Sprintf("cell %d", o)] = fmt.Sprintf(`cell(%d)`, o)
	}
	p.assertOnScreen(when, exprs)
	return l
}

// TestBrowserStageLessons steps lessons 2 and 6g with the Next button
// at 1280×720, on both brokers: after each step the Next button, the cells
// of the log the step concerns and its LSO and HW are on screen without
// scrolling; after the crash the open record and the held LSO are; each
// lesson ends on the log that carries its point, whose story tells writes
// and markers oldest first, in offset order; text on cells measures at
// least 16 px.
func TestBrowserStageLessons(t *testing.T) {
	t.Parallel()
	for _, kind := range brokerKinds {
		for _, lesson := range []string{"2", "6g"} {
			t.Run(string(kind)+"/"+lesson, func(t *testing.T) {
				t.Parallel()
				chromium := chromiumPath(t)
				a := startApp(t, kind)
				p := openPage(t, a, chromium, 1280, 720)
				p.open("/")
				p.wait("the lessons panel", `byTestID('lessons-panel')?.dataset.ready === 'true'`, 10*time.Second)
				p.fill("lesson-select", lesson)
				p.click("lesson-start")
				p.wait("the run to start", `byTestID('lesson-run').dataset.status === 'ready' && !byTestID('lesson-next').disabled`, 10*time.Second)
				runID := p.attr("lesson-run", "data-run")
				var st lessonRun
				topic := ""
				for i := 0; ; i++ {
					p.click("lesson-next")
					p.wait(fmt.Sprintf("step %d", i+1), fmt.Sprintf(`byTestID('lesson-run').dataset.cursor === '%d' && byTestID('lesson-run').dataset.busy === undefined`, i+1), 90*time.Second)
					a.do("GET", "/api/lessons/runs/"+runID, nil, http.StatusOK, &st)
					if st.Status == "failed" {
						t.Fatalf("lesson %s failed at step %d: %s", lesson, i+1, st.Error)
					}
					if s := st.Steps[i]; s.Topic != "" {
						topic = s.Topic
					}
					if st.Status == "finished" {
						break
					}
					if topic != "" {
						p.logOnScreen(fmt.Sprintf("lesson %s step %d", lesson, i+1), topic)
					}
					if lesson == "2" && i == 2 { // the crash before commit
						p.wait("O-2's write open, the LSO held at 2", `cell(2)?.dataset.txn === 'open' && summary('lso')?.dataset.value === '2' && flag('lso')?.dataset.value === '2'`, 5*time.Second)
						p.assertOnScreen("after the crash", map[string]string{"the open record": `cell(2)`, "the held LSO": `flag('lso')`, "the LSO sentence": `byTestID('lso-why')`})
						p.screenshot("stage-"+string(kind)+"-lesson2-crash-1280x720", 1280, 720, false)
					}
				}
				if st.Focus == nil {
					t.Fatalf("lesson %s names no log to end on", lesson)
				}
				end := p.logOnScreen("lesson "+lesson+" at its end", st.Focus.Topic)
				p.screenshot("stage-"+string(kind)+"-lesson"+lesson+"-end-1280x720", 1280, 720, false)

				// The story of the log the lesson ends on: writes and markers,
				// oldest first, in offset order.
				const toldJS = `[...document.querySelectorAll('[data-testid="timeline"] [data-testid="event"]')]
					.filter((e) => ['write', 'commit', 'abort'].includes(e.dataset.kind) && e.dataset.offset !== undefined)
					.map((e) => +e.dataset.offset)`
				var want []int64
				for _, e := range end.Entries {
					want = append(want, e.Offset)
				}
				// The story hears of the last marker over the stream, maybe
				// a moment after the log shows it (seconds on a loaded machine, where
				// real Kafka writes its markers after answering EndTxn): give it that.
				p.waitErr(fmt.Sprintf(`%s.length >= %d`, toldJS, len(want)), 15*time.Second)
				var told []int64
				p.eval(toldJS, &told)
				equalOffsets(t, "the story of "+st.Focus.Topic+" (writes and markers, oldest first)", told, want)
				if lesson == "2" {
					equalOffsets(t, "lesson 2's story", told, []int64{0, 1, 2, 3, 4, 5, 6, 7})
					// Choosing the ABORT's entry marks the marker and the
					// record it aborted.
					p.do("choose the ABORT in the story", chromedp.Click(chromedp.CSS(`[data-testid="timeline"] [data-testid="event"][data-kind="abort"][data-offset="3"]`)))
					p.wait("the ABORT and offset 2 marked on the log", `cell(3)?.dataset.marked === 'true' && cell(2)?.dataset.marked === 'true' && cell(4)?.dataset.marked === undefined && cell(3).getAttribute('aria-pressed') === 'true'`, 5*time.Second)
				}
				p.assertCellTextSize()
			})
		}
	}
}

// assertCellTextSize fails when any text on the log (cells, lanes, their
// labels, pointer flags, batch labels) or in the story measures less than
// 16 px.
func (p *page) assertCellTextSize() {
	p.t.Helper()
	var small []string
	p.eval(`[...document.querySelectorAll('.cell .off, .cell .val, .cell .pid, .cell .tag, .lane, .gutter span, .flag, .batch-label, [data-testid="timeline"] .ev p, .ev-kind, .ev time, .ev-where')]
		.filter((e) => e.textContent.trim() !== '' && e.getClientRects().length > 0)
		.map((e) => [e.className + ' "' + e.textContent.trim().slice(0, 30) + '"', parseFloat(getComputedStyle(e).fontSize)])
		.filter(([, size]) => size < 16)
		.map(([what, size]) => what + ': ' + size + 'px')`, &small)
	if len(small) > 0 {
		p.t.Errorf("text under 16 px on the stage: %v", small)
	}
}

// zoom emulates the browser zoomed to factor on a 1280×720 screen: the page
// lays out in 1280/factor × 720/factor CSS pixels.
func (p *page) zoom(factor float64) {
	p.t.Helper()
	w, h := int64(1280/factor), int64(720/factor)
	p.do(fmt.Sprintf("zoom to %.0f%%", factor*100), chromedp.EmulateViewport(w, h, chromedp.EmulateScale(factor)))
	p.wait("the log to redraw", fmt.Sprintf(`byTestID('log-viewport').clientWidth <= %d && document.querySelectorAll('[data-testid="log-cell"], [data-testid="log-row"]').length > 0`, w), 5*time.Second)
	p.wait("animations to finish", `document.getAnimations().length === 0`, 5*time.Second)
}

// clipped lists the visible texts whose content is wider than their box:
// cells' lines, lanes, pointer buttons, tabs, buttons and select boxes.
func (p *page) clipped() []string {
	p.t.Helper()
	var out []string
	p.eval(`[...document.querySelectorAll('.cell .off, .cell .val, .cell .pid, .cell .tag, .lane, .ptr, [role="tab"], button, select, .flag')]
		.filter((e) => e.getClientRects().length > 0 && !e.closest('[hidden]') && e.textContent.trim() !== '')
		.filter((e) => e.scrollWidth > e.clientWidth + 1)
		.map((e) => (e.dataset.testid || e.id || e.className) + ' "' + e.textContent.trim().slice(0, 40) + '" ' + e.scrollWidth + '>' + e.clientWidth)`, &out)
	return out
}

// TestBrowserStageZoom: nothing clips at 150 % and 200 % zoom — cells,
// markers, lanes, pointer buttons, select boxes (the topic picker and the
// panels' choices), tabs and buttons — in English and Korean; below
// 1000 px the page stacks and scrolls.
func TestBrowserStageZoom(t *testing.T) {
	t.Parallel()
	chromium := chromiumPath(t)
	a := startApp(t, embedded)
	st := a.runLesson("2", true)
	topic := st.Names["order-totals-tx"]
	p := openPage(t, a, chromium, 1280, 720)
	p.open("/topics/" + topic + "/partitions/0")
	p.wait("lesson 2's log", `cell(7)?.dataset.marker === 'COMMIT' && byTestID('lessons-panel')?.dataset.ready === 'true'`, 15*time.Second)
	p.assertCellTextSize()
	if c := p.clipped(); len(c) > 0 {
		t.Errorf("clipped at 100%%: %v", c)
	}
	for _, lang := range []string{"en", "ko"} {
		p.click("ui-lang-" + lang)
		for _, factor := range []float64{1.5, 2} {
			p.zoom(factor)
			var stacked bool
			p.eval(`getComputedStyle(document.querySelector('.stage')).gridTemplateColumns.split(' ').length === 1`, &stacked)
			if !stacked {
				t.Errorf("%s at %.0f%%: the stage does not stack", lang, factor*100)
			}
			// Every row of the log, one at a time (the zoomed log shows one).
			for o := range 9 {
				p.fill("goto-offset", fmt.Sprint(o))
				p.eval(`byTestID('goto-form').requestSubmit()`, nil)
				p.wait(fmt.Sprintf("offset %d on show", o), fmt.Sprintf(`cell(%d) && cell(%d).dataset.kind !== 'loading'`, o, o), 5*time.Second)
				if c := p.clipped(); len(c) > 0 {
					t.Errorf("%s at %.0f%%, offset %d on show: clipped %v", lang, factor*100, o, c)
				}
			}
			for _, tab := range []string{"lesson", "act", "inspect"} {
				p.click("dock-tab-" + tab)
				if c := p.clipped(); len(c) > 0 {
					t.Errorf("%s at %.0f%%, %s tab: clipped %v", lang, factor*100, tab, c)
				}
			}
			p.eval(`window.scrollTo(0, 0)`, nil)
			p.screenshot(fmt.Sprintf("stage-zoom%.0f-%s", factor*100, lang), int64(1280/factor), int64(720/factor), false)
		}
		p.do("back to 100%", chromedp.EmulateViewport(1280, 720))
	}
}

// TestBrowserStageDuplicates: a send whose ACK was lost, without
// idempotence, leaves two cells — the second marked as our producer's
// retry of the first (or as the same key and value), with a link to it in
// the details; both stay on screen. With idempotence the retry leaves one
// cell, and the story tells the retry.
func TestBrowserStageDuplicates(t *testing.T) {
	t.Parallel()
	for _, kind := range brokerKinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			chromium := chromiumPath(t)
			a := startApp(t, kind)
			topic := a.name("lost-ack")
			a.createTopic(topic)
			p := openPage(t, a, chromium, 1280, 720)
			p.open("/topics/" + topic + "/partitions/0")
			p.wait("the stream", `byTestID('stream-status').dataset.state === 'open'`, 15*time.Second)
			p.fill("produce-key", "order-1001")
			p.fill("produce-value", "event-1001")
			p.fill("produce-acks", "all")
			p.click("produce-idempotent") // the form starts idempotent, as Kafka clients do: off, to see the copy
			p.click("produce-lose-ack")
			p.click("produce-submit")
			p.wait("two cells, the second marked a copy of the first",
				`cell(0)?.dataset.kind === 'data' && cell(1)?.dataset.kind === 'data' && ['retry', 'same'].includes(cell(1).dataset.copy) && cell(1).dataset.copyOf === '0' && cell(0).dataset.copy === undefined`, 20*time.Second)
			p.assertOnScreen("after the lost ACK", map[string]string{"the first copy": `cell(0)`, "the retry": `cell(1)`})
			var mark struct{ Badge, Title, Label string }
			p.eval(`(() => { const m = cell(1).querySelector('[data-testid="copy-mark"]'); return {badge: m.textContent, title: m.title, label: cell(1).getAttribute('aria-label')}; })()`, &mark)
			if !(mark.Badge == "↻ 0" || mark.Badge == "≡ 0") || !(strings.Contains(mark.Title, "retry of the send at offset 0") || strings.Contains(mark.Title, "same key and value as offset 0")) || !strings.Contains(mark.Label, mark.Title) {
				t.Errorf("the retry's cell is marked %+v", mark)
			}
			p.assertOnScreen("the mark", map[string]string{"the mark": `cell(1).querySelector('[data-testid="copy-mark"]')`})
			p.eval(`cell(1).click()`, nil)
			p.wait("the details of the copy, with a link to offset 0", `!byTestID('dock-details').hidden && byTestID('details').dataset.offset === '1' && document.querySelector('[data-testid="details-link"][data-offset="0"]')`, 5*time.Second)
			p.screenshot("stage-"+string(kind)+"-lost-ack-1280x720", 1280, 720, false)

			p.click("produce-idempotent")
			p.fill("produce-value", "event-1002")
			p.click("produce-submit")
			p.wait("one more cell for the idempotent send", `cell(2)?.dataset.kind === 'data' && summary('hw')?.dataset.value === '3'`, 20*time.Second)
			p.wait("the story to tell the idempotent retry", `[...document.querySelectorAll('[data-testid="timeline"] [data-testid="event"]')].some((e) => e.dataset.key === 'narration.acklost.idempotent')`, 10*time.Second)
			var copies string
			p.eval(`cell(2).dataset.copy || ''`, &copies)
			if copies != "" {
				t.Errorf("the idempotent send's one cell is marked %q", copies)
			}
		})
	}
}

// TestBrowserStageScreenshots saves the stage of lesson 2's end state at
// presenter (1280×720, 1920×1080) and phone size, in English and Korean,
// for a person to look at.
func TestBrowserStageScreenshots(t *testing.T) {
	t.Parallel()
	chromium := chromiumPath(t)
	a := startApp(t, embedded)
	st := a.runLesson("2", true)
	if st.Status != "finished" {
		t.Fatalf("lesson 2 ended %s", st.Status)
	}
	topic := st.Names["order-totals-tx"]
	p := openPage(t, a, chromium, 1280, 720)
	p.open("/topics/" + topic + "/partitions/0")
	p.wait("lesson 2's log", `cell(7)?.dataset.marker === 'COMMIT' && byTestID('lessons-panel')?.dataset.ready === 'true' && byTestID('lesson-run').dataset.status === 'finished'`, 15*time.Second)
	for _, lang := range []string{"en", "ko"} {
		p.click("ui-lang-" + lang)
		for _, size := range []struct {
			name          string
			width, height int64
			phone         bool
		}{
			{"1280x720", 1280, 720, false},
			{"1920x1080", 1920, 1080, false},
			{"phone-390x844", 390, 844, true},
		} {
			p.screenshot(fmt.Sprintf("stage-lesson2-%s-%s", size.name, lang), size.width, size.height, size.phone)
		}
		p.do("back to 1280×720", chromedp.EmulateViewport(1280, 720))
	}
	// The details of the aborted write, and the Act tab.
	p.eval(`cell(2).click()`, nil)
	p.wait("the details tab, saying why the cell's epoch is not the one the producer reported", `!byTestID('dock-details').hidden && byTestID('details').dataset.offset === '2' && document.querySelector('#details-list [data-epoch-note]')`, 5*time.Second)
	p.screenshot("stage-lesson2-details-1280x720-ko", 1280, 720, false)
	p.click("ui-lang-en")
	// O-1's COMMIT carries epoch 1 after O-1's epoch 0: the details say
	// why, in one sentence, instead of the reported-epoch note.
	p.eval(`cell(1).click()`, nil)
	p.wait("the details of the COMMIT marker, explaining the epoch that rose at it", `byTestID('details').dataset.offset === '1' && document.querySelector('#details-list [data-marker-epoch-note]')?.textContent.includes('from 0 to 1') && !document.querySelector('#details-list [data-epoch-note]')`, 5*time.Second)
	p.screenshot("stage-lesson2-marker-epoch-1280x720-en", 1280, 720, false)
	p.click("dock-tab-act")
	p.screenshot("stage-lesson2-act-1280x720-en", 1280, 720, false)
}

// TestBrowserStageSaveView: "Save this view" downloads one HTML file that
// holds the cells, the pointers, the lanes and the story as shown, with the
// stylesheet inlined and no script.
func TestBrowserStageSaveView(t *testing.T) {
	t.Parallel()
	chromium := chromiumPath(t)
	a := startApp(t, embedded)
	st := a.runLesson("2", true)
	topic := st.Names["order-totals-tx"]
	p := openPage(t, a, chromium, 1280, 720)
	p.open("/topics/" + topic + "/partitions/0")
	p.wait("lesson 2's log", `cell(7)?.dataset.marker === 'COMMIT'`, 15*time.Second)
	dir := t.TempDir()
	p.do("allow downloads", chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
		_, err := cdp.Call(ctx, target, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
			Behavior: browser.SetDownloadBehaviorBehaviorAllow, DownloadPath: dir,
		})
		return err
	}))
	p.click("save-view")
	p.wait("the saved file's name", `document.querySelector('[data-testid="save-link"]')?.download.endsWith('.html')`, 5*time.Second)
	name := p.attr("save-link", "download")
	var html string
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err == nil && len(b) > 0 {
			html = string(b)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no download %s in %s: %v", name, dir, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, want := range []string{"<style>", `data-testid="log-cell"`, `data-marker="ABORT"`, `data-testid="lane-rc"`, `data-pointer="lso"`, `data-testid="event"`, "O-2 total=42000", topic + "-0"} {
		if !strings.Contains(html, want) {
			t.Errorf("the saved view lacks %q", want)
		}
	}
	for _, not := range []string{"<script", "/static/", "<link"} {
		if strings.Contains(html, not) {
			t.Errorf("the saved view refers to %q: it must open offline", not)
		}
	}
}

// scrubToCrash moves the replay scrubber back with the arrow key, from the
// end of the recording, to the step that tells the crash.
func (p *page) scrubToCrash() {
	p.t.Helper()
	p.do("focus the scrubber", chromedp.Focus(chromedp.CSS(`[data-testid="replay-scrubber"]`)))
	p.press(kb.End) // a key on the scrubber loads the recording, at its end
	if err := p.waitErr(`+byTestID('replay').dataset.steps > 0 && byTestID('replay-scrubber').value === byTestID('replay-scrubber').max`, 10*time.Second); err != nil {
		var why any
		p.eval(`({replay: {...byTestID('replay').dataset}, disabled: byTestID('replay-scrubber').disabled, title: byTestID('replay-scrubber').title, focused: document.activeElement?.dataset?.testid})`, &why)
		p.t.Fatalf("no recording to replay: %v; %+v", err, why)
	}
	var steps int
	p.eval(`+byTestID('replay').dataset.steps`, &steps)
	for range steps {
		p.press(kb.ArrowLeft)
		var kind string
		p.eval(`byTestID('replay').dataset.eventKind || ''`, &kind)
		if kind == "crash" {
			return
		}
	}
	p.t.Fatalf("no crash in the %d recorded steps; page state: %s", steps, p.state())
}

// TestBrowserStageReplay runs lesson 2 on the server binary, then scrubs
// the output's recorded story back to the crash — HW 3, LSO 2, offset 2
// open — and forward to the end; after a restart of the server (same data
// directory) the recording is still there and replays the same.
func TestBrowserStageReplay(t *testing.T) {
	t.Parallel()
	chromium := chromiumPath(t)
	dir := t.TempDir()
	srv := startServerProcess(t, "--data-dir", dir)
	a := srv.app(randomSuffix(t))
	st := a.runLesson("2", true)
	if st.Status != "finished" {
		t.Fatalf("lesson 2 ended %s: %s", st.Status, st.Error)
	}
	topic := st.Names["order-totals-tx"]
	p := openPage(t, a, chromium, 1280, 720)
	replay := func(when string) {
		t.Helper()
		p.open("/topics/" + topic + "/partitions/0")
		p.wait(when+": lesson 2's end", `cell(7)?.dataset.marker === 'COMMIT' && summary('hw')?.dataset.value === '8'`, 15*time.Second)
		p.scrubToCrash()
		p.wait(when+": the crash replayed — HW 3, LSO 2, offset 2 open", `summary('hw')?.dataset.value === '3' && summary('lso')?.dataset.value === '2' && flag('lso')?.dataset.value === '2' &&
			cell(2)?.dataset.txn === 'open' && cell(3)?.dataset.kind === 'next' && byTestID('log-panel').dataset.replay === 'true'`, 5*time.Second)
		p.assertOnScreen(when+": the replayed crash", map[string]string{"the open record": `cell(2)`, "the held LSO": `flag('lso')`, "the scrubber": `byTestID('replay-scrubber')`})
		var told []int64
		p.eval(`[...document.querySelectorAll('[data-testid="timeline"] [data-testid="event"]')].filter((e) => e.dataset.offset !== undefined).map((e) => +e.dataset.offset)`, &told)
		for _, o := range told {
			if o > 2 {
				t.Errorf("%s: at the crash the story already tells offset %d (told %v)", when, o, told)
			}
		}
		p.screenshot("stage-replay-crash-"+strings.ReplaceAll(when, " ", "-"), 1280, 720, false)
		p.press(kb.End)
		p.wait(when+": the end replayed", `summary('hw')?.dataset.value === '8' && summary('lso')?.dataset.value === '8' && cell(7)?.dataset.marker === 'COMMIT' && cell(2)?.dataset.txn === 'aborted'`, 5*time.Second)
		p.click("replay-live")
		p.wait(when+": live again", `byTestID('log-panel').dataset.replay === 'false' && byTestID('replay-live').getAttribute('aria-pressed') === 'true' && cell(7)?.dataset.marker === 'COMMIT'`, 5*time.Second)
	}
	replay("before the restart")

	srv.kill()
	again := startServerProcess(t, "--data-dir", dir)
	p.a = again.app(a.suffix)
	replay("after the restart")
}

// TestBrowserStageMultiPartition: producing to a topic of three partitions
// says which partition each record landed in and opens that partition;
// the topic picker lists every partition with its current count.
func TestBrowserStageMultiPartition(t *testing.T) {
	t.Parallel()
	chromium := chromiumPath(t)
	a := startApp(t, embedded)
	topic := a.name("three")
	a.do("POST", "/api/topics", map[string]any{"name": topic, "partitions": 3}, http.StatusCreated, nil)
	// Where the key lands: ask the API once, the page must follow it there.
	var out struct {
		Results []struct {
			Partition int32 `json:"partition"`
			Offset    int64 `json:"offset"`
		} `json:"results"`
	}
	a.do("POST", "/api/produce", map[string]any{"topic": topic, "key": "user-7", "values": []string{"first"}}, http.StatusOK, &out)
	landed := out.Results[0].Partition
	other := (landed + 1) % 3
	p := openPage(t, a, chromium, 1280, 720)
	p.open(fmt.Sprintf("/topics/%s/partitions/%d", topic, other))
	p.wait("the stream", `byTestID('stream-status').dataset.state === 'open'`, 15*time.Second)
	p.fill("produce-key", "user-7")
	p.fill("produce-value", "second")
	p.click("produce-submit")
	p.wait(fmt.Sprintf("the page to follow the record to partition %d", landed),
		fmt.Sprintf(`location.pathname === '/topics/%s/partitions/%d' && cell(1)?.dataset.kind === 'data' && summary('hw')?.dataset.value === '2'`, topic, landed), 15*time.Second)
	if got, want := p.text("produce-result"), fmt.Sprintf("at partition %d, offset 1", landed); !strings.Contains(got, want) {
		t.Errorf("the result reads %q, want it to say %q", got, want)
	}
	p.assertOnScreen("after the produce", map[string]string{"the record": `cell(1)`, "the HW": `flag('hw')`})
	want := []string{}
	for i := range 3 {
		n := 0
		if int32(i) == landed {
			n = 2
		}
		want = append(want, fmt.Sprintf("%s · partition %d of 3 · %d offsets", topic, i, n))
	}
	p.wait("the picker's counts", fmt.Sprintf(`JSON.stringify([...byTestID('topic-select').options].filter((o) => o.value.startsWith('%s/')).map((o) => o.textContent)) === %q`, topic, mustJSON(want)), 15*time.Second)
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// TestBrowserStageServerDown: when the Offset Lab server itself stops
// answering, the banner says so — not that the Kafka broker is
// unreachable.
func TestBrowserStageServerDown(t *testing.T) {
	t.Parallel()
	chromium := chromiumPath(t)
	srv := startServerProcess(t, "--data-dir", t.TempDir())
	a := srv.app(randomSuffix(t))
	topic := a.name("down")
	a.createTopic(topic)
	p := openPage(t, a, chromium, 1280, 720)
	p.open("/topics/" + topic + "/partitions/0")
	p.wait("the stream", `byTestID('stream-status').dataset.state === 'open' && byTestID('broker-banner').hidden`, 15*time.Second)
	srv.kill()
	p.wait("the banner naming the server", `!byTestID('broker-banner').hidden && byTestID('broker-banner').dataset.cause === 'server'`, 20*time.Second)
	if got := p.text("broker-banner"); !strings.Contains(got, "Offset Lab server does not answer") || strings.Contains(got, "broker unreachable") {
		t.Errorf("the banner reads %q", got)
	}
}

// TestBrowserStageResume: a lesson run lives on the server: a second
// browser (another profile, the projector's) shows the run the first one
// stepped; Reset there deletes the run's topics and starts it over.
func TestBrowserStageResume(t *testing.T) {
	t.Parallel()
	chromium := chromiumPath(t)
	a := startApp(t, embedded)
	first := openPage(t, a, chromium, 1280, 720)
	first.open("/")
	first.wait("the lessons panel", `byTestID('lessons-panel')?.dataset.ready === 'true'`, 10*time.Second)
	first.fill("lesson-select", "6b")
	first.click("lesson-start")
	first.wait("the run", `byTestID('lesson-run').dataset.status === 'ready'`, 10*time.Second)
	for i := range 2 {
		first.click("lesson-next")
		first.wait(fmt.Sprintf("step %d", i+1), fmt.Sprintf(`byTestID('lesson-run').dataset.cursor === '%d' && byTestID('lesson-run').dataset.busy === undefined`, i+1), 60*time.Second)
	}
	runID := first.attr("lesson-run", "data-run")
	var st lessonRun
	a.do("GET", "/api/lessons/runs/"+runID, nil, http.StatusOK, &st)

	second := openPage(t, a, chromium, 1280, 720)
	second.open("/")
	second.wait("the same run, at step 3", fmt.Sprintf(`byTestID('lesson-run').dataset.run === %q && byTestID('lesson-run').dataset.cursor === '2' && byTestID('lesson-select').value === '6b'`, runID), 10*time.Second)
	second.click("lesson-reset")
	second.wait("the run started over", `byTestID('lesson-run').dataset.cursor === '0' && byTestID('lesson-status').textContent !== ''`, 30*time.Second)
	if status, _ := a.request("GET", "/api/topics/"+st.Names["payments"], nil); status != http.StatusNotFound {
		t.Errorf("after Reset the run's topic %s answers %d, want 404 (deleted)", st.Names["payments"], status)
	}
	first.wait("the first browser to follow the reset", `byTestID('lesson-run').dataset.cursor === '0'`, 10*time.Second)
}

// TestBrowserStageDetails: a cell's details print its value once — JSON
// indented, binary as a hex dump — with a Copy value button, in the dock's
// Details tab, which choosing a cell opens.
func TestBrowserStageDetails(t *testing.T) {
	t.Parallel()
	chromium := chromiumPath(t)
	a := startApp(t, embedded)
	topic := a.name("values")
	a.createTopic(topic)
	client, err := kgo.NewClient(kgo.SeedBrokers(a.kafka.Brokers()...), kgo.DefaultProduceTopic(topic))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	doc := `{"order":"O-1","lines":[{"sku":"A-100","qty":2,"price":15000}],"note":"a long JSON value that would wrap in a narrow column"}`
	// A record of 1,000 headers: the entry shows the first 64.
	many := make([]kgo.RecordHeader, 1000)
	for i := range many {
		many[i] = kgo.RecordHeader{Key: fmt.Sprintf("h%d", i), Value: []byte("v")}
	}
	if err := client.ProduceSync(ctx, kgo.StringRecord(doc), &kgo.Record{Value: []byte{0xde, 0xad, 0xbe, 0xef, 0x00, 0x41}}, &kgo.Record{Value: []byte("headers"), Headers: many}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	p := openPage(t, a, chromium, 1280, 720)
	p.open("/topics/" + topic + "/partitions/0")
	p.wait("three cells", `cell(2)?.dataset.kind === 'data'`, 15*time.Second)

	p.do("click offset 0", chromedp.Click(chromedp.CSS(`[data-testid="log-cell"][data-offset="0"]`)))
	p.wait("the details of offset 0 in the Details tab", `!byTestID('dock-details').hidden && byTestID('details').dataset.offset === '0'`, 5*time.Second)
	var value, all string
	p.eval(`document.querySelector('#details-list [data-field="Value"] pre').textContent`, &value)
	p.eval(`byTestID('details-list').textContent`, &all)
	if !strings.Contains(value, "{\n  \"order\": \"O-1\",\n  \"lines\": [") {
		t.Errorf("the JSON value is not indented:\n%s", value)
	}
	if n := strings.Count(all, "A-100"); n != 1 {
		t.Errorf("the value is printed %d times in the details, want once", n)
	}
	p.assertOnScreen("the details", map[string]string{"Copy value": `byTestID('details-copy')`})

	p.do("click offset 1", chromedp.Click(chromedp.CSS(`[data-testid="log-cell"][data-offset="1"]`)))
	p.wait("the details of offset 1", `byTestID('details').dataset.offset === '1'`, 5*time.Second)
	p.eval(`document.querySelector('#details-list [data-field="Value"] pre').textContent`, &value)
	if !strings.Contains(value, "00000000  de ad be ef 00 41") || !strings.Contains(value, "|.....A|") {
		t.Errorf("the binary value is not a hex dump:\n%s", value)
	}
	p.screenshot("stage-details-binary-1280x720", 1280, 720, false)

	p.do("click offset 2", chromedp.Click(chromedp.CSS(`[data-testid="log-cell"][data-offset="2"]`)))
	p.wait("the details of offset 2", `byTestID('details').dataset.offset === '2'`, 5*time.Second)
	var headers string
	p.eval(`document.querySelector('#details-list [data-field="Headers"]').textContent`, &headers)
	if !strings.Contains(headers, "h63=v") || strings.Contains(headers, "h64=v") || !strings.Contains(headers, "the first 64 of 1000 headers") {
		t.Errorf("the headers of a record of 1,000 headers read %.200q … %q", headers, headers[max(0, len(headers)-80):])
	}
	p.do("show the headers", chromedp.ScrollIntoView(`#details-list [data-field="Headers"]`))
	p.screenshot("stage-details-headers-cut-1280x720", 1280, 720, false)
}
