package e2e

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp/kb"
)

// The step's words: at 1280×720, while a lesson runs, the class reads what
// the step says — its title, narration, command and checks — beside the
// log, and the page itself never scrolls.

// assertStepWords fails unless the done step's title and narration are
// on screen (inside the window and inside every panel that clips them),
// the step's card starts right under the lesson's bar (the Lesson tab
// scrolled to it, the page not), and the document is no taller than the
// window. The command and the checks of a long step may still need the
// Lesson tab scrolled at 1280×720: it logs which.
func (p *page) assertStepWords(when string) {
	p.t.Helper()
	var n int
	p.eval(`document.querySelectorAll('[data-testid="lesson-current"] [data-testid="lesson-check"]').length`, &n)
	exprs := map[string]string{
		"the step's title":     `document.querySelector('[data-testid="lesson-current"] h3')`,
		"the step's narration": `byTestID('lesson-narration')`,
		"Next":                 `byTestID('lesson-next')`,
		"the masthead":         `document.querySelector('.masthead')`,
	}
	if off := p.offScreen(exprs); len(off) > 0 {
		p.screenshot("stage-words-offscreen-"+strings.ReplaceAll(when, " ", "-"), 1280, 720, false)
		p.t.Errorf("%s: not on screen at 1280×720 without scrolling: %v", when, off)
	}
	rest := map[string]string{"the step's command": `byTestID('lesson-command')`}
	for i := range n {
		rest[fmt.Sprintf("check %d", i+1)] = fmt.Sprintf(`document.querySelectorAll('[data-testid="lesson-current"] [data-testid="lesson-check"]')[%d]`, i)
	}
	if off := p.offScreen(rest); len(off) > 0 {
		p.t.Logf("%s: still below the Lesson tab's fold at 1280×720: %v", when, off)
	}
	var gap float64
	p.eval(`byTestID('lesson-current').getBoundingClientRect().top - document.querySelector('.lesson-sticky').getBoundingClientRect().bottom`, &gap)
	if gap < 0 || gap > 16 {
		p.t.Errorf("%s: the step's card starts %.0f px under the lesson's bar, want it right under (0–16 px)", when, gap)
	}
	var tall struct {
		Scroll int `json:"scroll"`
		Inner  int `json:"inner"`
	}
	p.eval(`({scroll: document.scrollingElement.scrollHeight, inner: innerHeight})`, &tall)
	if tall.Scroll > tall.Inner {
		var below []string
		p.eval(`[...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().bottom > innerHeight + 1 && e.getClientRects().length && !e.parentElement.closest('[data-testid]')?.matches('.log-viewport, .dock-panel'))
			.slice(0, 8).map((e) => (e.dataset.testid || e.id || e.className) + ' ' + Math.round(e.getBoundingClientRect().bottom))`, &below)
		var chain []string
		p.eval(`(() => { const out = []; for (let a = byTestID('lesson-run'); a; a = a.parentElement) { const s = getComputedStyle(a); out.push(a.tagName + '.' + a.className + '#' + a.id + ' ' + s.overflowY + ' ' + s.display + ' h=' + Math.round(a.getBoundingClientRect().height) + ' sh=' + a.scrollHeight); } return out; })()`, &chain)
		p.t.Logf("chain: %v", chain)
		p.t.Errorf("%s: the document is %d px tall in a %d px window; below it: %v", when, tall.Scroll, tall.Inner, below)
	}
}

// TestBrowserStageStepWords walks lessons 2 and 3 with Next at 1280×720 on
// the embedded broker: after every step its title, narration, command and
// each check are readable without scrolling any panel, the lesson's
// controls stay on one bar, and the document does not scroll.
func TestBrowserStageStepWords(t *testing.T) {
	t.Parallel()
	for _, lesson := range []string{"2", "3"} {
		t.Run(lesson, func(t *testing.T) {
			t.Parallel()
			chromium := chromiumPath(t)
			a := startApp(t, embedded)
			p := openPage(t, a, chromium, 1280, 720)
			p.open("/")
			p.wait("the lessons panel", `byTestID('lessons-panel')?.dataset.ready === 'true'`, 10*time.Second)
			p.fill("lesson-select", lesson)
			p.click("lesson-start")
			p.wait("the run to start", `byTestID('lesson-run').dataset.status === 'ready' && !byTestID('lesson-next').disabled`, 10*time.Second)
			var steps int
			p.eval(`document.querySelectorAll('[data-testid="lesson-steps"] li').length`, &steps)
			// The lesson's controls fit one bar while it runs.
			var bar struct {
				Next   float64 `json:"next"`
				Reset  float64 `json:"reset"`
				Steps  float64 `json:"steps"`
				Height float64 `json:"height"`
			}
			p.eval(`(() => { const c = (id) => byTestID(id).getBoundingClientRect(); const s = document.querySelector('.lesson-sticky').getBoundingClientRect();
				return {next: c('lesson-next').top, reset: c('lesson-reset').top, steps: c('lesson-steps').top, height: s.height}; })()`, &bar)
			if bar.Height > 110 {
				t.Errorf("lesson %s: the lesson's controls take %.0f px, want one bar (≤ 110 px)", lesson, bar.Height)
			}
			for i := range steps {
				p.wait(fmt.Sprintf("Next before step %d", i+1), `!byTestID('lesson-next').disabled`, 10*time.Second)
				p.click("lesson-next")
				p.wait(fmt.Sprintf("step %d", i+1), fmt.Sprintf(`byTestID('lesson-run').dataset.cursor === '%d' && byTestID('lesson-run').dataset.busy === undefined && byTestID('lesson-current')?.dataset.index === '%d'`, i+1, i), 90*time.Second)
				if s := p.attr("lesson-run", "data-status"); s == "failed" {
					t.Fatalf("lesson %s failed at step %d", lesson, i+1)
				}
				p.wait("animations to finish", `document.getAnimations().length === 0`, 5*time.Second)
				p.assertStepWords(fmt.Sprintf("lesson %s step %d", lesson, i+1))
			}
			p.screenshot("stage-words-lesson"+lesson+"-end-1280x720", 1280, 720, false)
			p.screenshot("stage-words-lesson"+lesson+"-end-1920x1080", 1920, 1080, false)
			p.zoom(1.5)
			p.screenshot("stage-words-lesson"+lesson+"-end-150pct", 853, 480, false)
		})
	}
}

