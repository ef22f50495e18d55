package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp/kb"
)

// TestBrowserLesson2 runs lesson 2 of docs/lessons.md by clicking, in headless
// Chromium: "Set up seed 000", the exactly-once processor crashing before
// commit at O-2, then the restart. It reads the result from the page as a
// person sees it — cells, lanes, pointers — and saves screenshots at
// desktop and phone size into test-output/screenshots.
func TestBrowserLesson2(t *testing.T) {
	t.Parallel()
	for _, kind := range brokerKinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			chromium := chromiumPath(t)
			a := startApp(t, kind)
			p := openPage(t, a, chromium, 1280, 720)
			p.open("/")

			orders, totals, totalsTx := a.name("orders"), a.name("order-totals"), a.name("order-totals-tx")
			p.fill("seed-orders", orders)
			p.fill("seed-totals", totals)
			p.fill("seed-totals-tx", totalsTx)
			p.click("seed-setup")
			p.wait("the seed to be set up", `byTestID('seed-status').dataset.done === 'true'`, 30*time.Second)
			if got := p.text("seed-status"); !strings.Contains(got, "wrote the three orders to "+orders+" at offsets 0, 1, 2") {
				t.Fatalf("seed status = %q, want the three orders at offsets 0, 1, 2", got)
			}
			p.wait("the page to show "+totalsTx, fmt.Sprintf(`location.pathname === '/topics/%s/partitions/0' && byTestID('stream-status').dataset.state === 'open' && summary('hw')`, totalsTx), 15*time.Second)

			// The exactly-once processor, crashing before commit at O-2.
			p.fill("processor-mode", "tx")
			p.fill("processor-input", orders)
			p.fill("processor-output", totalsTx)
			p.fill("processor-group", a.name("totals-tx"))
			p.fill("processor-txid", a.name("order-totals-app"))
			p.fill("processor-crash-at", "O-2")
			if got := p.text("processor-crash"); got != "Crash before commit at O-2" {
				t.Fatalf("processor crash button reads %q", got)
			}
			p.click("processor-crash")
			p.wait("the crashed run", `document.querySelector('[data-testid="processor-run-log"][data-crashed="true"]')`, 60*time.Second)
			p.wait("O-2's write to show as open with the LSO held at 2",
				`cell(2)?.dataset.txn === 'open' && summary('lso')?.dataset.value === '2' && summary('hw')?.dataset.value === '3'`, 5*time.Second)
			equal(t, "log after the crash", shape(p.cells()), []string{"0:committed", "1:COMMIT", "2:open"})
			p.assertOnScreen("after Crash before commit", map[string]string{
				"the open record": `cell(2)`, "the held LSO": `flag('lso')`, "the HW": `flag('hw')`, "the Crash button": `byTestID('processor-crash')`,
			})
			if why := p.text("lso-why"); !strings.Contains(why, "holds the LSO at 2: read_committed consumers wait") {
				t.Fatalf("the page does not say why LSO < HW: %q", why)
			}
			if got := p.laneReasons("rc")[2]; got != "beyond LSO" {
				t.Fatalf("read_committed lane at offset 2 says %q, want beyond LSO", got)
			}
			p.wait("the coordinator panel to show the open transaction", `byTestID('coord-state').textContent === 'Ongoing'`, 10*time.Second)

			// Restart: the new producer fences the crashed one.
			p.click("processor-run")
			p.wait("the restarted run", `document.querySelectorAll('[data-testid="processor-run-log"]').length === 2`, 90*time.Second)
			p.wait("the log to settle at LSO = HW = 8",
				`summary('lso')?.dataset.value === '8' && summary('hw')?.dataset.value === '8' && cell(7)?.dataset.marker === 'COMMIT'`, 5*time.Second)

			equal(t, "lesson 2 log on the page", shape(p.cells()), []string{
				"0:committed", "1:COMMIT", "2:aborted", "3:ABORT", "4:committed", "5:COMMIT", "6:committed", "7:COMMIT",
			})
			equalOffsets(t, "read_committed lane receives", p.received("rc"), []int64{0, 4, 6})
			equalOffsets(t, "read_uncommitted lane receives", p.received("ru"), []int64{0, 2, 4, 6})
			rc, ru := p.laneReasons("rc"), p.laneReasons("ru")
			for o, want := range map[int64]string{1: "marker", 2: "aborted", 3: "marker", 5: "marker", 7: "marker"} {
				if rc[o] != want {
					t.Errorf("read_committed lane at offset %d says %q, want %q", o, rc[o], want)
				}
			}
			if ru[2] != "" || ru[3] != "marker" {
				t.Errorf("read_uncommitted lane: offset 2 %q (want received), offset 3 %q (want marker)", ru[2], ru[3])
			}
			for id, want := range map[string]int64{"lso": 8, "hw": 8, "logstart": 0} {
				if got := p.pointer(id); got != want {
					t.Errorf("pointer %s reads %d, want %d", id, got, want)
				}
			}
			var counts struct{ RC, RCSpan, RU, RUSpan string }
			p.eval(`({RC: byTestID('lane-count-rc').dataset.received, RCSpan: byTestID('lane-count-rc').dataset.span,
				RU: byTestID('lane-count-ru').dataset.received, RUSpan: byTestID('lane-count-ru').dataset.span})`, &counts)
			if counts != (struct{ RC, RCSpan, RU, RUSpan string }{"3", "8", "4", "8"}) {
				t.Errorf("lane counts = %+v, want read_committed 3 of 8, read_uncommitted 4 of 8", counts)
			}
			if why := p.text("lso-why"); !strings.Contains(why, "LSO = HW = 8") {
				t.Errorf("pointer explanation = %q", why)
			}

			// Details of the aborted write, by keyboard: focus a cell, move to
			// offset 2, Enter.
			p.eval(`cell(0).focus()`, nil)
			p.press(kb.ArrowRight + kb.ArrowRight)
			p.press(kb.Enter)
			p.wait("details of offset 2", `byTestID('details').dataset.offset === '2' && byTestID('details-list').textContent.includes('aborted')`, 5*time.Second)
			details := p.text("details-list")
			for _, want := range []string{"Batch", "Producer id", "Producer epoch", "Sequence", "transactional yes", "O-2 total=42000", "Timestamp", "Headers"} {
				if !strings.Contains(details, want) {
					t.Errorf("details of offset 2 lack %q: %s", want, details)
				}
			}

			// The panels beside the lesson: coordinator and group.
			p.wait("the coordinator state after the restart", `byTestID('coord-state').textContent === 'CompleteCommit'`, 15*time.Second)
			if note := p.text("coord-note"); note != "" {
				t.Errorf("%s: broker note %q, want none", kind, note)
			}
			p.wait("group totals-tx at committed 3, lag 0", `(() => {
				const row = document.querySelector('#group-offsets tr');
				return row && row.querySelector('[data-field=committed]').textContent === '3' && row.querySelector('[data-field=lag]').textContent === '0';
			})()`, 15*time.Second)
			var kinds []string
			p.eval(`[...document.querySelectorAll('[data-testid="event"]')].map(e => e.dataset.kind)`, &kinds)
			for _, want := range []string{"crash", "abort", "commit", "write"} {
				if !strings.Contains(strings.Join(kinds, ","), want) {
					t.Errorf("timeline has no %s event; it has %v", want, kinds)
				}
			}

			if n := p.domNodes(); n > 1500 {
				t.Errorf("the page has %d DOM elements, want at most 1,500", n)
			}
			p.eval(`byTestID('details-list').closest('section').scrollIntoView()`, nil)
			p.eval(`window.scrollTo(0, 0)`, nil)
			p.screenshot("lesson2-"+string(kind)+"-desktop-1280x720", 1280, 720, false)
			p.screenshot("lesson2-"+string(kind)+"-phone-390x844", 390, 844, true)
			if n := len(p.cells()); n == 0 {
				t.Errorf("no log cells at phone size; page state: %s", p.state())
			}

			// The orders topic, picked from the topic picker, shows where
			// the group will resume: its committed offset as a pointer.
			p.fill("topic-select", orders+"/0")
			group := a.name("totals-tx")
			p.wait("the orders log with group "+group+"'s committed offset",
				fmt.Sprintf(`location.pathname === '/topics/%s/partitions/0' && flag('group:%s')?.dataset.value === '3' && summary('hw')?.dataset.value === '3'`, orders, group), 15*time.Second)
			equal(t, "orders log", shape(p.cells()), []string{"0:none", "1:none", "2:none"})
		})
	}
}
