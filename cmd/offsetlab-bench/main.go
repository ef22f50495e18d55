// Command offsetlab-bench measures the explorer's partition scans against
// a plain franz-go consumer on the same partition, in one run, and prints
// the ratios the explorer issue asks for. It is run by hand, not by go test:
//
//	go run ./cmd/offsetlab-bench                      # embedded broker, 1,000,000 offsets
//	go run ./cmd/offsetlab-bench --brokers host:port  # a real cluster (creates a topic)
//
// It fills one partition with plain records and interleaved committed and
// aborted transactions (several producers at once, big batches) and reports
// how long that took, then times, on that partition: a franz-go consumer
// reading it end to end (read_uncommitted and read_committed), the
// partition map (inspect.MapPartition), a substring search and a JSON path
// search (inspect.Search, following next until the range is done), each
// the best of --runs. Rates are offsets of the partition per second; the
// ratios divide by the faster consumer. The process's resident memory
// (VmRSS) is sampled throughout: with the embedded broker it includes the
// broker's copy of the partition, so look at how much each phase adds.
//
// It lives under cmd/ rather than scripts/ because it is Go that uses
// internal/inspect, internal/cluster and internal/embedded directly, and so
// is built and vetted with the module.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/embedded"
	"github.com/offsetlab/offsetlab/internal/inspect"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "offsetlab-bench:", err)
		os.Exit(1)
	}
}

// config is what the flags say.
type config struct {
	brokers     string
	offsets     int64
	valueBytes  int
	compression string
	plain, txn  int
	txnRecords  int
	fetchBytes  int
	runs        int
}

func parse(args []string) (config, error) {
	var c config
	fs := flag.NewFlagSet("offsetlab-bench", flag.ContinueOnError)
	fs.StringVar(&c.brokers, "brokers", "", "comma-separated brokers of a real cluster; empty starts an embedded broker")
	fs.Int64Var(&c.offsets, "offsets", 1_000_000, "offsets to fill the partition with")
	fs.IntVar(&c.valueBytes, "value-bytes", 100, "size of each record value (a JSON object)")
	fs.StringVar(&c.compression, "compression", "snappy", "producer codec: none, gzip, snappy, lz4 or zstd (franz-go's default is snappy)")
	fs.IntVar(&c.plain, "plain-producers", 4, "producers writing plain (non-transactional) records")
	fs.IntVar(&c.txn, "txn-producers", 2, "transactional producers; every third transaction aborts")
	fs.IntVar(&c.txnRecords, "txn-records", 1000, "records per transaction")
	fs.IntVar(&c.fetchBytes, "fetch-bytes", inspect.DefaultFetchBytes, "the Inspector's FetchBytes")
	fs.IntVar(&c.runs, "runs", 3, "timed runs of each measurement (the best counts)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if c.offsets < 1000 || c.valueBytes < 40 || c.plain < 1 || c.txn < 0 || c.txnRecords < 1 || c.runs < 1 {
		return c, errors.New("need --offsets >= 1000, --value-bytes >= 40, --plain-producers >= 1, --txn-records >= 1, --runs >= 1")
	}
	return c, nil
}

func codec(name string) (kgo.CompressionCodec, error) {
	switch name {
	case "none":
		return kgo.NoCompression(), nil
	case "gzip":
		return kgo.GzipCompression(), nil
	case "snappy":
		return kgo.SnappyCompression(), nil
	case "lz4":
		return kgo.Lz4Compression(), nil
	case "zstd":
		return kgo.ZstdCompression(), nil
	}
	return kgo.CompressionCodec{}, fmt.Errorf("unknown compression %q", name)
}

