package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/twmb/franz-go/pkg/kgo"
)

// The partition page's explore tools on lesson 2's
// order-totals-tx, on both brokers: the log as a table, jumps, search,
// its errors in both languages, JSON Lines downloads, and the presenter
// layout with the Explore tab open.

// tableRow is a row of the table view as the DOM shows it.
type tableRow struct {
	Offset  int64  `json:"offset"`
	Kind    string `json:"kind"`
	Key     string `json:"key"`
	Value   string `json:"value"`
	Outcome string `json:"outcome"`
	Shape   string `json:"shape"`
	RC      string `json:"rc"`
	RU      string `json:"ru"`
}

// tableRows reads the table's rows of written offsets, in offset order.
func (p *page) tableRows() []tableRow {
	p.t.Helper()
	var out []tableRow
	p.eval(`[...document.querySelectorAll('[data-testid="log-row"]')]
		.filter((r) => r.dataset.kind !== 'next')
		.map((r) => ({offset: +r.dataset.offset, kind: r.dataset.kind,
			key: r.querySelector('[data-testid="row-key"]').textContent,
			value: r.querySelector('[data-testid="row-value"] .tval').textContent,
			outcome: r.querySelector('[data-testid="row-outcome"]').textContent,
			shape: r.querySelector('[data-testid="row-outcome"]').dataset.outcome,
			rc: r.querySelector('[data-testid="row-rc"]').textContent,
			ru: r.querySelector('[data-testid="row-ru"]').textContent}))
		.sort((a, b) => a.offset - b.offset)`, &out)
	return out
}

// openExplore chooses the dock's Explore tab with the mouse.
func (p *page) openExplore() {
	p.t.Helper()
	p.do("choose the Explore tab", chromedp.Click(chromedp.CSS(`[data-testid="dock-tab-explore"]`)))
	p.wait("the Explore tab", `!byTestID('dock-explore').hidden`, 5*time.Second)
}

// selected is the offset the log has selected (-1: none).
func (p *page) selected() int64 {
	p.t.Helper()
	var sel int64
	p.eval(`(() => { const d = byTestID('details').dataset.offset; return d === '' || d === undefined ? -1 : +d; })()`, &sel)
	return sel
}

// allowDownloads sends the page's downloads to dir.
func (p *page) allowDownloads(dir string) {
	p.t.Helper()
	p.do("allow downloads", chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
		_, err := cdp.Call(ctx, target, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
			Behavior: browser.SetDownloadBehaviorBehaviorAllow, DownloadPath: dir,
		})
		return err
	}))
}