// TestBrowserPresenterKeys: a presenter's clicker (→, PageDown, Space)
// steps the running lesson when focus is not in a text field, and the
// focus stays where it was.
func TestBrowserPresenterKeys(t *testing.T) {
	t.Parallel()
	chromium := chromiumPath(t)
	a := startApp(t, embedded)
	p := openPage(t, a, chromium, 1280, 720)
	p.open("/")
	p.wait("the lessons panel", `byTestID('lessons-panel')?.dataset.ready === 'true'`, 10*time.Second)
	p.fill("lesson-select", "2")
	p.click("lesson-start")
	p.wait("the run to start", `byTestID('lesson-run').dataset.status === 'ready' && !byTestID('lesson-next').disabled`, 10*time.Second)
	if got := p.focused(); got != "lesson-next" {
		t.Fatalf("after Start focus is on %q, want lesson-next", got)
	}
	for i, key := range []string{kb.ArrowRight, kb.PageDown, " "} {
		// Focus away from Next: on the page, or on the Lesson tab's panel.
		if key == kb.ArrowRight {
			p.eval(`document.activeElement.blur()`, nil)
		} else {
			p.eval(`byTestID('dock-lesson').focus()`, nil)
		}
		before := p.focused()
		p.wait(fmt.Sprintf("Next enabled before key %d", i+1), `!byTestID('lesson-next').disabled`, 10*time.Second)
		p.press(key)
		p.wait(fmt.Sprintf("%q to step the lesson", key), fmt.Sprintf(`byTestID('lesson-run').dataset.cursor === '%d' && byTestID('lesson-run').dataset.busy === undefined`, i+1), 90*time.Second)
		if got := p.focused(); got != before {
			t.Errorf("after %q focus moved from %q to %q", key, before, got)
		}
		var scrolled int
		p.eval(`document.scrollingElement.scrollTop`, &scrolled)
		if scrolled != 0 {
			t.Errorf("after %q the page scrolled by %d px", key, scrolled)
		}
	}
	// ← on the page steps the replay back one step from the live log.
	p.eval(`document.activeElement.blur()`, nil)
	p.press(kb.ArrowLeft)
	p.wait("← to step the replay back", `byTestID('replay').dataset.state === 'replay'`, 10*time.Second)
	if got := p.focused(); got != "" {
		t.Errorf("after ← focus moved to %q", got)
	}
	p.click("replay-live")
	p.wait("the live log again", `byTestID('replay').dataset.state === 'live'`, 10*time.Second)
	// In a text field the keys type: the lesson does not move.
	p.eval(`byTestID('goto-offset')?.focus()`, nil)
	if p.focused() == "goto-offset" {
		p.press(" ")
		p.press(kb.ArrowRight)
		var cursor string
		p.eval(`byTestID('lesson-run').dataset.cursor`, &cursor)
		if cursor != "3" {
			t.Errorf("keys in a text field stepped the lesson to %s", cursor)
		}
	}
	// The skip link reaches the dock.
	p.open("/")
	p.wait("the lessons panel after a reload", `byTestID('lessons-panel')?.dataset.ready === 'true'`, 10*time.Second)
	p.press(kb.Tab) // the skip link to the log
	p.press(kb.Tab)
	if got := p.focused(); got != "skip-to-dock" {
		t.Errorf("the second Tab reaches %q, want the skip link to the dock", got)
	}
}

// offScreen names every element (a JavaScript expression) that is not on
// screen without scrolling (see visibleJS).
func (p *page) offScreen(exprs map[string]string) []string {
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
	return off
}
