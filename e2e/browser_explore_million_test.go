package e2e

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/twmb/franz-go/pkg/kgo"
)

// The heat strip over a partition of 1,000,000 offsets, on both brokers:
// streamed in sub-ranges with its progress and a Stop, the page answering
// while it maps; a jump to the one aborted transaction; a search for a
// value across the partition; a click on the strip.

// bigPartition is how a million-offset partition is laid out: plain
// records, then at abortAt a transaction of three records ("needle
// aborted i") aborted by its ABORT marker, then plain records, one of them
// at needleAt reading "needle plain", up to total offsets.
type bigPartition struct {
	total, abortAt, needleAt int64
}

// fill writes the partition with big batches from one producer (so the
// offsets are exactly where the layout says) and one transactional
// producer, and returns how long it took.
func (b bigPartition) fill(t *testing.T, a *app, topic string) time.Duration {
	t.Helper()
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	plain, err := kgo.NewClient(append(a.kafka.ClientOpts(), kgo.DefaultProduceTopic(topic),
		kgo.ProducerLinger(20*time.Millisecond), kgo.MaxBufferedRecords(200_000), kgo.ProducerBatchMaxBytes(1_000_000),
		kgo.MaxProduceRequestsInflightPerBroker(1))...)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	var failed atomic.Int64
	produce := func(from, to int64) {
		for i := from; i < to; i++ {
			v := fmt.Sprintf("order O-%d", i)
			if i == b.needleAt {
				v = "needle plain"
			}
			plain.Produce(ctx, &kgo.Record{Value: []byte(v)}, func(_ *kgo.Record, err error) {
				if err != nil {
					failed.Add(1)
				}
			})
		}
		if err := plain.Flush(ctx); err != nil || failed.Load() > 0 {
			t.Fatalf("fill %s: %v, %d failed", topic, err, failed.Load())
		}
	}
	produce(0, b.abortAt)
	txn, err := kgo.NewClient(append(a.kafka.ClientOpts(), kgo.DefaultProduceTopic(topic), kgo.TransactionalID(a.name("big-txn")))...)
	if err != nil {
		t.Fatal(err)
	}
	defer txn.Close()
	if err := txn.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := txn.ProduceSync(ctx, &kgo.Record{Value: []byte(fmt.Sprintf("needle aborted %d", i))}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	if err := txn.EndTransaction(ctx, kgo.TryAbort); err != nil {
		t.Fatal(err)
	}
	produce(b.abortAt+4, b.total)
	return time.Since(start)
}

// TestBrowserExploreMillion: a partition of 1,000,000 offsets (on both
// brokers; filling it takes about a second either way) shows its heat strip, streamed in sub-ranges, while the page
// keeps drawing frames; a click on the top of the strip goes to the log
// start, Next aborted record from there selects the aborted transaction's
// first record, a search finds "needle" in the partition and opens it;
// Map again can be stopped half way and resumed.
func TestBrowserExploreMillion(t *testing.T) {
	t.Parallel()
	for _, kind := range brokerKinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			chromium := chromiumPath(t)
			a := startApp(t, kind)
			layout := bigPartition{total: 1_000_000, abortAt: 600_000, needleAt: 900_000}
			topic := a.name("million")
			a.createTopic(topic)
			took := layout.fill(t, a, topic)
			l := a.log(topic)
			if l.HighWatermark != layout.total {
				t.Fatalf("filled %s up to %d, want %d", topic, l.HighWatermark, layout.total)
			}
			t.Logf("%s: filled %d offsets in %v", kind, layout.total, took.Round(time.Millisecond))

			p := openPage(t, a, chromium, 1280, 720)
			// Sample the page's frames from the start: the strip streams
			// while the log draws.
			p.do("count frames from the page's start", chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
				_, err := cdp.Call(ctx, target, cdppage.AddScriptToEvaluateOnNewDocument, cdppage.AddScriptToEvaluateOnNewDocumentParams{Source: `
					window.__gaps = []; let last = 0;
					const step = (now) => { if (last) window.__gaps.push(now - last); last = now; requestAnimationFrame(step); };
					requestAnimationFrame(step);`})
				return err
			}))
			began := time.Now()
			p.open("/topics/" + topic + "/partitions/0")
			p.wait("the heat strip over the whole partition", fmt.Sprintf(`byTestID('minimap').dataset.heat === 'done' && byTestID('minimap').dataset.heatTo === '%d'`, layout.total), 60*time.Second)
			mapped := time.Since(began)
			var heat map[string]string
			p.eval(`({...byTestID('minimap').dataset})`, &heat)
			if heat["heatAborted"] != "3" || heat["heatAbortMarkers"] != "1" || heat["heatPlain"] != fmt.Sprint(layout.total-4) {
				t.Errorf("the heat strip counts %v; want 3 aborted, 1 ABORT, %d plain", heat, layout.total-4)
			}
			var requests int
			p.eval(`performance.getEntriesByType('resource').filter((r) => r.name.includes('/map?')).length`, &requests)
			if requests < 5 {
				t.Errorf("the strip was mapped in %d requests; want it streamed in sub-ranges", requests)
			}
			t.Logf("%s: heat strip of %d offsets mapped in %v (page load included; %s ms in the page, %d requests, %s buckets)", kind, layout.total, mapped.Round(time.Millisecond), heat["heatMs"], requests, heat["heatBuckets"])
			p.frameReport("while the page loaded and mapped")

			// The strip's top is the log start: a click there selects it.
			p.clickMinimapAt(0)
			p.wait("an offset near the log start selected", `+byTestID('details').dataset.offset < 10000 && byTestID('details').dataset.offset !== ''`, 10*time.Second)
			p.openExplore()
			p.click("jump-next-aborted")
			p.wait("the aborted record at 600,000", fmt.Sprintf(`byTestID('details').dataset.offset === '%d' && cell(%d)?.dataset.txn === 'aborted' && cell(%d).getAttribute('aria-pressed') === 'true'`, layout.abortAt, layout.abortAt, layout.abortAt), 30*time.Second)
			p.assertOnScreen("the jump", map[string]string{"the aborted record": fmt.Sprintf(`cell(%d)`, layout.abortAt)})
			p.click("jump-next-abortMarker")
			p.wait("its ABORT marker", fmt.Sprintf(`byTestID('details').dataset.offset === '%d' && cell(%d)?.dataset.marker === 'ABORT'`, layout.abortAt+3, layout.abortAt+3), 30*time.Second)
			// A click on the strip's middle goes to the middle of the log.
			p.clickMinimapAt(0.5)
			p.wait("an offset near the middle selected", `Math.abs(+byTestID('details').dataset.offset - 500000) < 10000`, 10*time.Second)

			// Search the whole partition for "needle": four records, the
			// aborted three first.
			p.eval(`window.__gaps = []`, nil)
			searchBegan := time.Now()
			p.fill("search-q", "needle")
			p.click("search-submit")
			p.wait("the search over the partition", `byTestID('search-status').dataset.state === 'done'`, 120*time.Second)
			var found []string
			p.eval(`[...document.querySelectorAll('[data-testid="search-result"]')].map((b) => b.dataset.offset + ':' + b.dataset.txn)`, &found)
			equal(t, "search needle", found, []string{
				fmt.Sprintf("%d:aborted", layout.abortAt), fmt.Sprintf("%d:aborted", layout.abortAt+1), fmt.Sprintf("%d:aborted", layout.abortAt+2), fmt.Sprintf("%d:none", layout.needleAt),
			})
			var searchRequests int
			p.eval(`performance.getEntriesByType('resource').filter((r) => r.name.includes('/search?')).length`, &searchRequests)
			t.Logf("%s: search of %d offsets took %v in %d requests", kind, layout.total, time.Since(searchBegan).Round(time.Millisecond), searchRequests)
			p.frameReport("while searching")
			p.do("open the plain needle", chromedp.Click(chromedp.CSS(fmt.Sprintf(`[data-testid="search-result"][data-offset="%d"]`, layout.needleAt))))
			p.wait("offset 900,000 selected and shown", fmt.Sprintf(`byTestID('details').dataset.offset === '%d' && cell(%d)?.querySelector('.val').textContent === 'needle plain'`, layout.needleAt, layout.needleAt), 10*time.Second)

			// Map again at full speed: what the strip alone costs the page.
			p.eval(`window.__gaps = []`, nil)
			p.click("map-remap")
			p.wait("the strip mapped again", fmt.Sprintf(`byTestID('minimap').dataset.heat === 'done' && byTestID('minimap').dataset.heatTo === '%d'`, layout.total), 60*time.Second)
			var again string
			p.eval(`byTestID('minimap').dataset.heatMs`, &again)
			t.Logf("%s: Map again over %d offsets: %s ms", kind, layout.total, again)
			p.frameReport("while mapping again")

			// Map again, slowed down by a slow network, stopped part way,
			// then resumed.
			p.slowAPI(400)
			p.click("map-remap")
			p.wait("the strip mapping again, part drawn", `byTestID('minimap').dataset.heat === 'mapping' && +byTestID('minimap').dataset.heatTo > 0 && !byTestID('map-status').hidden`, 20*time.Second)
			p.assertOnScreen("the map's progress", map[string]string{"the progress": `byTestID('map-progress')`, "Stop": `byTestID('map-stop')`})
			p.screenshot("explore-million-mapping-"+string(kind)+"-1280x720", 1280, 720, false)
			p.click("map-stop")
			p.wait("stopped part way", fmt.Sprintf(`byTestID('minimap').dataset.heat === 'stopped' && +byTestID('minimap').dataset.heatTo < %d && !byTestID('map-resume').hidden`, layout.total), 10*time.Second)
			// A search slowed the same way stops at its slice; More goes on.
			p.fill("search-q", "needle aborted")
			p.click("search-submit")
			p.wait("the search under way", `byTestID('search-status').dataset.state === 'running' && !byTestID('search-stop').hidden`, 10*time.Second)
			p.click("search-stop")
			p.wait("the search stopped part way, More offered", `byTestID('search-status').dataset.state === 'stopped' && !byTestID('search-more').hidden && +byTestID('search-status').dataset.scanned < 1000000`, 10*time.Second)
			p.slowAPI(0)
			p.click("search-more")
			p.wait("the rest searched", `byTestID('search-status').dataset.state === 'done' && byTestID('search-results').dataset.count === '3'`, 60*time.Second)
			p.click("map-resume")
			p.wait("the rest mapped", fmt.Sprintf(`byTestID('minimap').dataset.heat === 'done' && byTestID('minimap').dataset.heatTo === '%d' && byTestID('minimap').dataset.heatAborted === '3'`, layout.total), 60*time.Second)
			p.screenshot("explore-million-"+string(kind)+"-1280x720", 1280, 720, false)
		})
	}
}