// downloaded waits for the page's last JSON Lines download and returns its
// lines, each decoded, failing on a line that is not JSON.
func (p *page) downloaded(dir string, lines int) []map[string]any {
	p.t.Helper()
	p.wait("the download", fmt.Sprintf(`byTestID('download-link')?.dataset.lines === '%d'`, lines), 20*time.Second)
	name := p.attr("download-link", "download")
	var raw []byte
	for deadline := time.Now().Add(10 * time.Second); ; {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err == nil && len(b) > 0 && b[len(b)-1] == '\n' {
			raw = b
			break
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("no download %s in %s: %v", name, dir, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	var out []map[string]any
	for i, line := range strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			p.t.Fatalf("%s line %d is not JSON (%v): %q", name, i+1, err, line)
		}
		out = append(out, m)
	}
	if len(out) != lines {
		p.t.Fatalf("%s holds %d lines, want %d", name, len(out), lines)
	}
	return out
}

// TestBrowserExploreLesson2: on lesson 2's order-totals-tx the table view
// shows each offset's key, value, outcome and both lanes; the jumps go to
// the aborted record, the ABORT and the COMMIT markers and say when there
// is none; a search finds O-2's two writes and opens one; bad searches
// show the API's sentence in English and Korean; the offsets on screen
// and a range download as JSON Lines; and with the Explore tab open the
// log, its pointers and both lanes stay on screen at 1280×720.
func TestBrowserExploreLesson2(t *testing.T) {
	t.Parallel()
	for _, kind := range brokerKinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			chromium := chromiumPath(t)
			a := startApp(t, kind)
			st := a.runLesson("2", true)
			if st.Status != "finished" {
				t.Fatalf("lesson 2: %s %s", st.Status, st.Error)
			}
			topic := st.Names["order-totals-tx"]
			p := openPage(t, a, chromium, 1280, 720)
			p.open("/topics/" + topic + "/partitions/0")
			p.wait("lesson 2's log and its heat strip", `cell(7)?.dataset.marker === 'COMMIT' && byTestID('minimap').dataset.heat === 'done' && byTestID('minimap').dataset.heatTo === '8'`, 20*time.Second)
			var heat map[string]string
			p.eval(`({...byTestID('minimap').dataset})`, &heat)
			if heat["heatCommitted"] != "3" || heat["heatAborted"] != "1" || heat["heatCommitMarkers"] != "3" || heat["heatAbortMarkers"] != "1" || heat["heatPlain"] != "0" {
				t.Errorf("the heat strip of lesson 2's log counts %v; want 3 committed, 1 aborted, 3 COMMIT, 1 ABORT", heat)
			}

			// With the Explore tab open the stage holds: every cell, the
			// pointers, both lanes of every offset.
			p.openExplore()
			onScreen := map[string]string{"LSO flag": `flag('lso')`, "HW flag": `flag('hw')`, "LSO summary": `summary('lso')`, "the jump buttons": `byTestID('jump-next-aborted')`}
			for o := range 8 {
				onScreen[fmt.Sprintf("cell %d", o)] = fmt.Sprintf(`cell(%d)`, o)
				onScreen[fmt.Sprintf("rc lane %d", o)] = fmt.Sprintf(`lane('rc', %d)`, o)
				onScreen[fmt.Sprintf("ru lane %d", o)] = fmt.Sprintf(`lane('ru', %d)`, o)
			}
			p.assertOnScreen("the Explore tab open", onScreen)
			if c := p.clipped(); len(c) > 0 {
				t.Errorf("clipped with the Explore tab open: %v", c)
			}

			// Jumps: from offset 0, the next aborted record is 2, the next
			// ABORT marker 3, the previous COMMIT marker from there 1; no
			// open record follows.
			p.eval(`cell(0).click()`, nil)
			p.wait("offset 0 selected", `byTestID('details').dataset.offset === '0'`, 5*time.Second)
			p.openExplore()
			for _, j := range []struct {
				button string
				want   int64
			}{
				{"jump-next-aborted", 2}, {"jump-next-abortMarker", 3}, {"jump-prev-commitMarker", 1}, {"jump-next-commitMarker", 5},
			} {
				p.click(j.button)
				p.wait(fmt.Sprintf("%s to select %d", j.button, j.want), fmt.Sprintf(`byTestID('details').dataset.offset === '%d' && byTestID('jump-status').dataset.offset === '%d' && cell(%d)?.getAttribute('aria-pressed') === 'true'`, j.want, j.want, j.want), 10*time.Second)
			}
			p.click("jump-next-open")
			p.wait("no open record after 5", `byTestID('jump-status').textContent.includes('No open record after offset 5')`, 10*time.Second)

			// Each jump button says what it looks for, in the page's language.
			if got := p.attr("jump-next-aborted", "aria-label"); got != "Next aborted record" {
				t.Errorf("Next aborted record's label: %q", got)
			}
			p.click("ui-lang-ko")
			p.wait("the Korean label", `byTestID('jump-prev-abortMarker').getAttribute('aria-label') === '이전 ABORT 마커'`, 5*time.Second)
			p.click("ui-lang-en")

			// Keyboard: Tab reaches the jump buttons, Enter presses one.
			p.tabTo("jump-prev-aborted")
			p.press(kb.Enter)
			p.wait("the previous aborted record by keyboard", `byTestID('details').dataset.offset === '2'`, 10*time.Second)
			if f := p.focused(); f != "jump-prev-aborted" {
				t.Errorf("after a jump the focus is on %q; it stays on the button so it can be pressed again", f)
			}

			// Search: O-2's two writes, the aborted one first; a result
			// opens its offset.
			p.fill("search-q", "O-2")
			p.fill("search-in", "value")
			p.click("search-submit")
			p.wait("two matches", `byTestID('search-status').dataset.state === 'done' && byTestID('search-results').dataset.count === '2'`, 15*time.Second)
			var found []string
			p.eval(`[...document.querySelectorAll('[data-testid="search-result"]')].map((b) => b.dataset.offset + ':' + b.dataset.txn)`, &found)
			equal(t, "search O-2", found, []string{"2:aborted", "4:committed"})
			p.do("open the second result", chromedp.Click(chromedp.CSS(`[data-testid="search-result"][data-offset="4"]`)))
			p.wait("offset 4 selected", `byTestID('details').dataset.offset === '4' && cell(4)?.getAttribute('aria-pressed') === 'true'`, 5*time.Second)
			p.assertOnScreen("the search result opened", map[string]string{"offset 4": `cell(4)`, "the result": `document.querySelector('[data-testid="search-result"][data-offset="4"]')`})

			// A JSON path search: lesson 2's values are not JSON, so nothing.
			p.fill("search-q", "O-2")
			p.fill("search-path", "order.id")
			p.click("search-submit")
			p.wait("no JSON value", `byTestID('search-status').dataset.state === 'done' && byTestID('search-results').dataset.count === '0' && byTestID('search-status').textContent.startsWith('No record of offsets')`, 15*time.Second)

			// A range, both ends included: offsets 3 to 4 hold one total.
			p.fill("search-path", "")
			p.fill("search-q", "total")
			p.fill("search-from", "3")
			p.fill("search-to", "4")
			p.click("search-submit")
			p.wait("one match in 3–4", `byTestID('search-status').dataset.state === 'done' && byTestID('search-results').dataset.count === '1' &&
				document.querySelector('[data-testid="search-result"]').dataset.offset === '4' && byTestID('search-status').textContent.includes('offsets 3–4 (2 offsets)')`, 15*time.Second)
			p.fill("search-from", "")
			p.fill("search-to", "")

			// Bad input: the API's sentence, in the page's language.
			badSearches(t, p)

			// Downloads: the offsets on screen, then 2–4.
			dir := t.TempDir()
			p.allowDownloads(dir)
			p.click("download-window")
			lines := p.downloaded(dir, 8)
			for i, l := range lines {
				if l["offset"] != float64(i) || l["topic"] != topic || l["partition"] != float64(0) {
					t.Fatalf("line %d of the window's download: %v", i+1, l)
				}
			}
			if lines[2]["txn"] != "aborted" || lines[2]["readCommitted"] != false || lines[2]["readUncommitted"] != true || lines[3]["marker"] != "ABORT" {
				t.Errorf("offsets 2 and 3 downloaded as %v and %v", lines[2], lines[3])
			}
			p.fill("download-from", "2")
			p.fill("download-to", "4")
			p.click("download-range")
			lines = p.downloaded(dir, 3)
			if lines[0]["offset"] != float64(2) || lines[2]["offset"] != float64(4) {
				t.Errorf("the range 2–4 downloaded as %v", lines)
			}
			p.fill("download-from", "0")
			p.fill("download-to", "99999")
			p.click("download-range")
			p.wait("the range clipped to the log", `byTestID('download-link')?.dataset.lines === '8'`, 10*time.Second)

			p.eval(`byTestID('dock-explore').scrollTop = 0`, nil)
			shootStage(t, p, "explore-tab-"+string(kind))
			// At 150 % the stage stacks; the Explore tab's controls fit.
			p.zoom(1.5)
			p.openExplore()
			if c := p.clipped(); len(c) > 0 {
				t.Errorf("clipped at 150 %% with the Explore tab open: %v", c)
			}
			var pageWide bool
			p.eval(`document.documentElement.scrollWidth > innerWidth + 1`, &pageWide)
			if pageWide {
				t.Error("the Explore tab makes the page wider than the window at 150 %")
			}
			checkZoomedMasthead(t, p)
			p.do("back to 100%", chromedp.EmulateViewport(1280, 720))

			// The table view.
			p.click("table-toggle")
			p.wait("the table", `byTestID('table-toggle').getAttribute('aria-pressed') === 'true' && document.querySelectorAll('[data-testid="log-row"]').length === 9 &&
				[...document.querySelectorAll('[data-testid="log-row"]')].every((r) => r.dataset.kind !== 'loading')`, 10*time.Second)
			checkLesson2Table(t, p, a.log(topic))
			p.assertTableText()
			onScreen = map[string]string{"the table head": `byTestID('table-head')`, "LSO summary": `summary('lso')`, "HW summary": `summary('hw')`}
			for o := range 9 {
				onScreen[fmt.Sprintf("row %d", o)] = fmt.Sprintf(`document.querySelector('[data-testid="log-row"][data-offset="%d"]')`, o)
			}
			p.assertOnScreen("the table", onScreen)
			if c := p.tableClipped(); len(c) > 0 {
				t.Errorf("table text cut at 1280×720: %v", c)
			}
			// "✓ Table" pressed, the bar under the log stays in its panel.
			var outside []string
			p.eval(`(() => { const panel = byTestID('log-panel').getBoundingClientRect();
				return [...document.querySelectorAll('#log-foot button, #log-foot input')].filter((e) => e.getClientRects().length > 0)
					.filter((e) => e.getBoundingClientRect().right > panel.right + 0.5).map((e) => e.id || e.textContent.trim()); })()`, &outside)
			if len(outside) > 0 {
				t.Errorf("at 1280×720 with the table on, %v stick out of the log's panel", outside)
			}
			// Keyboard: the rows are one tab stop; the arrows move, Enter chooses.
			// A click on the selected row (4, the search's) unselects it.
			p.do("click row 4", chromedp.Click(chromedp.CSS(`[data-testid="log-row"][data-offset="4"]`)))
			p.wait("no offset selected", `byTestID('details').dataset.offset === ''`, 5*time.Second)
			p.eval(`document.querySelector('[data-testid="log-row"][data-offset="2"]').focus()`, nil)
			p.press(kb.ArrowDown)
			p.press(kb.Enter)
			p.wait("offset 3 selected from the keyboard", `byTestID('details').dataset.offset === '3' && document.activeElement?.dataset.offset === '3' &&
				document.querySelector('[data-testid="log-row"][data-offset="3"]').getAttribute('aria-selected') === 'true'`, 5*time.Second)
			// The ABORT marker's key (version 0, type 0 = abort) is bytes, not
			// text: the details show them.
			p.wait("the marker's key as bytes", `document.querySelector('#details-list [data-field="Key"] pre')?.textContent.includes('00000000  00 00 00 00 ')`, 5*time.Second)
			shootStage(t, p, "table-"+string(kind))
			p.zoom(1.5)
			if c := p.tableClipped(); len(c) > 0 {
				t.Errorf("table text cut at 150 %%: %v", c)
			}
			var wide bool
			p.eval(`document.documentElement.scrollWidth > innerWidth + 1`, &wide)
			if wide {
				t.Error("the table makes the page wider than the window at 150 %")
			}
			p.screenshot("table-"+string(kind)+"-zoom150", 853, 480, false)
			p.do("back to 100%", chromedp.EmulateViewport(1280, 720))

			// A new record: the strip maps the tail again, the table grows.
			a.do("POST", "/api/produce", map[string]any{"topic": topic, "values": []string{"after the lesson"}, "acks": "all"}, http.StatusOK, nil)
			p.wait("the strip and the table to take the new record", `byTestID('minimap').dataset.heatTo === '9' && byTestID('minimap').dataset.heatPlain === '1' &&
				byTestID('minimap').dataset.heatCommitted === '3' && document.querySelector('[data-testid="log-row"][data-offset="8"]')?.dataset.txn === 'none'`, 15*time.Second)
		})
	}
}

