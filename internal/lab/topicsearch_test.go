package lab_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/embedded"
	"github.com/offsetlab/offsetlab/internal/inspect"
	"github.com/offsetlab/offsetlab/internal/lab"
	"github.com/offsetlab/offsetlab/internal/testenv"
)

// searchLab is a Lab over a fresh embedded broker, or over the real Kafka
// OFFSETLAB_KAFKA_BROKERS names when real is set, with its brokers.
func searchLab(tb testing.TB, real bool) (*lab.Lab, []string) {
	tb.Helper()
	var c *cluster.Cluster
	var err error
	if real {
		testenv.Needs(tb, testenv.JVM)
		brokers := os.Getenv("OFFSETLAB_KAFKA_BROKERS")
		if brokers == "" {
			tb.Skip("real Kafka skipped: set OFFSETLAB_KAFKA_BROKERS=host:port")
		}
		c, err = cluster.ConnectExternal(cluster.ExternalConfig{Brokers: strings.Split(brokers, ",")})
	} else {
		c, err = embedded.Start(embedded.Config{KafkaAddr: "127.0.0.1:0"})
	}
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(c.Close)
	l := lab.New(lab.Config{Cluster: c})
	tb.Cleanup(l.Close)
	return l, c.Brokers()
}

// fillTopic creates topic with partitions partitions and writes records
// to each: record(p, i) gives its key, value and timestamp; nil skips it.
func fillTopic(tb testing.TB, brokers []string, topic string, partitions, perPartition int, record func(p int32, i int) *kgo.Record) {
	tb.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ProducerBatchCompression(kgo.Lz4Compression()), kgo.ProducerLinger(5*time.Millisecond))
	if err != nil {
		tb.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if _, err := kadm.NewClient(cl).CreateTopic(ctx, int32(partitions), 1, nil, topic); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { // a shared real cluster keeps no benchmark topic
		if cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...)); err == nil {
			defer cl.Close()
			_, _ = kadm.NewClient(cl).DeleteTopics(context.Background(), topic)
		}
	})
	var failed atomic.Value
	for p := range int32(partitions) {
		for i := range perPartition {
			r := record(p, i)
			if r == nil {
				continue
			}
			r.Topic, r.Partition = topic, p
			cl.Produce(ctx, r, func(_ *kgo.Record, err error) {
				if err != nil {
					failed.Store(err)
				}
			})
		}
	}
	if err := cl.Flush(ctx); err != nil {
		tb.Fatal(err)
	}
	if err, _ := failed.Load().(error); err != nil {
		tb.Fatal(err)
	}
}

// TestSearchTopic: a search of every partition finds each match with its
// partition, in partition then offset order; a limit cuts inside a
// partition and next resumes exactly there, leaving done partitions out;
// lent turns run partitions at once, never more than lent; each partition
// reports its end; a topic-wide seek by time gives each partition's first
// offset at or after the time.
func TestSearchTopic(t *testing.T) {
	t.Parallel()
	l, brokers := searchLab(t, false)
	ctx := testContext(t)
	const topic = "payments"
	base := time.UnixMilli(1_700_000_000_000)
	fillTopic(t, brokers, topic, 4, 50, func(p int32, i int) *kgo.Record {
		key := fmt.Sprintf("k-%d-%d", p, i)
		if (p == 0 && (i == 3 || i == 20 || i == 40)) || (p == 2 && i == 7) {
			key = fmt.Sprintf("needle-%d-%d", p, i)
		}
		return &kgo.Record{Key: []byte(key), Value: []byte(`{"n":` + fmt.Sprint(i) + `}`), Timestamp: base.Add(time.Duration(i) * time.Second)}
	})

	var running, most atomic.Int32
	lender := func(cap int32) func() (func(), bool) {
		var lent atomic.Int32
		return func() (func(), bool) {
			if lent.Add(1) > cap {
				lent.Add(-1)
				return nil, false
			}
			n := running.Add(1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			return func() { running.Add(-1); lent.Add(-1) }, true
		}
	}
	where := func(ms []lab.TopicMatch) []string {
		var out []string
		for _, m := range ms {
			out = append(out, fmt.Sprintf("%d:%d", m.Partition, m.Offset))
		}
		return out
	}
	str := func(s *string) string {
		if s == nil {
			return "<nil>"
		}
		return *s
	}
	tests := []struct {
		name     string
		limit    int
		resume   string
		want     []string
		wantNext string
	}{
		{name: "every match", want: []string{"0:3", "0:20", "0:40", "2:7"}, wantNext: "<nil>"},
		{name: "a limit inside partition 0", limit: 2, want: []string{"0:3", "0:20"}, wantNext: "0:21,2:7"},
		{name: "resumed where it was cut", limit: 2, resume: "0:21,2:7", want: []string{"0:40", "2:7"}, wantNext: "<nil>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resume, err := lab.ParseResume(tt.resume)
			if err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			done := map[int32]bool{}
			res, err := l.SearchTopic(ctx, topic, lab.TopicSearchRequest{
				SearchRequest: inspect.SearchRequest{Query: "needle", In: inspect.SearchKey, From: -1, To: -1, Limit: tt.limit},
				Resume:        resume,
				Workers:       lender(2),
				Progress: func(p lab.TopicSearchProgress) {
					mu.Lock()
					defer mu.Unlock()
					if p.Done {
						done[p.Partition] = true
					}
				},
			})
			if err != nil {
				t.Fatal(err)
			}
			equalStrings(t, "matches", where(res.Matches), tt.want)
			if got := str(res.Next); got != tt.wantNext {
				t.Errorf("next %s, want %s", got, tt.wantNext)
			}
			if want := len(res.Partitions); len(done) != want {
				t.Errorf("%d partitions reported done, %d searched", len(done), want)
			}
			for _, m := range res.Matches {
				if m.Key == nil || !strings.HasPrefix(*m.Key, fmt.Sprintf("needle-%d-", m.Partition)) {
					t.Errorf("match %d:%d has key %v", m.Partition, m.Offset, m.Key)
				}
			}
		})
	}
	if m := most.Load(); m < 1 || m > 2 {
		t.Errorf("at most %d lent turns ran at once, lent 2", m)
	}

	offsets, err := l.TopicOffsetsForTime(ctx, topic, base.Add(10*time.Second).UnixMilli(), lender(3))
	if err != nil {
		t.Fatal(err)
	}
	if len(offsets) != 4 {
		t.Fatalf("offsets for time: %+v", offsets)
	}
	for _, o := range offsets {
		if o.Offset != 10 || o.Timestamp != base.Add(10*time.Second).UnixMilli() {
			t.Errorf("partition %d seeks to %d (%d), want 10", o.Partition, o.Offset, o.Timestamp)
		}
	}
}

