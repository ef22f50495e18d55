package e2e

import (
	"context"
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestBrowserLongKeyedLog: a log of 12,002 keyed records with headers, as
// an engineer's partition is. A copy's badge (≡ 12,000) beside an offset of
// five digits (12,001) has no room in the cell's top right at 1280×720, so
// it opens the value's first line instead: it covers neither the offset
// nor the key and value, the cell's tag stays whole, and the cell shows
// the key before the value. The table keeps each record's date and time
// and its headers: at 1280×720 on a second line of each row (the log is
// too long for one line a row to show it whole), at 1920×1080 on one line
// where the value has more room than the key.
func TestBrowserLongKeyedLog(t *testing.T) {
	t.Parallel()
	for _, kind := range brokerKinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			chromium := chromiumPath(t)
			a := startApp(t, kind)
			topic := a.name("long-offsets")
			a.createTopic(topic)
			const before = 12_000
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cl, err := kgo.NewClient(append(a.kafka.ClientOpts(), kgo.DefaultProduceTopic(topic), kgo.RecordPartitioner(kgo.ManualPartitioner()),
				kgo.ProducerLinger(20*time.Millisecond), kgo.DisableIdempotentWrite(), kgo.MaxProduceRequestsInflightPerBroker(1))...)
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			for i := range before {
				cl.Produce(ctx, &kgo.Record{Key: fmt.Appendf(nil, "order-%d", i), Value: fmt.Appendf(nil, "total %d", i),
					Headers: []kgo.RecordHeader{{Key: "source", Value: []byte("checkout")}}}, nil)
			}
			// The same key and value twice: the second is a copy of the first.
			for range 2 {
				cl.Produce(ctx, &kgo.Record{Key: []byte("order-1001"), Value: []byte("event-1001")}, nil)
			}
			if err := cl.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			if l := a.log(topic); l.HighWatermark != before+2 {
				t.Fatalf("wrote %s up to %d, want %d", topic, l.HighWatermark, before+2)
			}
			p := openPage(t, a, chromium, 1280, 720)
			p.open("/topics/" + topic + "/partitions/0")
			p.wait("the copy at 12,001 marked", fmt.Sprintf(`cell(%d)?.dataset.copy === 'same' && cell(%d).dataset.copyOf === '%d'`, before+1, before+1, before), 20*time.Second)
			p.assertOnScreen("the copy", map[string]string{"the copy": fmt.Sprintf(`cell(%d)`, before+1)})
			var got struct {
				Place, Val, Badge, Key string
				Overlaps               []string
			}
			p.eval(fmt.Sprintf(`(() => {
				const c = cell(%d), q = (s) => c.querySelector(s);
				const box = (n) => n.getBoundingClientRect();
				const textBox = (n) => { const out = [], w = document.createTreeWalker(n, NodeFilter.SHOW_TEXT); while (w.nextNode()) { const r = document.createRange(); r.selectNodeContents(w.currentNode); out.push(...r.getClientRects()); } return out; };
				const hit = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1 && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1; // adjacent lines share a sub-pixel edge
				const badge = box(q('.copy')), cellBox = box(c), overlaps = [];
				if (hit(badge, box(q('.off')))) overlaps.push('the offset');
				const rd = (r) => [r.left, r.top, r.right, r.bottom].map(Math.round).join(',');
				for (const r of textBox(q('.val'))) if (hit(badge, r)) overlaps.push('the value line at ' + rd(r) + ' under the badge at ' + rd(badge));
				for (const [what, n] of [['the tag', q('.tag')], ['the badge', q('.copy')], ['the offset', q('.off')]]) {
					const r = box(n);
					if (r.top < cellBox.top || r.bottom > cellBox.bottom - 1 || r.left < cellBox.left || r.right > cellBox.right) overlaps.push(what + ' outside the cell');
				}
				return {place: c.dataset.copyPlace || 'corner', val: q('.val').textContent, badge: q('.copy').textContent, key: q('.val .cell-key')?.textContent || '', overlaps};
			})()`, before+1), &got)
			if got.Place != "line" || got.Badge != "≡ 12,000" || len(got.Overlaps) > 0 {
				t.Errorf("the copy's badge at 12,001: %+v; want it on the value's line (≡ 12,000), covering nothing", got)
			}
			if got.Key != "order-1001:" || got.Val != "order-1001: event-1001" {
				t.Errorf("the cell's value line reads %q (key %q); want the key before the value", got.Val, got.Key)
			}
			// The batch's label (batch 0–12,001) runs over the next slots: no
			// batch line strikes through it.
			var struck []string
			p.eval(`[...document.querySelectorAll('.batch-label')].filter((l) => l.textContent && l.getClientRects().length > 0 && getComputedStyle(l).visibility === 'visible' &&
				l.getBoundingClientRect().top >= byTestID('log-viewport').getBoundingClientRect().top).filter((l) => {
				const r = l.getBoundingClientRect();
				return [0.25, 0.5, 0.75, 0.95].some((f) => { const hit = document.elementFromPoint(r.left + r.width * f, r.top + r.height * 0.6); return hit && hit !== l && !l.contains(hit); });
			}).map((l) => l.textContent)`, &struck)
			if len(struck) > 0 {
				t.Errorf("batch labels under a line: %v", struck)
			}
			p.screenshot("copy-badge-long-offset-"+string(kind)+"-1280x720", 1280, 720, false)

			p.click("table-toggle")
			row := func(o int) string {
				return fmt.Sprintf(`document.querySelector('[data-testid="log-row"][data-offset="%d"]')`, o)
			}
			p.wait("the table", row(before-1)+`?.dataset.kind === 'data'`, 10*time.Second)
			for _, size := range []struct {
				name          string
				width, height int64
				lines         string // "2": the time under the key
				phone         bool
			}{{"1280x720", 1280, 720, "2", false}, {"1920x1080", 1920, 1080, "1", false}, {"phone", 390, 844, "2", true}} {
				var emulate []chromedp.EmulateViewportOption
				if size.phone {
					emulate = append(emulate, chromedp.EmulateMobile, chromedp.EmulateTouch, chromedp.EmulatePortrait)
				}
				p.do("resize to "+size.name, chromedp.EmulateViewport(size.width, size.height, emulate...))
				p.wait("the table at "+size.name, fmt.Sprintf(`byTestID('log-viewport').clientWidth <= %d && %s?.querySelector('.t-key').textContent === 'order-11999'`, size.width, row(before-1)), 5*time.Second)
				var table struct {
					Lines, Time, Headers string
					KeyWhole             bool
					KeyW, ValW           float64
				}
				p.eval(fmt.Sprintf(`(() => { const r = %s, q = (s) => r.querySelector(s);
					return {lines: q('.t-time').getBoundingClientRect().top >= q('.t-key').getBoundingClientRect().bottom - 1 ? '2' : '1', time: q('.t-time').textContent, headers: q('.t-hdr').textContent,
						keyWhole: q('.t-key').scrollWidth <= q('.t-key').clientWidth + 1, keyW: q('.t-key').getBoundingClientRect().width, valW: q('.t-val').getBoundingClientRect().width}; })()`, row(before-1)), &table)
				if table.Lines != size.lines || !regexp.MustCompile(`^\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}$`).MatchString(table.Time) || table.Headers != "source=checkout" || !table.KeyWhole {
					t.Errorf("the table at %s: %+v; want %s line(s) a row with the date and time (MM-DD HH:MM:SS.mmm), the headers and the key whole", size.name, table, size.lines)
				}
				if size.lines == "1" && table.ValW <= table.KeyW {
					t.Errorf("the table at %s gives the value %.0f px and the key %.0f px; want the value the room", size.name, table.ValW, table.KeyW)
				}
				p.assertOnScreen("the table at "+size.name, map[string]string{"the time": row(before-1) + `.querySelector('.t-time')`, "the headers": row(before-1) + `.querySelector('.t-hdr')`,
					"the key": row(before-1) + `.querySelector('.t-key')`, "the value": row(before-1) + `.querySelector('.t-val')`})
				if c := p.tableClipped(); len(c) > 0 {
					t.Errorf("table text cut at %s: %v", size.name, c)
				}
				p.screenshot("table-long-keyed-"+string(kind)+"-"+size.name, size.width, size.height, size.phone)
			}
		})
	}
}