func run(ctx context.Context, args []string, out io.Writer) error {
	cfg, err := parse(args)
	if err != nil {
		return err
	}
	rss := newRSSWatch()
	defer rss.stop()
	fmt.Fprintf(out, "start: rss %s\n", mib(rss.now()))

	var kafka *cluster.Cluster
	if cfg.brokers == "" {
		// No data budget: the partition is as large as --offsets asks.
		kafka, err = embedded.Start(embedded.Config{KafkaAddr: "127.0.0.1:0", Budget: embedded.DataBudget{MaxBytes: -1}})
	} else {
		kafka, err = cluster.ConnectExternal(cluster.ExternalConfig{Brokers: strings.Split(cfg.brokers, ",")})
	}
	if err != nil {
		return err
	}
	defer kafka.Close()
	mode := "embedded broker (kfake, in memory)"
	if cfg.brokers != "" {
		mode = "brokers " + cfg.brokers
	}
	topic := fmt.Sprintf("offsetlab-bench-%d", time.Now().UnixNano())
	if _, err := kafka.CreateTopic(ctx, cluster.TopicSpec{Name: topic, Partitions: 1}); err != nil {
		return err
	}
	fmt.Fprintf(out, "%s, topic %s, %s batches, %d-byte values\n", mode, topic, cfg.compression, cfg.valueBytes)

	start := time.Now()
	if err := fill(ctx, kafka, topic, cfg); err != nil {
		return err
	}
	ins := inspect.New(kafka.Client())
	ins.FetchBytes = int32(cfg.fetchBytes)
	ptrs, err := ins.Pointers(ctx, topic, 0)
	if err != nil {
		return err
	}
	fillTime := time.Since(start)
	hw := ptrs.HighWatermark
	fmt.Fprintf(out, "fill: %d offsets in %v (%s offsets/s); pointers %+v\n", hw, fillTime.Round(time.Millisecond), rate(hw, fillTime), ptrs)
	settle()
	fmt.Fprintf(out, "after fill: rss %s (peak so far %s)\n\n", mib(rss.now()), mib(rss.peak()))

	m, err := ins.MapPartition(ctx, topic, 0, inspect.MapRequest{From: -1, To: -1, Buckets: 1})
	if err != nil {
		return err
	}
	t := m.Total()
	fmt.Fprintf(out, "partition: plain %d, committed %d, aborted %d, open %d, COMMIT %d, ABORT %d, gaps %d\n\n",
		t.Plain, t.Committed, t.Aborted, t.Open, t.CommitMarkers, t.AbortMarkers, t.Gaps)

	type phase struct {
		name string
		fn   func() error
	}
	lastRecord := hw - 1 // fill ends with a plain record
	var searchMatches, jsonMatches, searchCalls int
	phases := []phase{
		{"consumer read_uncommitted", func() error { return consume(ctx, kafka, topic, kgo.ReadUncommitted(), lastRecord) }},
		{"consumer read_committed", func() error { return consume(ctx, kafka, topic, kgo.ReadCommitted(), lastRecord) }},
		{"map (1,000 buckets)", func() error {
			_, err := ins.MapPartition(ctx, topic, 0, inspect.MapRequest{From: -1, To: -1, Buckets: 1000})
			return err
		}},
		{"search value substring", func() error {
			var err error
			searchMatches, searchCalls, err = searchAll(ctx, ins, topic, inspect.SearchRequest{Query: "no-such-text", In: inspect.SearchValue})
			return err
		}},
		{"search JSON path order.id", func() error {
			var err error
			jsonMatches, _, err = searchAll(ctx, ins, topic, inspect.SearchRequest{Query: "O-0004242", Path: "order.id"})
			return err
		}},
	}
	best := map[string]time.Duration{}
	runs := map[string][]time.Duration{}
	allocs := map[string]uint64{}
	peaks := map[string]int64{}
	for _, p := range phases {
		for range cfg.runs {
			settle()
			rss.resetPeak()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			began := time.Now()
			if err := p.fn(); err != nil {
				return fmt.Errorf("%s: %w", p.name, err)
			}
			d := time.Since(began)
			runtime.ReadMemStats(&after)
			allocs[p.name] = after.TotalAlloc - before.TotalAlloc
			runs[p.name] = append(runs[p.name], d.Round(time.Millisecond))
			if b, ok := best[p.name]; !ok || d < b {
				best[p.name] = d
			}
			peaks[p.name] = max(peaks[p.name], rss.peak())
		}
		fmt.Fprintf(out, "%-26s best %7v %10s offsets/s  peak rss %7s  allocated %5.0f B/offset  runs %v\n", p.name, best[p.name].Round(time.Millisecond), rate(hw, best[p.name]), mib(peaks[p.name]), float64(allocs[p.name])/float64(hw), runs[p.name])
	}
	consumer := min(best["consumer read_uncommitted"], best["consumer read_committed"])
	ratio := func(name string) float64 { return float64(consumer) / float64(best[name]) }
	fmt.Fprintf(out, "\nsearch: %d matches for the substring (%d calls of at most %d MiB), %d for the JSON path\n",
		searchMatches, searchCalls, inspect.DefaultSearchBytes>>20, jsonMatches)
	fmt.Fprintf(out, "map rate ÷ consumer rate:            %.2f (target >= 1.0, aim 2)\n", ratio("map (1,000 buckets)"))
	fmt.Fprintf(out, "search rate ÷ consumer rate:         %.2f (target >= 0.5)\n", ratio("search value substring"))
	fmt.Fprintf(out, "JSON path search ÷ consumer rate:    %.2f\n", ratio("search JSON path order.id"))
	fmt.Fprintf(out, "rss: after fill %s, peak over the whole run %s (limit 256 MiB)\n", mib(rss.baseline()), mib(rss.hwm()))
	return nil
}

