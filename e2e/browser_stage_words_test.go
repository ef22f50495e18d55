package e2e

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp/kb"
)

// The presenter's keys, and the helper that tells what is on screen.

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
