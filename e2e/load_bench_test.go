package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// loadBenchEnv turns on TestLoadClassroom.
const loadBenchEnv = "OFFSETLAB_LOAD_BENCH"

// Shape of the load: a classroom of viewers while the teacher produces.
// Each student computer dials from its own loopback address
// (studentAddr), two views (tabs) each, so that the per-client caps see a
// class; one view in ten never reads (stalled).
const (
	loadStalledEvery = 10
	loadTabsPerPC    = 2
	loadRecordsPerS  = 1000
	loadBatch        = 100 // values per POST /api/produce, every 100 ms
	loadBaselineTime = 6 * time.Second
	loadViewersTime  = 10 * time.Second
	// loadMaxViewers is the server's --max-viewers: the largest class
	// (500 views) beside the views kept for the teacher (50).
	loadMaxViewers = 560
)

// loadClasses are the class sizes measured, in views.
var loadClasses = []int{100, 500}

// TestLoadClassroom is a benchmark, not a timed test: the server binary
// runs in classroom mode on loopback (a child process, so its memory is
// its own); for each class size the teacher produces 1,000 records/s
// through the API (100 values per POST, every 100 ms), first with no
// viewers (the baseline, in the same run), then with the class's
// websocket viewers of the partition, one in ten of which never reads.
// Viewers dial from many addresses across 127.0.0.0/8, two per address,
// as a class of computers would; that the server counts each address as
// a client shows in the class connecting at all (one address may open
// only 50 views). It prints the healthy viewers' delivery
// lag (p50/p99, from each record's timestamp to the viewer receiving it),
// the bytes each healthy viewer received, the server's memory per viewer,
// how many viewers the server still holds (it drops the stalled ones),
// and the producer's latency with and without viewers and their ratio. It
// asserts only that every healthy viewer received every record. It runs
// when OFFSETLAB_LOAD_BENCH=1 (go test ./e2e -run TestLoadClassroom -v)
// and stops by itself within 6 minutes.
func TestLoadClassroom(t *testing.T) {
	if os.Getenv(loadBenchEnv) == "" {
		t.Skipf("load benchmark skipped: set %s=1 to run classes of %v viewers against 1,000 records/s and print the figures", loadBenchEnv, loadClasses)
	}
	srv := startServerProcess(t, "--classroom", "--data-dir", t.TempDir(), "--max-viewers", strconv.Itoa(loadMaxViewers))
	teacher := loginTeacher(t, srv.url, srv.waitLog(regexp.MustCompile(`loginURL="?(http://[^\s"]+)`), 10*time.Second))
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	t.Logf("load: the teacher produces %d records/s via POST /api/produce (%d values every 100 ms); server = the binary in classroom mode, loopback, --max-viewers %d; viewers dial from 127.77.x.y, %d per address, 1 in %d never reads",
		loadRecordsPerS, loadBatch, loadMaxViewers, loadTabsPerPC, loadStalledEvery)
	for _, views := range loadClasses {
		topic := fmt.Sprintf("load-%d-%s", views, randomSuffix(t))
		teacher.mustPost("/api/topics", fmt.Sprintf(`{"name":%q,"partitions":1}`, topic), http.StatusCreated)
		loadClass(ctx, t, srv, teacher, topic, views)
	}
}