// checkLesson2Table compares the table with the log as the API reads it:
// 0 O-1 committed, 1 COMMIT, 2 O-2 aborted, 3 ABORT, 4 O-2, 5 COMMIT, 6 O-3,
// 7 COMMIT; read_committed receives 0, 4, 6 and read_uncommitted 0, 2, 4, 6.
func checkLesson2Table(t *testing.T, p *page, l partitionLog) {
	t.Helper()
	rows := p.tableRows()
	if len(rows) != 8 {
		t.Fatalf("the table shows %d rows, want 8: %+v", len(rows), rows)
	}
	want := map[int64]struct{ outcome, shape, rc, ru string }{
		0: {"✓ committed", "committed", "✓", "✓"},
		1: {"✓ COMMIT", "commit", "✗", "✗"},
		2: {"✗ aborted", "aborted", "✗", "✓"},
		3: {"✗ ABORT", "abort", "✗", "✗"},
		4: {"✓ committed", "committed", "✓", "✓"},
		5: {"✓ COMMIT", "commit", "✗", "✗"},
		6: {"✓ committed", "committed", "✓", "✓"},
		7: {"✓ COMMIT", "commit", "✗", "✗"},
	}
	for i, r := range rows {
		e := l.Entries[i]
		w := want[r.Offset]
		if r.Offset != int64(i) || r.Outcome != w.outcome || r.Shape != w.shape || r.RC != w.rc || r.RU != w.ru {
			t.Errorf("row %d: %+v; want outcome %q (%s), read_committed %s, read_uncommitted %s", i, r, w.outcome, w.shape, w.rc, w.ru)
		}
		if e.Kind == "data" {
			if e.Value == nil || r.Value != *e.Value {
				t.Errorf("row %d shows value %q; the log holds %v", i, r.Value, e.Value)
			}
		} else if r.Value != e.Marker+" marker" {
			t.Errorf("row %d (a %s marker) shows value %q", i, e.Marker, r.Value)
		}
	}
	var reasons map[string]string
	p.eval(`Object.fromEntries([...document.querySelectorAll('[data-testid="row-rc"]')].map((c) => [c.dataset.offset, c.dataset.reason]))`, &reasons)
	if reasons["2"] != "aborted" || reasons["1"] != "marker" || reasons["0"] != "" {
		t.Errorf("read_committed's reasons: %v", reasons)
	}
	if !strings.HasPrefix(rows[2].Value, "O-2") || !strings.HasPrefix(rows[0].Value, "O-1") || !strings.HasPrefix(rows[6].Value, "O-3") {
		t.Errorf("values: %q %q %q", rows[0].Value, rows[2].Value, rows[6].Value)
	}
}

