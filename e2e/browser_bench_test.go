package e2e

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/twmb/franz-go/pkg/kgo"
)

// benchEnv turns on TestBrowserBenchMillionOffsets.
const benchEnv = "OFFSETLAB_BROWSER_BENCH"

// frameStats are rAF frame intervals measured in the page.
type frameStats struct {
	Frames  int     `json:"frames"`
	MaxMs   float64 `json:"maxMs"`
	P95Ms   float64 `json:"p95Ms"`
	AvgMs   float64 `json:"avgMs"`
	Over50  int     `json:"over50"`
	MaxDOM  int     `json:"maxDom"`
	LastOff int64   `json:"lastOffset"`
}

// TestBrowserBenchMillionOffsets is a benchmark, not a timed test: it fills a
// partition of the embedded broker with 1,000,000 offsets, opens the page in
// headless Chromium and prints the time to first paint of the log, frame
// times while scrolling with the wheel, frame times while 1,000 offsets/s
// arrive, the page's DOM size and the server's heap. It asserts only the
// DOM bound. It runs when OFFSETLAB_BROWSER_BENCH=1 (go test ./e2e -run
// BenchMillion -v).
func TestBrowserBenchMillionOffsets(t *testing.T) {
	if os.Getenv(benchEnv) == "" {
		t.Skipf("browser benchmark skipped: set %s=1 to fill a partition with 1,000,000 offsets and print the page's figures", benchEnv)
	}
	chromium := chromiumPath(t)
	a := startApp(t, embedded)
	topic := a.name("million")
	a.createTopic(topic)
	client, err := kgo.NewClient(kgo.SeedBrokers(a.kafka.Brokers()...), kgo.DefaultProduceTopic(topic), kgo.ProducerLinger(5*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	ctx := context.Background()
	const total = 1_000_000
	start := time.Now()
	var failed atomic.Int64
	for i := range total {
		client.Produce(ctx, kgo.StringRecord(fmt.Sprintf("order O-%d", i)), func(_ *kgo.Record, err error) {
			if err != nil {
				failed.Add(1)
			}
		})
	}
	if err := client.Flush(ctx); err != nil || failed.Load() > 0 {
		t.Fatalf("fill: %v, %d failed", err, failed.Load())
	}
	t.Logf("filled %s with %d offsets in %v", topic, total, time.Since(start).Round(time.Millisecond))
	heapBefore := heapInUse()

	p := openPage(t, a, chromium, 1280, 720)
	p.open("/topics/" + topic + "/partitions/0")
	p.wait("the log's last offset", fmt.Sprintf(`cell(%d)?.dataset.kind === 'data'`, total-1), 30*time.Second)
	var firstPaint float64
	p.eval(`performance.now()`, &firstPaint)
	t.Logf("first paint of the log (navigation start to the last offset's cell drawn): %.0f ms; DOM elements %d", firstPaint, p.domNodes())

	// Jump to the middle, as the minimap or "Go to offset" does.
	p.fill("goto-offset", "500000")
	jump := time.Now()
	p.eval(`byTestID('goto-form').requestSubmit()`, nil)
	p.wait("offset 500,000", `cell(500000)?.dataset.kind === 'data'`, 10*time.Second)
	t.Logf("jump to offset 500,000 drawn in %v", time.Since(jump).Round(time.Millisecond))

	scroll := p.frames(t, 240, 300)
	t.Logf("scrolling (240 frames, 300 px of wheel per frame, %d offsets passed): max %.1f ms, p95 %.1f ms, avg %.1f ms, frames over 50 ms %d, max DOM %d",
		scroll.LastOff-500000, scroll.MaxMs, scroll.P95Ms, scroll.AvgMs, scroll.Over50, scroll.MaxDOM)

	// 1,000 offsets/s while following the end of the log.
	p.click("follow-toggle")
	p.wait("following the end", `byTestID('follow-toggle').getAttribute('aria-pressed') === 'true' && cell(999999)`, 10*time.Second)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for n := 0; ; n++ {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			recs := make([]*kgo.Record, 100)
			for i := range recs {
				recs[i] = kgo.StringRecord(fmt.Sprintf("live %d-%d", n, i))
			}
			client.ProduceSync(ctx, recs...)
		}
	}()
	live := p.frames(t, 300, 0)
	close(stop)
	<-done
	t.Logf("while 1,000 offsets/s arrive (300 frames): max %.1f ms, p95 %.1f ms, avg %.1f ms, frames over 50 ms %d, max DOM %d, last offset drawn %d",
		live.MaxMs, live.P95Ms, live.AvgMs, live.Over50, live.MaxDOM, live.LastOff)
	t.Logf("server heap in use: %d MiB with the partition filled, %d MiB after the page scrolled and followed (the embedded broker keeps the whole log in memory; the web layer keeps at most the stream's tail per watched partition)",
		heapBefore>>20, heapInUse()>>20)
	if scroll.MaxDOM > 1500 || live.MaxDOM > 1500 {
		t.Errorf("the page grew to %d DOM elements, want at most 1,500", max(scroll.MaxDOM, live.MaxDOM))
	}
}

// frames measures n animation frames in the page, dispatching a wheel event
// of wheel px per frame when wheel > 0.
func (p *page) frames(t *testing.T, n, wheel int) frameStats {
	t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 60*time.Second)
	defer cancel()
	stats, err := chromedp.Run(ctx, chromedp.Evaluate[frameStats](domHelpers+fmt.Sprintf(`new Promise((resolve) => {
		const vp = byTestID('log-viewport');
		const times = [];
		let last = 0, maxDom = 0;
		const step = (now) => {
			if (last) times.push(now - last);
			last = now;
			maxDom = Math.max(maxDom, document.getElementsByTagName('*').length);
			if (%d > 0) vp.dispatchEvent(new WheelEvent('wheel', {deltaY: %d, bubbles: true, cancelable: true}));
			if (times.length < %d) { requestAnimationFrame(step); return; }
			const sorted = [...times].sort((a, b) => a - b);
			const offsets = [...document.querySelectorAll('[data-testid="log-cell"]')].map((c) => +c.dataset.offset).filter(Number.isFinite);
			resolve({frames: times.length, maxMs: sorted[sorted.length - 1], p95Ms: sorted[Math.floor(sorted.length * 0.95)],
				avgMs: times.reduce((a, b) => a + b, 0) / times.length, over50: times.filter((x) => x > 50).length,
				maxDom, lastOffset: Math.max(...offsets)});
		};
		requestAnimationFrame(step);
	})`, wheel, wheel, n), chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("measure frames: %v", err)
	}
	return stats
}

func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}