// loadClass measures one class of views on topic: a baseline, then the
// class connected, then every view closed again.
func loadClass(ctx context.Context, t *testing.T, srv *serverProcess, teacher *client, topic string, views int) {
	t.Helper()
	settle := func() {
		t.Helper()
		// Let the server's memory and goroutines come to rest between phases.
		time.Sleep(time.Second)
	}
	settle()
	base := produceFor(ctx, t, teacher, topic, loadBaselineTime, 0)
	rssIdle := mustRSS(t, srv)

	// A classroom: healthy viewers read everything, stalled ones never read.
	from := base.nextOffset
	span := int64(loadRecordsPerS*loadViewersTime/time.Second) * 2
	var healthy []*lagViewer
	var conns []*websocket.Conn
	defer func() {
		for _, c := range conns {
			c.CloseNow()
		}
	}()
	stalled := 0
	for i := range views {
		conn, status, body := dialView(ctx, srv.url, viewerDialer(studentAddr(i/loadTabsPerPC), nil), topic)
		if conn == nil {
			t.Fatalf("viewer %d of %d (from %s): %d %s", i, views, studentAddr(i/loadTabsPerPC), status, body)
		}
		conns = append(conns, conn)
		if i%loadStalledEvery == loadStalledEvery-1 {
			stalled++
			continue
		}
		healthy = append(healthy, startLagViewer(ctx, conn, from, span))
	}
	settle()
	rssViewers := mustRSS(t, srv)
	studentsBefore := studentsWatching(t, teacher)

	loaded := produceFor(ctx, t, teacher, topic, loadViewersTime, from)
	rssLoaded := mustRSS(t, srv)
	last := loaded.nextOffset - 1

	// Every healthy viewer must see the last record.
	deadline := time.Now().Add(30 * time.Second)
	for i, v := range healthy {
		for !v.saw(last) {
			if err := v.failed(); err != nil {
				t.Fatalf("healthy viewer %d was cut off: %v", i, err)
			}
			if time.Now().After(deadline) {
				t.Fatalf("healthy viewer %d never saw offset %d", i, last)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	studentsAfter := studentsWatching(t, teacher)

	var lags []time.Duration
	var received int64
	missing := 0
	for _, v := range healthy {
		l, miss := v.lags(from, last)
		lags = append(lags, l...)
		missing += miss
		received += v.bytesReceived()
	}
	if missing > 0 {
		t.Errorf("healthy viewers missed %d offset deliveries between %d and %d", missing, from, last)
	}
	slices.Sort(lags)

	t.Logf("class of %d views (%d stalled) from %d addresses on one partition:", views, stalled, (views+loadTabsPerPC-1)/loadTabsPerPC)
	t.Logf("  records produced: baseline %d in %v (%.0f/s), with viewers %d in %v (%.0f/s)",
		base.records, loadBaselineTime, float64(base.records)/loadBaselineTime.Seconds(), loaded.records, loadViewersTime, float64(loaded.records)/loadViewersTime.Seconds())
	t.Logf("  delivery lag, healthy viewers (%d viewers x %d offsets = %d deliveries; record timestamp -> viewer received): p50 %v, p90 %v, p99 %v, max %v",
		len(healthy), last-from+1, len(lags), pct(lags, 50), pct(lags, 90), pct(lags, 99), pct(lags, 100))
	t.Logf("  bytes per healthy viewer: %.0f KiB for %d records (%.0f B per record), snapshot included",
		float64(received)/float64(len(healthy))/1024, last-from+1, float64(received)/float64(len(healthy))/float64(last-from+1))
	t.Logf("  producer latency per POST of %d values: without viewers p50 %v, p99 %v, mean %v; with viewers p50 %v, p99 %v, mean %v; slowdown with/without: p50 %.2f, p99 %.2f, mean %.2f",
		loadBatch, pct(base.latencies, 50), pct(base.latencies, 99), mean(base.latencies),
		pct(loaded.latencies, 50), pct(loaded.latencies, 99), mean(loaded.latencies),
		float64(pct(loaded.latencies, 50))/float64(pct(base.latencies, 50)), float64(pct(loaded.latencies, 99))/float64(pct(base.latencies, 99)),
		float64(mean(loaded.latencies))/float64(mean(base.latencies)))
	t.Logf("  server memory (RSS): %d MiB idle after the baseline, %d MiB with %d viewers connected (%.0f KiB per viewer), %d MiB after the loaded run (%.0f KiB per viewer)",
		rssIdle>>20, rssViewers>>20, views, float64(rssViewers-rssIdle)/float64(views)/1024, rssLoaded>>20, float64(rssLoaded-rssIdle)/float64(views)/1024)
	t.Logf("  student viewers the server holds: %d when connected, %d after the loaded run (%d never read: the server drops one once the kernel's socket buffers and its queue of 256 messages are full, and no stalled viewer delays the others)",
		studentsBefore, studentsAfter, stalled)

	for _, c := range conns {
		c.CloseNow()
	}
	conns = nil
	gone := time.Now().Add(30 * time.Second)
	for studentsWatching(t, teacher) > 0 {
		if time.Now().After(gone) {
			t.Fatalf("the server still counts %d student viewers 30 s after they closed", studentsWatching(t, teacher))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// produceRun is what produceFor measured.
type produceRun struct {
	records    int
	latencies  []time.Duration
	nextOffset int64
}

// produceFor posts loadBatch values every 100 ms for d, as the teacher,
// and measures each POST. Offsets start at from.
func produceFor(ctx context.Context, t *testing.T, teacher *client, topic string, d time.Duration, from int64) produceRun {
	t.Helper()
	run := produceRun{nextOffset: from}
	tick := time.NewTicker(time.Second * loadBatch / loadRecordsPerS)
	defer tick.Stop()
	end := time.Now().Add(d)
	values := make([]string, loadBatch)
	for n := 0; time.Now().Before(end); n++ {
		select {
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		case <-tick.C:
		}
		for i := range values {
			values[i] = fmt.Sprintf("order %d-%d", n, i)
		}
		body, _ := json.Marshal(map[string]any{"topic": topic, "partition": 0, "values": values, "acks": "all"})
		start := time.Now()
		raw := teacher.mustPost("/api/produce", string(body), http.StatusOK)
		run.latencies = append(run.latencies, time.Since(start))
		var out struct {
			Results []struct {
				Offset *int64  `json:"offset"`
				Error  *string `json:"error"`
			} `json:"results"`
		}
		if err := json.Unmarshal([]byte(raw), &out); err != nil {
			t.Fatal(err)
		}
		for _, r := range out.Results {
			if r.Error != nil || r.Offset == nil {
				t.Fatalf("produce failed: %s", raw)
			}
			run.records++
			run.nextOffset = max(run.nextOffset, *r.Offset+1)
		}
	}
	return run
}

// lagViewer reads a stream and notes, for each offset of [from,
// from+span), how long after the record's timestamp it first arrived. It
// scans the JSON for offsets and timestamps instead of decoding it, and
// keeps one number per offset, so that hundreds of viewers in the test
// process cost little CPU and memory next to the server's.
type lagViewer struct {
	from int64

	mu    sync.Mutex
	lag   []time.Duration // -1: not seen
	bytes int64
	err   error
}

func startLagViewer(ctx context.Context, conn *websocket.Conn, from, span int64) *lagViewer {
	v := &lagViewer{from: from, lag: make([]time.Duration, span)}
	for i := range v.lag {
		v.lag[i] = -1
	}
	conn.SetReadLimit(64 << 20)
	go func() {
		for {
			_, raw, err := conn.Read(ctx)
			now := time.Now()
			v.mu.Lock()
			v.bytes += int64(len(raw))
			v.mu.Unlock()
			if err != nil {
				v.mu.Lock()
				v.err = err
				v.mu.Unlock()
				return
			}
			if !bytes.HasPrefix(raw, []byte(`{"type":"entries"`)) {
				continue
			}
			v.mu.Lock()
			for rest := raw; ; {
				i := bytes.Index(rest, []byte(`{"offset":`))
				if i < 0 {
					break
				}
				rest = rest[i+len(`{"offset":`):]
				j := bytes.IndexByte(rest, ',')
				if j < 0 {
					break
				}
				off, err := strconv.ParseInt(string(rest[:j]), 10, 64)
				if err != nil || off < v.from || off >= v.from+int64(len(v.lag)) || v.lag[off-v.from] >= 0 {
					continue
				}
				var ts time.Time
				if k := bytes.Index(rest, []byte(`"timestamp":"`)); k >= 0 {
					tsRaw := rest[k+len(`"timestamp":"`):]
					if e := bytes.IndexByte(tsRaw, '"'); e > 0 {
						ts, _ = time.Parse(time.RFC3339Nano, string(tsRaw[:e]))
					}
				}
				v.lag[off-v.from] = max(0, now.Sub(ts))
			}
			v.mu.Unlock()
		}
	}()
	return v
}

func (v *lagViewer) saw(offset int64) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	i := offset - v.from
	return i >= 0 && i < int64(len(v.lag)) && v.lag[i] >= 0
}

func (v *lagViewer) failed() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.err
}

func (v *lagViewer) bytesReceived() int64 {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.bytes
}

// lags returns the delivery lags of offsets [from, to], and how many of
// them never arrived.
func (v *lagViewer) lags(from, to int64) ([]time.Duration, int) {
	v.mu.Lock()
	defer v.mu.Unlock()
	var out []time.Duration
	missing := 0
	for o := from; o <= to; o++ {
		i := o - v.from
		if i < 0 || i >= int64(len(v.lag)) || v.lag[i] < 0 {
			missing++
			continue
		}
		out = append(out, v.lag[i])
	}
	return out, missing
}

func studentsWatching(t *testing.T, teacher *client) int64 {
	t.Helper()
	_, body, _ := teacher.get("/api/classroom")
	var v struct {
		Students int64 `json:"students"`
	}
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatalf("GET /api/classroom: %v: %s", err, body)
	}
	return v.Students
}

func mustRSS(t *testing.T, p *serverProcess) int64 {
	t.Helper()
	n, err := p.rssBytes()
	if err != nil {
		t.Skipf("cannot read the server's memory: %v", err)
	}
	return n
}

// pct is the p-th percentile of sorted-or-not durations (p=100: max).
func pct(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	i := (len(s) - 1) * p / 100
	return s[i].Round(100 * time.Microsecond)
}

func mean(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	var sum time.Duration
	for _, x := range d {
		sum += x
	}
	return (sum / time.Duration(len(d))).Round(100 * time.Microsecond)
}