// assertTableText fails when a row's text is under 16 px.
func (p *page) assertTableText() {
	p.t.Helper()
	var small []string
	p.eval(`[...document.querySelectorAll('.thead > *, .trow > *, .tflag')]
		.filter((e) => e.textContent.trim() !== '' && e.getClientRects().length > 0)
		.map((e) => [e.className + ' "' + e.textContent.trim().slice(0, 30) + '"', parseFloat(getComputedStyle(e).fontSize)])
		.filter(([, size]) => size < 16).map(([what, size]) => what + ': ' + size + 'px')`, &small)
	if len(small) > 0 {
		p.t.Errorf("table text under 16 px: %v", small)
	}
}

// tableClipped lists the table's words that do not fit their column: the
// offset, the outcome, the lanes, the headers of the columns. (Keys,
// values and headers may end in an ellipsis; the whole is in their title
// and the details.)
func (p *page) tableClipped() []string {
	p.t.Helper()
	var out []string
	p.eval(`[...document.querySelectorAll('.thead > *, .trow .t-off, .trow .t-out, .trow .t-rc, .trow .t-ru, .trow .t-time')]
		.filter((e) => e.getClientRects().length > 0 && e.textContent.trim() !== '')
		.filter((e) => e.scrollWidth > e.clientWidth + 1)
		.map((e) => e.className + ' "' + e.textContent.trim() + '" ' + e.scrollWidth + '>' + e.clientWidth)`, &out)
	var cut []string
	p.eval(`[...document.querySelectorAll('.trow .t-key, .trow .t-val, .trow .t-hdr')]
		.filter((e) => e.getClientRects().length > 0 && e.scrollWidth > e.clientWidth + 1 && !e.title)
		.map((e) => e.className + ' "' + e.textContent.trim().slice(0, 30) + '"')`, &cut)
	return append(out, cut...)
}

