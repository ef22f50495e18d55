package e2e

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/twmb/franz-go/pkg/kgo"
)

// The log keeps its place: the selected offset (or, with none, the first
// offset on show) stays on screen across window resizes, zoom and the
// Table toggle, and the URL's at and sel stay what they were.

// anchorTotal is how many offsets the test partition holds; anchorAt and
// anchorSel are the URL the page is opened on.
const (
	anchorTotal = 50_250
	anchorAt    = 45_520
	anchorSel   = 45_525
	// anchorLongKey is the offset whose key is longer than a table shows.
	anchorLongKey = 45_527
)

// longKey is the key written at anchorLongKey.
const longKey = "customer-45527-with-a-key-far-longer-than-any-column-holds"

// anchorKey is the key written at offset i: most keys are 14
// characters, every fifth 16, every seventh 24, one far longer than a
// column holds.
func anchorKey(i int64) string {
	switch {
	case i == anchorLongKey:
		return longKey
	case i%7 == 0:
		return fmt.Sprintf("order-totals-app-%07d", i)
	case i%5 == 0:
		return fmt.Sprintf("refund-worker-%02d", i%100)
	default:
		return fmt.Sprintf("customer-%05d", i)
	}
}

// fillAnchorPartition writes anchorTotal keyed records to topic's
// partition 0 in big batches.
func fillAnchorPartition(t *testing.T, a *app, topic string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cl, err := kgo.NewClient(append(a.kafka.ClientOpts(), kgo.DefaultProduceTopic(topic),
		kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ProducerLinger(20*time.Millisecond), kgo.MaxBufferedRecords(100_000), kgo.ProducerBatchMaxBytes(1_000_000),
		kgo.MaxProduceRequestsInflightPerBroker(1))...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var failed atomic.Int64
	for i := range int64(anchorTotal) {
		r := &kgo.Record{Partition: 0, Key: []byte(anchorKey(i)), Value: []byte(fmt.Sprintf("order O-%d", i))}
		cl.Produce(ctx, r, func(_ *kgo.Record, err error) {
			if err != nil {
				failed.Add(1)
			}
		})
	}
	if err := cl.Flush(ctx); err != nil || failed.Load() > 0 {
		t.Fatalf("fill %s: %v, %d failed", topic, err, failed.Load())
	}
	if l := a.log(topic); l.HighWatermark != anchorTotal {
		t.Fatalf("filled %s up to %d, want %d", topic, l.HighWatermark, anchorTotal)
	}
}

// viewPlace is where the log is, as a person sees it: the first and last
// offsets on screen in the log's viewport, the selected one and whether it
// is wholly on screen, and the URL's at and sel.
type viewPlace struct {
	First      int64  `json:"first"`
	Last       int64  `json:"last"`
	Selected   int64  `json:"selected"`
	SelInView  bool   `json:"selInView"`
	Table      bool   `json:"table"`
	URL        string `json:"url"`
	Width      int    `json:"width"`
	ViewHeight int    `json:"viewHeight"`
}

// placeJS reads a viewPlace: the cells (or table rows) whose box is at
// least half inside the log's viewport, below the table's head.
const placeJS = `(() => {
	const vp = byTestID('log-viewport');
	const r = vp.getBoundingClientRect();
	const head = vp.querySelector('.thead');
	const top = head && !head.hidden ? head.getBoundingClientRect().bottom : r.top;
	const items = [...vp.querySelectorAll('[data-testid="log-cell"], [data-testid="log-row"]')].filter((e) => !e.closest('.slot[hidden]') && e.getClientRects().length);
	const shown = items.filter((e) => { const b = e.getBoundingClientRect(); return Math.min(b.bottom, r.bottom) - Math.max(b.top, top) >= b.height / 2; });
	const offs = shown.map((e) => +e.dataset.offset);
	const sel = items.find((e) => e.getAttribute('aria-pressed') === 'true' || e.getAttribute('aria-selected') === 'true');
	const whole = (e) => { const b = e.getBoundingClientRect(); return b.top >= top - 1 && b.bottom <= r.bottom + 1 && b.left >= r.left - 1 && b.right <= r.right + 1; };
	return {first: offs.length ? Math.min(...offs) : -1, last: offs.length ? Math.max(...offs) : -1,
		selected: sel ? +sel.dataset.offset : -1, selInView: !!sel && whole(sel), table: vp.classList.contains('table'),
		url: location.search, width: innerWidth, viewHeight: Math.round(r.bottom - top)};
})()`

// settled waits until the log's place has not changed for a dozen polls
// (the resize observer and the next frames have run) and returns it.
func (p *page) settled(what string) viewPlace {
	p.t.Helper()
	p.eval(`window.__place = ''; window.__still = 0`, nil)
	p.wait(what+": the log settled", `(() => { const s = JSON.stringify(`+placeJS+`);
		window.__still = s === window.__place ? window.__still + 1 : 0; window.__place = s;
		return window.__still >= 12 && JSON.parse(s).first >= 0; })()`, 10*time.Second)
	var v viewPlace
	p.eval(placeJS, &v)
	return v
}

// anchorStep is one change of the page's size, zoom or mode.
type anchorStep struct {
	name string
	do   func(p *page)
}

func resizeStep(name string, w, h int64, mobile bool) anchorStep {
	return anchorStep{name, func(p *page) {
		var emulate []chromedp.EmulateViewportOption
		if mobile {
			emulate = append(emulate, chromedp.EmulateMobile, chromedp.EmulateTouch, chromedp.EmulatePortrait)
		}
		p.do("resize to "+name, chromedp.EmulateViewport(w, h, emulate...))
		p.wait("the window at "+name, fmt.Sprintf(`innerWidth === %d`, w), 5*time.Second)
	}}
}

func zoomStep(factor float64) anchorStep {
	return anchorStep{fmt.Sprintf("zoom %.0f%%", factor*100), func(p *page) { p.zoom(factor) }}
}

// pixelRatioStep gives the 1280×720 screen factor device pixels per CSS
// pixel (a move to another screen): the page's size stays.
func pixelRatioStep(factor float64) anchorStep {
	return anchorStep{fmt.Sprintf("1280x720 at %.0f× pixels", factor), func(p *page) {
		p.do("device pixels", chromedp.EmulateViewport(1280, 720, chromedp.EmulateScale(factor)))
		p.wait("the pixel ratio", fmt.Sprintf(`devicePixelRatio === %v && innerWidth === 1280`, factor), 5*time.Second)
	}}
}

func tableStep(on bool) anchorStep {
	return anchorStep{fmt.Sprintf("table %v", on), func(p *page) {
		var is bool
		p.eval(`byTestID('table-toggle').getAttribute('aria-pressed') === 'true'`, &is)
		if is != on {
			p.click("table-toggle")
		}
		p.wait("the table toggled", fmt.Sprintf(`byTestID('log-viewport').classList.contains('table') === %v`, on), 5*time.Second)
	}}
}

// anchorSteps are the changes both cases go through: the sizes of the
// issue, zoom, and the same again in the table.
func anchorSteps() []anchorStep {
	sizes := func() []anchorStep {
		return []anchorStep{
			resizeStep("1920x1080", 1920, 1080, false),
			resizeStep("1280x720", 1280, 720, false),
			resizeStep("phone", 390, 844, true),
			resizeStep("1280x720", 1280, 720, false),
			zoomStep(1.5),
			zoomStep(2),
			resizeStep("1280x720", 1280, 720, false),
			pixelRatioStep(2),
			resizeStep("1280x720", 1280, 720, false),
		}
	}
	steps := sizes()
	steps = append(steps, tableStep(true))
	steps = append(steps, sizes()...)
	steps = append(steps, tableStep(false), resizeStep("1920x1080", 1920, 1080, false), tableStep(true), tableStep(false), resizeStep("1280x720", 1280, 720, false))
	return steps
}

// anchorTolerance is how far before the anchor the first offset on show
// may be: the anchor's row starts at most a row's worth of cells earlier.
const anchorTolerance = 16

// TestBrowserAnchor: opened on ?at=45520&sel=45525 over a partition of
// 50,250 offsets, the log keeps 45,525 selected and on screen, with the
// first offset on show near it, through resizes 1280×720 → 1920×1080 →
// 1280×720 → a phone, 150 % and 200 % zoom, twice the device pixels and
// the Table toggle, and the URL keeps at=45520&sel=45525; opened on
// ?at=45520 alone, the first offset on show stays 45,520 (or its row's
// first) the same way. Scrolled away by the wheel, the URL's at follows
// and a resize keeps the new place without pulling the selection back.
// The table's keys show whole up to 16 characters at 1280×720 and on a
// phone, 24 at 1920×1080 and 150 %, longer ones cut, whole in the title.
func TestBrowserAnchor(t *testing.T) {
	t.Parallel()
	chromium := chromiumPath(t)
	a := startApp(t, embedded)
	topic := a.name("anchor")
	a.createTopic(topic)
	fillAnchorPartition(t, a, topic)
	path := "/topics/" + topic + "/partitions/0"

	for _, tc := range []struct {
		name  string
		query string
		sel   int64
	}{
		{"selected", fmt.Sprintf("?at=%d&sel=%d", anchorAt, anchorSel), anchorSel},
		{"first offset", fmt.Sprintf("?at=%d", anchorAt), -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := openPage(t, a, chromium, 1280, 720)
			p.open(path + tc.query)
			p.wait("the anchored offsets drawn", fmt.Sprintf(`cell(%d) && cell(%d).dataset.kind === 'data'`, anchorAt, anchorAt), 20*time.Second)
			// Every URL the page writes from now on.
			p.eval(`window.__urls = []; { const put = history.replaceState.bind(history); history.replaceState = (s, u, url) => { window.__urls.push(String(url)); return put(s, u, url); }; }`, nil)
			check := func(when string) {
				t.Helper()
				v := p.settled(when)
				q, err := url.ParseQuery(strings.TrimPrefix(v.URL, "?"))
				if err != nil {
					t.Fatalf("%s: URL %q: %v", when, v.URL, err)
				}
				anchor := int64(anchorAt)
				if tc.sel >= 0 {
					anchor = tc.sel
					if v.Selected != tc.sel || !v.SelInView {
						t.Errorf("%s: selected %d, wholly on screen %v; want %d on screen (%+v)", when, v.Selected, v.SelInView, tc.sel, v)
					}
				}
				if v.First > anchor || v.First < anchor-anchorTolerance || v.Last < anchor {
					t.Errorf("%s: the log shows %d–%d; want the first offset within %d before %d (%+v)", when, v.First, v.Last, anchorTolerance, anchor, v)
				}
				if q.Get("at") != fmt.Sprint(anchorAt) || (tc.sel >= 0 && q.Get("sel") != fmt.Sprint(tc.sel)) || (tc.sel < 0 && q.Has("sel")) {
					t.Errorf("%s: the URL reads %q; want %s", when, v.URL, tc.query)
				}
				t.Logf("%s: %d–%d on show (table %v, %d px wide)", when, v.First, v.Last, v.Table, v.Width)
			}
			check("opened at 1280x720")
			// Photographs of the selected case, cells and table, at each size once.
			shots := map[string][2]int64{"1280x720": {1280, 720}, "1920x1080": {1920, 1080}, "phone": {390, 844}, "zoom 150%": {853, 480}}
			taken := map[string]bool{}
			for _, s := range anchorSteps() {
				s.do(p)
				check(s.name)
				var table bool
				p.eval(`byTestID('log-viewport').classList.contains('table')`, &table)
				name := fmt.Sprintf("anchor-%s-%s", map[bool]string{false: "cells", true: "table"}[table], strings.ReplaceAll(strings.TrimSuffix(s.name, "%"), " ", ""))
				if size, ok := shots[s.name]; ok && tc.sel >= 0 && !taken[name] {
					taken[name] = true
					p.screenshot(name, size[0], size[1], s.name == "phone")
				}
			}
			var urls []string
			p.eval(`window.__urls`, &urls)
			for _, u := range urls {
				if !strings.HasSuffix(u, tc.query) {
					t.Errorf("the page wrote the URL %q; want it to keep %s", u, tc.query)
				}
			}

			// Scrolled away by the wheel, the view is anchored where it went:
			// the URL follows, and a resize keeps the new place without
			// pulling the selection back.
			p.eval(`byTestID('log-viewport').dispatchEvent(new WheelEvent('wheel', {deltaY: 4000, bubbles: true, cancelable: true}))`, nil)
			moved := p.settled("scrolled by the wheel")
			// The URL names the first row on show (the one the wheel left
			// partly above the view, too).
			p.wait("the URL at the new place", fmt.Sprintf(`(() => { const at = +new URLSearchParams(location.search).get('at'); return at <= %d && at > %d; })()`, moved.First, moved.First-anchorTolerance), 5*time.Second)
			var at int64
			p.eval(`+new URLSearchParams(location.search).get('at')`, &at)
			if at <= anchorSel+anchorTolerance {
				t.Fatalf("the wheel moved the log to %d only", at)
			}
			resizeStep("1920x1080", 1920, 1080, false).do(p)
			v := p.settled("scrolled, then 1920x1080")
			if v.First > at || v.First < at-anchorTolerance || v.Last < at {
				t.Errorf("scrolled to %d, then at 1920x1080 the log shows %d–%d", at, v.First, v.Last)
			}
			if v.SelInView {
				t.Errorf("scrolled away from %d, a resize brought it back (%+v)", anchorSel, v)
			}
			if q, _ := url.ParseQuery(strings.TrimPrefix(v.URL, "?")); q.Get("at") != fmt.Sprint(at) {
				t.Errorf("scrolled to %d, then resized: the URL reads %q", at, v.URL)
			}
		})
	}

	// The table's keys: whole up to a sensible length for the width, the
	// longer ones cut with an ellipsis and whole in their title.
	t.Run("table keys", func(t *testing.T) {
		p := openPage(t, a, chromium, 1280, 720)
		p.open(path + fmt.Sprintf("?at=%d&sel=%d", anchorAt, anchorSel))
		p.wait("the anchored offsets drawn", fmt.Sprintf(`cell(%d) && cell(%d).dataset.kind === 'data'`, anchorAt, anchorAt), 20*time.Second)
		tableStep(true).do(p)
		for _, size := range []struct {
			name     string
			w, h     int64
			mobile   bool
			zoom     float64
			wholeLen int // keys up to this many characters show whole
		}{
			{"1280x720", 1280, 720, false, 1, 16},
			{"1920x1080", 1920, 1080, false, 1, 24},
			{"zoom150", 853, 480, false, 1.5, 24},
			{"phone", 390, 844, true, 1, 16},
		} {
			if size.zoom != 1 {
				p.zoom(size.zoom)
			} else {
				resizeStep(size.name, size.w, size.h, size.mobile).do(p)
			}
			p.settled("table at " + size.name)
			p.wait("the keys drawn", fmt.Sprintf(`document.querySelector('[data-testid="log-row"][data-offset="%d"] [data-testid="row-key"]')?.textContent !== ''`, anchorSel), 10*time.Second)
			var keys []struct {
				Offset int64  `json:"offset"`
				Text   string `json:"text"`
				Title  string `json:"title"`
				Cut    bool   `json:"cut"`
			}
			p.eval(`(() => { const r = byTestID('log-viewport').getBoundingClientRect();
				return [...document.querySelectorAll('[data-testid="log-row"]')].filter((row) => { const b = row.getBoundingClientRect(); return b.top >= r.top && b.bottom <= r.bottom && row.dataset.kind === 'data'; })
					.map((row) => { const k = row.querySelector('[data-testid="row-key"]'); return {offset: +row.dataset.offset, text: k.textContent, title: k.title, cut: k.scrollWidth > k.clientWidth + 1}; }); })()`, &keys)
			if len(keys) < 3 {
				t.Fatalf("at %s: %d table rows on show", size.name, len(keys))
			}
			for _, k := range keys {
				want := anchorKey(k.Offset)
				if k.Text != want || k.Title != want {
					t.Errorf("at %s: offset %d's key reads %q (title %q); want %q", size.name, k.Offset, k.Text, k.Title, want)
				}
				if len(want) <= size.wholeLen && k.Cut {
					t.Errorf("at %s: offset %d's key %q (%d characters) is cut", size.name, k.Offset, want, len(want))
				}
				if k.Offset == anchorLongKey && !k.Cut {
					t.Logf("at %s: the %d-character key shows whole", size.name, len(longKey))
				}
			}
			p.screenshot("anchor-keys-"+size.name, size.w, size.h, size.mobile)
		}
	})
}
