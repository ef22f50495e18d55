package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestBrowserKeyboardCrash drives the transaction panel with the keyboard
// only: Tab to the dock's tabs and the arrow key to its Act tab, then Tab to
// each control, type, Enter or Space — Begin, Send, then
// "Crash before commit". The crash must leave the transaction open at the
// coordinator with its cell open and the LSO held before it, and every
// focused control must show a visible focus ring.
func TestBrowserKeyboardCrash(t *testing.T) {
	t.Parallel()
	for _, kind := range brokerKinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			chromium := chromiumPath(t)
			a := startApp(t, kind)
			topic := a.name("payments")
			a.createTopic(topic)
			p := openPage(t, a, chromium, 1280, 720)
			p.open("/topics/" + topic + "/partitions/0")
			p.wait("the stream to connect", `byTestID('stream-status').dataset.state === 'open'`, 15*time.Second)
			txnID := a.name("keyboard-tx")

			// The transaction panel is in the dock's Act tab: reach the
			// tablist with Tab, move to Act with the arrow key.
			p.tabTo("dock-tab-lesson")
			p.press(kb.ArrowRight)
			if got := p.focused(); got != "dock-tab-act" {
				t.Fatalf("ArrowRight on the Lesson tab focused %q, want dock-tab-act", got)
			}
			p.wait("the Act tab chosen", `byTestID('dock-tab-act').getAttribute('aria-selected') === 'true' && !byTestID('dock-act').hidden && byTestID('dock-lesson').hidden`, 2*time.Second)

			p.tabTo("txn-id")
			p.typeOver(txnID)
			p.tabTo("txn-begin")
			p.assertFocusRing()
			p.press(kb.Enter)
			p.wait("Begin", `byTestID('txn-status').dataset.step === 'begin'`, 30*time.Second)
			if got := p.focused(); got != "txn-begin" {
				t.Errorf("after Begin focus is on %q, want it kept on txn-begin", got)
			}

			p.tabTo("txn-value")
			p.typeOver("payment P-7")
			p.tabTo("txn-send")
			p.press(" ")
			p.wait("Send", `byTestID('txn-status').dataset.step === 'send'`, 30*time.Second)
			p.wait("the sent record as an open cell", `cell(0)?.dataset.txn === 'open' && summary('lso')?.dataset.value === '0' && summary('hw')?.dataset.value === '1'`, 5*time.Second)

			p.tabTo("txn-crash")
			p.assertFocusRing()
			if got := p.text("txn-crash"); got != "Crash before commit" {
				t.Fatalf("focused button reads %q", got)
			}
			p.press(kb.Enter)
			p.wait("the crash", `byTestID('txn-status').dataset.step === 'crash'`, 30*time.Second)
			if got := p.focused(); got != "txn-crash" {
				t.Errorf("after Crash before commit focus is on %q, want it kept on txn-crash", got)
			}
			if got := p.text("txn-status"); !strings.Contains(got, "No EndTxn was sent") {
				t.Fatalf("transaction status after the crash = %q", got)
			}
			if e := p.text("txn-error"); e != "" {
				t.Fatalf("transaction panel error: %s", e)
			}
			p.wait("the coordinator panel to show the transaction Ongoing", `byTestID('coord-state').textContent === 'Ongoing'`, 15*time.Second)
			p.wait("the timeline to narrate the crash", `[...document.querySelectorAll('[data-testid="event"][data-kind="crash"]')].some(e => e.textContent.includes('no EndTxn was sent'))`, 5*time.Second)
			// Nothing ended the transaction: the record stays open, the LSO
			// stays before it, and read_committed consumers wait.
			equal(t, "log after the crash", shape(p.cells()), []string{"0:open"})
			if lso, hw := p.pointer("lso"), p.pointer("hw"); lso != 0 || hw != 1 {
				t.Fatalf("after the crash LSO %d, HW %d; want 0 and 1", lso, hw)
			}
			var txn txnView
			a.do("GET", "/api/transactions/"+txnID, nil, 200, &txn)
			if txn.State != "Ongoing" {
				t.Fatalf("coordinator says %s after the crash, want Ongoing", txn.State)
			}
			// The tab chosen is remembered.
			p.open("/topics/" + topic + "/partitions/0")
			p.wait("the Act tab chosen again after a reload", `byTestID('dock-tab-act').getAttribute('aria-selected') === 'true' && !byTestID('dock-act').hidden`, 5*time.Second)
		})
	}
}

// typeOver replaces the focused field's text by typing, as a person would:
// select all, then type.
func (p *page) typeOver(text string) {
	p.t.Helper()
	p.press("a", chromedp.KeyModifiers(chromedp.ModifierCtrl))
	p.press(text)
	var got string
	p.eval(`document.activeElement.value`, &got)
	if got != text {
		p.t.Fatalf("typed %q into %s, field holds %q", text, p.focused(), got)
	}
}

// assertFocusRing fails unless the focused control draws a visible outline.
func (p *page) assertFocusRing() {
	p.t.Helper()
	var ring struct {
		Style string  `json:"style"`
		Width float64 `json:"width"`
		Match bool    `json:"match"`
	}
	p.eval(`(() => { const s = getComputedStyle(document.activeElement);
		return {style: s.outlineStyle, width: parseFloat(s.outlineWidth), match: document.activeElement.matches(':focus-visible')}; })()`, &ring)
	if ring.Style == "none" || ring.Width < 3 || !ring.Match {
		p.t.Fatalf("%s has focus without a visible ring: %+v", p.focused(), ring)
	}
}