// fill writes plain records and transactions from several producers at
// once until the partition holds cfg.offsets offsets, ends every
// transaction, and writes one last plain record.
func fill(ctx context.Context, kafka *cluster.Cluster, topic string, cfg config) error {
	c, err := codec(cfg.compression)
	if err != nil {
		return err
	}
	common := append(kafka.ClientOpts(),
		kgo.DefaultProduceTopic(topic),
		kgo.ProducerBatchCompression(c),
		kgo.ProducerLinger(10*time.Millisecond),
		kgo.MaxBufferedRecords(20_000),
		kgo.ProducerBatchMaxBytes(1_000_000),
	)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var written atomic.Int64 // records acknowledged, a lower bound of the offsets
	var seq atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, cfg.plain+cfg.txn)
	// Values are JSON objects padded with pseudo-random letters, so that
	// batches compress about as much as real payloads do, not to nothing.
	value := func() []byte {
		n := seq.Add(1)
		v := fmt.Appendf(nil, `{"order":{"id":"O-%07d","qty":%d},"pad":"`, n, n%5+1)
		x := uint64(n) * 0x9e3779b97f4a7c15
		for len(v) < cfg.valueBytes-2 {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			v = append(v, "abcdefghijklmnopqrstuvwxyz0123456789"[x%36])
		}
		return append(v, '"', '}')
	}
	done := func() bool { return written.Load() >= cfg.offsets*98/100 || ctx.Err() != nil }
	for i := range cfg.plain {
		cl, err := kgo.NewClient(common...)
		if err != nil {
			return err
		}
		defer cl.Close()
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !done() {
				recs := make([]*kgo.Record, 2000)
				for j := range recs {
					recs[j] = &kgo.Record{Key: fmt.Appendf(nil, "key-%d-%d", i, j), Value: value()}
				}
				if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
					errs <- err
					cancel()
					return
				}
				written.Add(int64(len(recs)))
			}
		}()
	}
	for i := range cfg.txn {
		cl, err := kgo.NewClient(append(common, kgo.TransactionalID(fmt.Sprintf("%s-txn-%d", topic, i)))...)
		if err != nil {
			return err
		}
		defer cl.Close()
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; !done(); n++ {
				if err := cl.BeginTransaction(); err != nil {
					errs <- err
					cancel()
					return
				}
				recs := make([]*kgo.Record, cfg.txnRecords)
				for j := range recs {
					recs[j] = &kgo.Record{Key: fmt.Appendf(nil, "txn-%d-%d", i, j), Value: value()}
				}
				err := cl.ProduceSync(ctx, recs...).FirstErr()
				if err == nil {
					err = cl.EndTransaction(ctx, kgo.TransactionEndTry(n%3 != 2))
				}
				if err != nil {
					errs <- err
					cancel()
					return
				}
				written.Add(int64(len(recs)) + 1)
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return err
	}
	last, err := kgo.NewClient(common...)
	if err != nil {
		return err
	}
	defer last.Close()
	return last.ProduceSync(ctx, &kgo.Record{Key: []byte("end"), Value: value()}).FirstErr()
}