// slowAPI makes every API request of the page take at least latency ms
// (Chromium's network emulation), so that a test can stop a map part way.
func (p *page) slowAPI(latency float64) {
	p.t.Helper()
	p.do("API requests' latency", chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
		if _, err := cdp.Call(ctx, target, network.Enable, network.EnableParams{}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, target, network.EmulateNetworkConditionsByRule, network.EmulateNetworkConditionsByRuleParams{
			MatchedNetworkConditions: []*network.Conditions{{URLPattern: p.a.url + "/api/*", Latency: latency, DownloadThroughput: -1, UploadThroughput: -1}},
		})
		return err
	}))
}

// clickMinimapAt clicks the minimap at a fraction of its height.
func (p *page) clickMinimapAt(frac float64) {
	p.t.Helper()
	var box struct{ X, Y, W, H float64 }
	p.eval(`(() => { const r = byTestID('minimap').getBoundingClientRect(); return {x: r.left, y: r.top, w: r.width, h: r.height}; })()`, &box)
	p.do("click the minimap", chromedp.MouseClickXY(box.X+box.W/2, box.Y+2+frac*(box.H-4)))
}

// frameReport logs the page's longest frames since the sampler started
// (or was cleared) and fails when the page froze for more than a second.
func (p *page) frameReport(when string) {
	p.t.Helper()
	var f struct {
		Frames int     `json:"frames"`
		Max    float64 `json:"max"`
		P95    float64 `json:"p95"`
		Over50 int     `json:"over50"`
	}
	p.eval(`(() => { const g = [...window.__gaps].sort((a, b) => a - b); return {frames: g.length, max: g[g.length - 1] || 0, p95: g[Math.floor(g.length * 0.95)] || 0, over50: g.filter((x) => x > 50).length}; })()`, &f)
	p.t.Logf("frames %s: %d, longest %.0f ms, p95 %.0f ms, %d over 50 ms", when, f.Frames, f.Max, f.P95, f.Over50)
	if f.Max > 1000 {
		p.t.Errorf("the page froze for %.0f ms %s", f.Max, when)
	}
}