func equalStrings(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("%s: got %v, want %v", what, got, want)
	}
}

// BenchmarkSearchTopic times, in one run on the same topic (6 partitions
// of JSON records with headers, LZ4), a franz-go consumer reading every
// partition to its high watermark against SearchTopic scanning every
// record for a key no record has (following next until every partition
// is done, partitions in parallel on half the cores, as the scan limits
// lend them), and reports consumer time / search time as "x-consumer"
// (goal ≥ 1). On the embedded broker; with OFFSETLAB_KAFKA_BROKERS set,
// on that real Kafka too:
//
//	go test ./internal/lab -run '^$' -bench SearchTopic -benchtime 3x
func BenchmarkSearchTopic(b *testing.B) {
	for _, real := range []bool{false, true} {
		name := "embedded"
		if real {
			name = "kafka"
		}
		b.Run(name, func(b *testing.B) { benchSearchTopic(b, real) })
	}
}

func benchSearchTopic(b *testing.B, real bool) {
	l, brokers := searchLab(b, real)
	const partitions, perPartition = 6, 50_000
	topic := fmt.Sprintf("bench-search-%d", time.Now().UnixNano())
	fillTopic(b, brokers, topic, partitions, perPartition, func(p int32, i int) *kgo.Record {
		return &kgo.Record{
			Key:     []byte(fmt.Sprintf("customer-%d", (i*7+int(p))%5000)),
			Value:   []byte(fmt.Sprintf(`{"order":"O-%d-%d","amount":%d,"currency":"KRW","items":[{"sku":"S-%d","qty":%d}]}`, p, i, i*100, i%300, i%5)),
			Headers: []kgo.RecordHeader{{Key: "trace-id", Value: []byte(fmt.Sprintf("t-%d-%d", p, i))}},
		}
	})
	ctx := context.Background()
	total := int64(partitions * perPartition)
	consume := func() time.Duration {
		begin := time.Now()
		cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
		if err != nil {
			b.Fatal(err)
		}
		defer cl.Close()
		var n int64
		for n < total {
			fs := cl.PollFetches(ctx)
			if err := fs.Err0(); err != nil {
				b.Fatal(err)
			}
			n += int64(fs.NumRecords())
		}
		return time.Since(begin)
	}
	workers := max(1, runtime.GOMAXPROCS(0)/2) - 1 // the request's own turn is one
	search := func() time.Duration {
		begin := time.Now()
		var lent atomic.Int32
		lender := func() (func(), bool) {
			if int(lent.Add(1)) > workers {
				lent.Add(-1)
				return nil, false
			}
			return func() { lent.Add(-1) }, true
		}
		var resume map[int32]int64
		for {
			res, err := l.SearchTopic(ctx, topic, lab.TopicSearchRequest{
				SearchRequest: inspect.SearchRequest{Query: "no-such-customer", In: inspect.SearchKey, From: -1, To: -1},
				Resume:        resume, Workers: lender,
			})
			if err != nil {
				b.Fatal(err)
			}
			if len(res.Matches) != 0 {
				b.Fatalf("found %d", len(res.Matches))
			}
			if res.Next == nil {
				return time.Since(begin)
			}
			if resume, err = lab.ParseResume(*res.Next); err != nil {
				b.Fatal(err)
			}
		}
	}
	var consumed, searched time.Duration
	b.ResetTimer()
	for b.Loop() {
		consumed += consume()
		searched += search()
	}
	b.ReportMetric(consumed.Seconds()/searched.Seconds(), "x-consumer")
	b.ReportMetric(float64(total)*float64(b.N)/searched.Seconds(), "offsets/s")
	b.Logf("%d offsets in %d partitions: consumer %v, topic search %v (%d lent turns): %.2f×",
		total, partitions, consumed/time.Duration(b.N), searched/time.Duration(b.N), workers, consumed.Seconds()/searched.Seconds())
}