// consume reads the partition from offset 0 with a fresh franz-go consumer
// until it has received the record at offset last.
func consume(ctx context.Context, kafka *cluster.Cluster, topic string, iso kgo.IsolationLevel, last int64) error {
	cl, err := kgo.NewClient(append(kafka.ClientOpts(),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {0: kgo.NewOffset().At(0)}}),
		kgo.FetchIsolationLevel(iso),
	)...)
	if err != nil {
		return err
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	for {
		fs := cl.PollFetches(ctx)
		if err := fs.Err0(); err != nil {
			return err
		}
		reached := false
		fs.EachRecord(func(r *kgo.Record) { reached = reached || r.Offset >= last })
		if reached {
			return nil
		}
	}
}

// searchAll runs req over the whole partition, following next.
func searchAll(ctx context.Context, ins *inspect.Inspector, topic string, req inspect.SearchRequest) (matches, calls int, err error) {
	req.From, req.To, req.Limit = -1, -1, inspect.MaxSearchLimit
	for {
		calls++
		res, err := ins.Search(ctx, topic, 0, req)
		if err != nil {
			return matches, calls, err
		}
		matches += len(res.Matches)
		if res.Next == nil {
			return matches, calls, nil
		}
		req.From = *res.Next
	}
}

// settle returns freed memory to the OS so that each phase's resident
// memory starts from what is live.
func settle() {
	runtime.GC()
	debug.FreeOSMemory()
}

// rssWatch samples the process's resident memory every 20 ms.
type rssWatch struct {
	mu         sync.Mutex
	top, first int64
	done       chan struct{}
	stopped    sync.WaitGroup
}

func newRSSWatch() *rssWatch {
	w := &rssWatch{done: make(chan struct{})}
	w.stopped.Add(1)
	go func() {
		defer w.stopped.Done()
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-w.done:
				return
			case <-tick.C:
				v := w.now()
				w.mu.Lock()
				w.top = max(w.top, v)
				w.mu.Unlock()
			}
		}
	}()
	return w
}

func (w *rssWatch) stop() {
	close(w.done)
	w.stopped.Wait()
}

// now reads VmRSS, -1 where /proc is not available.
func (w *rssWatch) now() int64 { return procStatus("VmRSS:") }

// hwm reads the kernel's peak resident memory of the process (VmHWM).
func (w *rssWatch) hwm() int64 { return procStatus("VmHWM:") }

func (w *rssWatch) peak() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return max(w.top, w.now())
}

// resetPeak starts a new phase; the first reset also records the baseline.
func (w *rssWatch) resetPeak() {
	v := w.now()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.first == 0 {
		w.first = v
	}
	w.top = v
}

func (w *rssWatch) baseline() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.first
}

func procStatus(field string) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return -1
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), field); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return -1
}

func mib(b int64) string {
	if b < 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20))
}

func rate(n int64, d time.Duration) string {
	if d <= 0 {
		return "∞"
	}
	r := float64(n) / d.Seconds()
	if r >= 1e6 {
		return fmt.Sprintf("%.2f M", r/1e6)
	}
	return fmt.Sprintf("%.0f k", r/1e3)
}