// badSearches: an empty query, a JSON path that does not parse and a
// 10 MB query each show the API's sentence, in English and in Korean.
func badSearches(t *testing.T, p *page) {
	t.Helper()
	cases := []struct {
		name, query, path string
		huge              bool
		en, ko            string
	}{
		{"an empty query", "", "", false, "the search query is empty", "검색어가 비어 있어요"},
		{"a bad JSON path", "O-2", "order..id", false, "the JSON path order..id cannot be read", "JSON 경로 order..id를"},
		{"a 10 MB query", "", "", true, "the search query is 10485760 bytes long; at most 4096 are searched", "검색어가 10485760바이트예요"},
	}
	for _, c := range cases {
		p.fill("search-path", c.path)
		if c.huge {
			p.eval(`(() => { const q = byTestID('search-q'); q.value = 'x'.repeat(10 << 20); q.dispatchEvent(new Event('input', {bubbles: true})); })()`, nil)
		} else {
			p.fill("search-q", c.query)
		}
		p.click("search-submit")
		p.wait(c.name+"'s sentence", fmt.Sprintf(`!byTestID('search-error').hidden && byTestID('search-error').textContent.includes(%q)`, c.en), 10*time.Second)
		p.click("ui-lang-ko")
		p.wait(c.name+"'s sentence in Korean", fmt.Sprintf(`byTestID('search-error').textContent.includes(%q)`, c.ko), 5*time.Second)
		p.click("ui-lang-en")
	}
	p.fill("search-q", "")
	p.fill("search-path", "")
}

// shootStage photographs the partition page at 1280×720, 1920×1080 and
// phone size, in English and Korean, and returns to 1280×720 in English.
func shootStage(t *testing.T, p *page, name string) {
	t.Helper()
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
			p.screenshot(fmt.Sprintf("%s-%s-%s", name, size.name, lang), size.width, size.height, size.phone)
		}
		p.do("back to 1280×720", chromedp.EmulateViewport(1280, 720))
	}
	p.click("ui-lang-en")
	p.wait("the log at 1280×720", `byTestID('log-viewport').clientWidth > 600`, 5*time.Second)
}

// setSeekTime types a time into the seek field, in the browser's time
// zone as a person would.
func (p *page) setSeekTime(at time.Time) {
	p.t.Helper()
	p.eval(fmt.Sprintf(`(() => { const d = new Date(%d); const p = (n, w = 2) => String(n).padStart(w, '0');
		const el = byTestID('seek-time');
		el.value = d.getFullYear() + '-' + p(d.getMonth() + 1) + '-' + p(d.getDate()) + 'T' + p(d.getHours()) + ':' + p(d.getMinutes()) + ':' + p(d.getSeconds()) + '.' + p(d.getMilliseconds(), 3);
		el.dispatchEvent(new Event('input', {bubbles: true}));
		return el.value; })()`, at.UnixMilli()), nil)
}

// TestBrowserExploreSeekTime: going to a time selects the first record
// written at or after it (ListOffsets by time), and a time after the last
// record goes to the high watermark and says so; a JSON path search opens
// its match; Next tombstone goes to a tombstone written after them — on
// both brokers.
func TestBrowserExploreSeekTime(t *testing.T) {
	t.Parallel()
	for _, kind := range brokerKinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			chromium := chromiumPath(t)
			a := startApp(t, kind)
			topic := a.name("times")
			a.createTopic(topic)
			client, err := kgo.NewClient(append(a.kafka.ClientOpts(), kgo.DefaultProduceTopic(topic))...)
			if err != nil {
				t.Fatal(err)
			}
			defer client.Close()
			base := time.Now().Add(-3 * time.Hour).Truncate(time.Millisecond)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			for i := range 3 {
				r := &kgo.Record{Value: []byte(fmt.Sprintf(`{"order":{"id":"O-%d"}}`, i)), Timestamp: base.Add(time.Duration(i) * time.Hour)}
				if err := client.ProduceSync(ctx, r).FirstErr(); err != nil {
					t.Fatal(err)
				}
			}
			p := openPage(t, a, chromium, 1280, 720)
			p.open("/topics/" + topic + "/partitions/0")
			p.wait("three records", `cell(2)?.dataset.kind === 'data'`, 15*time.Second)
			p.openExplore()
			p.setSeekTime(base.Add(90 * time.Minute))
			p.click("seek-time-go")
			p.wait("offset 2, the first record after base+90 min", `byTestID('details').dataset.offset === '2' && byTestID('seek-status').textContent.includes('Offset 2 is the first record')`, 10*time.Second)
			p.setSeekTime(base.Add(-time.Minute))
			p.click("seek-time-go")
			p.wait("offset 0 for a time before every record", `byTestID('details').dataset.offset === '0' && byTestID('seek-status').textContent.includes('Offset 0 is the first record')`, 10*time.Second)
			p.eval(`byTestID('seek-time').value = '2999-01-01T00:00:00.000'`, nil)
			p.click("seek-time-go")
			p.wait("the end of the log for a time after every record", `byTestID('seek-status').textContent.includes('No record is as late') && byTestID('seek-status').dataset.offset === '3'`, 10*time.Second)
			// The offset field.
			p.fill("seek-offset", "1")
			p.click("seek-offset-go")
			p.wait("offset 1", `byTestID('details').dataset.offset === '1'`, 5*time.Second)
			// A JSON path search over these values.
			p.fill("search-q", "O-1")
			p.fill("search-path", "order.id")
			p.click("search-submit")
			p.wait("the JSON path match", `byTestID('search-status').dataset.state === 'done' && byTestID('search-results').dataset.count === '1' && document.querySelector('[data-testid="search-result"][data-offset="1"]')`, 15*time.Second)
			// The details highlight the JSON value, printed once.
			p.do("open the match", chromedp.Click(chromedp.CSS(`[data-testid="search-result"][data-offset="1"]`)))
			p.click("dock-tab-details")
			var parts struct {
				Keys, Strings int
				Text          string
			}
			p.eval(`(() => { const pre = document.querySelector('#details-list [data-field="Value"] pre'); return {keys: pre.querySelectorAll('.j-key').length, strings: pre.querySelectorAll('.j-str').length, text: pre.textContent}; })()`, &parts)
			if parts.Keys != 2 || parts.Strings != 1 || !strings.Contains(parts.Text, "{\n  \"order\": {\n    \"id\": \"O-1\"") {
				t.Errorf("the JSON value in the details: %+v", parts)
			}
			// A tombstone for O-1 at 3: Next tombstone from the selected 1
			// goes to it; there is none before it.
			if err := client.ProduceSync(ctx, &kgo.Record{Key: []byte("O-1")}).FirstErr(); err != nil {
				t.Fatal(err)
			}
			p.wait("the tombstone at 3", `cell(3)?.dataset.kind === 'data'`, 15*time.Second)
			p.openExplore()
			if got := p.attr("jump-next-tombstone", "aria-label"); got != "Next tombstone" {
				t.Errorf("Next tombstone's label: %q", got)
			}
			p.click("jump-next-tombstone")
			p.wait("Next tombstone to select 3", `byTestID('details').dataset.offset === '3' && byTestID('jump-status').dataset.offset === '3' &&
				cell(3)?.getAttribute('aria-pressed') === 'true' && byTestID('jump-status').textContent === 'The tombstone at offset 3.'`, 10*time.Second)
			p.click("jump-prev-tombstone")
			p.wait("no tombstone before 3", `byTestID('jump-status').textContent === 'No tombstone before offset 3.'`, 10*time.Second)
			p.click("ui-lang-ko")
			p.wait("the Korean label", `byTestID('jump-next-tombstone').getAttribute('aria-label') === '다음 툼스톤'`, 5*time.Second)
			p.click("ui-lang-en")
		})
	}
}

// zoomedMastheadMax is the most height, in CSS px, the partition page's
// masthead may take at 150 % zoom (853×480): two compact rows, a fifth of
// the window, where it used to take four rows (157 px).
const zoomedMastheadMax = 96

// checkZoomedMasthead checks, on a page zoomed to 150 %, that the
// masthead stays within zoomedMastheadMax and that the navigation, the
// language switch and the partition picker lie whole inside it and the
// window.
func checkZoomedMasthead(t *testing.T, p *page) {
	t.Helper()
	var got struct {
		Height  float64  `json:"height"`
		Outside []string `json:"outside"`
	}
	p.eval(`(() => {
		const m = document.querySelector('.masthead').getBoundingClientRect();
		const whole = (e) => { const r = e.getBoundingClientRect(); return r.width > 0 && r.left >= m.left && r.right <= Math.min(m.right, innerWidth) && r.top >= m.top && r.bottom <= m.bottom; };
		return { height: m.height, outside: ['site-nav', 'ui-lang-switch', 'topic-picker'].filter((id) => !whole(byTestID(id))) };
	})()`, &got)
	if got.Height > zoomedMastheadMax {
		t.Errorf("at 150 %% the masthead is %.0f px tall, want at most %d (two compact rows)", got.Height, zoomedMastheadMax)
	}
	if len(got.Outside) > 0 {
		t.Errorf("at 150 %% these lie outside the masthead or the window: %v", got.Outside)
	}
}
