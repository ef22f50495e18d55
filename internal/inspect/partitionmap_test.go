package inspect

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetlab/offsetlab/internal/problem"
)

// codecsUnderTest are every codec Kafka defines, as franz-go produces them.
var codecsUnderTest = []struct {
	name  string
	codec kgo.CompressionCodec
}{
	{"none", kgo.NoCompression()},
	{"gzip", kgo.GzipCompression()},
	{"snappy", kgo.SnappyCompression()},
	{"lz4", kgo.Lz4Compression()},
	{"zstd", kgo.ZstdCompression()},
}

// mixed fills the fixture's partition with plain, committed, aborted and
// open records in batches of every codec, interleaved across producers. A
// transaction left open in the middle pins the last stable offset there,
// so outcomes are resolved both ways: from aborted-transaction lists below
// it and from markers above it. It returns the last stable offset.
func (f *fixture) mixed() int64 {
	f.t.Helper()
	linger := kgo.ProducerLinger(20 * time.Millisecond)
	round := func(tag string, hold *kgo.Client) {
		for _, c := range codecsUnderTest {
			opts := []kgo.Opt{kgo.ProducerBatchCompression(c.codec), linger}
			plain := f.producer("", opts...)
			txA := f.producer(tag+"-a-"+c.name, opts...)
			txB := f.producer(tag+"-b-"+c.name, opts...)
			f.send(plain, tag+"-plain-"+c.name+"-1", tag+"-plain-"+c.name+"-2", tag+"-plain-"+c.name+"-3")
			f.begin(txA)
			f.send(txA, tag+"-commit-"+c.name+"-1", tag+"-commit-"+c.name+"-2")
			f.begin(txB)
			f.send(txB, tag+"-abort-"+c.name+"-1")
			f.send(plain, tag+"-plain-"+c.name+"-4")
			f.send(txA, tag+"-commit-"+c.name+"-3")
			f.end(txB, false)
			f.end(txA, true)
			if hold != nil {
				f.send(hold, tag+"-open-"+c.name)
			}
		}
	}
	round("below", nil)
	lso := f.settle(-1).HighWatermark
	hold := f.producer("hold", linger)
	f.begin(hold)
	f.send(hold, "open-first")
	round("above", hold)
	trailing := f.producer("trailing", kgo.ProducerBatchCompression(kgo.ZstdCompression()), linger)
	f.begin(trailing)
	f.send(trailing, "open-at-the-end-1", "open-at-the-end-2")
	f.settle(lso)
	return lso
}

// TestMapMatchesReadLog is the map's key check: on a partition mixing
// plain, committed, aborted and open records with every codec, each
// bucket's counts equal those of walking ReadLog over the same offsets,
// for several ranges and bucket counts, on kfake and on real Kafka.
func TestMapMatchesReadLog(t *testing.T) {
	t.Parallel()
	for _, kind := range brokerKinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, kind, nil)
			lso := f.mixed()
			ptrs := f.settle(lso)
			hw := ptrs.HighWatermark
			entries := f.walk(0, hw, 17)
			if int64(len(entries)) != hw {
				t.Fatalf("ReadLog walk: %d entries, want %d", len(entries), hw)
			}
			var total MapBucket
			for i := range entries {
				total.add(classOfEntry(&entries[i]), 1)
			}
			if total.Plain == 0 || total.Committed == 0 || total.Aborted == 0 || total.Open == 0 || total.CommitMarkers == 0 || total.AbortMarkers == 0 {
				t.Fatalf("the fixture lacks a class: %+v", total)
			}
			tests := []struct {
				name     string
				from, to int64
				buckets  int
			}{
				{"whole partition, one bucket", -1, -1, 1},
				{"whole partition, 7 buckets", -1, -1, 7},
				{"one bucket an offset", -1, -1, MaxBuckets},
				{"middle, across the LSO", 5, hw - 3, 11},
				{"above the LSO", lso, hw, 3},
				{"below the LSO", 1, lso, 4},
				{"to past the high watermark", 2, hw + 100, 5},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					m, err := f.ins.MapPartition(testCtx(t), f.topic, 0, MapRequest{From: tt.from, To: tt.to, Buckets: tt.buckets})
					if err != nil {
						t.Fatal(err)
					}
					from, to := max(tt.from, 0), min(tt.to, hw)
					if tt.to < 0 {
						to = hw
					}
					if m.From != from || m.To != to || m.Pointers != ptrs {
						t.Fatalf("map of [%d, %d) %+v, want [%d, %d) %+v", m.From, m.To, m.Pointers, from, to, ptrs)
					}
					if want := min(tt.buckets, int(to-from)); len(m.Buckets) != want {
						t.Fatalf("got %d buckets, want %d", len(m.Buckets), want)
					}
					checkBucketBounds(t, m)
					want := bucketsOf(m, entries[from:to])
					if !reflect.DeepEqual(m.Buckets, want) {
						for k := range want {
							if m.Buckets[k] != want[k] {
								t.Errorf("bucket %d: got %+v, want %+v", k, m.Buckets[k], want[k])
							}
						}
					}
				})
			}
		})
	}
}

// checkBucketBounds checks that the buckets tile [From, To) in equal
// ranges (sizes differ by at most one) and that counts add up to sizes.
func checkBucketBounds(t *testing.T, m *PartitionMap) {
	t.Helper()
	next := m.From
	minSize, maxSize := int64(1<<62), int64(0)
	for k, b := range m.Buckets {
		size := b.To - b.From
		if b.From != next || size <= 0 {
			t.Fatalf("bucket %d is [%d, %d), want it to start at %d and hold offsets", k, b.From, b.To, next)
		}
		if sum := b.Records() + b.CommitMarkers + b.AbortMarkers + b.OtherControl + b.Gaps; sum != size {
			t.Errorf("bucket %d counts %d offsets, holds %d", k, sum, size)
		}
		minSize, maxSize = min(minSize, size), max(maxSize, size)
		next = b.To
	}
	if len(m.Buckets) > 0 && (next != m.To || maxSize-minSize > 1) {
		t.Errorf("buckets end at %d (want %d), sizes %d to %d", next, m.To, minSize, maxSize)
	}
}

// TestMapLessonTwo is lesson 2's output topic after the crash and the
// restart: 0 O-1 committed, 1 COMMIT, 2 O-2 aborted, 3 ABORT, 4 O-2,
// 5 COMMIT, 6 O-3, 7 COMMIT. The map counts 3 committed, 1 aborted,
// 3 COMMIT and 1 ABORT, and the record lag of a read_committed consumer
// follows the markers.
func TestMapLessonTwo(t *testing.T) {
	t.Parallel()
	for _, kind := range brokerKinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, kind, nil)
			lessonTwo(f)
			m, err := f.ins.MapPartition(testCtx(t), f.topic, 0, MapRequest{From: -1, To: -1, Buckets: 1})
			if err != nil {
				t.Fatal(err)
			}
			want := MapBucket{From: 0, To: 8, Committed: 3, Aborted: 1, CommitMarkers: 3, AbortMarkers: 1}
			if got := m.Buckets[0]; got != want {
				t.Errorf("map: got %+v, want %+v", got, want)
			}
			perOffset, err := f.ins.MapPartition(testCtx(t), f.topic, 0, MapRequest{From: 0, To: 8, Buckets: 8})
			if err != nil {
				t.Fatal(err)
			}
			wantClasses := []class{classCommitted, classCommitMarker, classAborted, classAbortMarker, classCommitted, classCommitMarker, classCommitted, classCommitMarker}
			for o, c := range wantClasses {
				var b MapBucket
				b.add(c, 1)
				b.From, b.To = int64(o), int64(o+1)
				if perOffset.Buckets[o] != b {
					t.Errorf("offset %d: got %+v, want %+v", o, perOffset.Buckets[o], b)
				}
			}
			lags := []struct{ committed, want int64 }{{0, 3}, {1, 2}, {3, 2}, {5, 1}, {6, 1}, {7, 0}, {8, 0}, {100, 0}}
			for _, l := range lags {
				got, err := f.ins.RecordLag(testCtx(t), f.topic, 0, l.committed)
				if err != nil {
					t.Fatal(err)
				}
				if got != l.want {
					t.Errorf("record lag at %d: got %d, want %d", l.committed, got, l.want)
				}
			}
		})
	}
}

// lessonTwo writes lesson 2's output: a transactional producer commits
// O-1, writes O-2 and dies; its successor (same transactional.id) fences
// it, which aborts O-2, then commits O-2 and O-3.
func lessonTwo(f *fixture) {
	f.t.Helper()
	crashed := f.producer("order-totals-app")
	f.begin(crashed)
	f.send(crashed, "O-1 total=30000")
	f.end(crashed, true)
	f.begin(crashed)
	f.send(crashed, "O-2 total=42000")
	restarted := f.producer("order-totals-app")
	f.begin(restarted)
	f.send(restarted, "O-2 total=42000")
	f.end(restarted, true)
	f.begin(restarted)
	f.send(restarted, "O-3 total=27000")
	f.end(restarted, true)
	if p := f.settle(-1); p.HighWatermark != 8 {
		f.t.Fatalf("lesson 2 output has pointers %+v, want a high watermark of 8", p)
	}
}

func TestMapProgressAndCancel(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "kfake", nil)
	p := f.producer("", kgo.ProducerLinger(5*time.Millisecond), kgo.ProducerBatchMaxBytes(4<<10))
	for i := range 20 {
		f.send(p, values(fmt.Sprintf("r%d-", i), 200)...)
	}
	f.ins.FetchBytes = 8 << 10 // many fetches
	var calls []int64
	m, err := f.ins.MapPartition(testCtx(t), f.topic, 0, MapRequest{From: -1, To: -1, Buckets: 10, Progress: func(p MapProgress) {
		calls = append(calls, p.ScannedTo)
		if p.Map.Topic != f.topic || len(p.Map.Buckets) != 10 {
			t.Errorf("progress map: %s with %d buckets", p.Map.Topic, len(p.Map.Buckets))
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) == 0 {
		t.Fatalf("no progress reported; map %+v", m.Total())
	}
	for k := 1; k < len(calls); k++ {
		if calls[k] < calls[k-1] || calls[k] > m.To {
			t.Fatalf("progress went %v", calls)
		}
	}
	if got := m.Total().Plain; got != 4000 {
		t.Errorf("map counts %d plain records, want 4000", got)
	}

	ctx, cancel := ctxWithCancel(t)
	defer cancel()
	_, err = f.ins.MapPartition(ctx, f.topic, 0, MapRequest{From: -1, To: -1, Progress: func(MapProgress) { cancel() }})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled map: got %v, want context.Canceled", err)
	}
}

func TestMapBadInput(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "kfake", nil)
	f.send(f.producer(""), "a", "b", "c")
	tests := []struct {
		name        string
		req         MapRequest
		err         error
		from, to    int64
		wantBuckets int
	}{
		{"zero buckets means the default", MapRequest{From: -1, To: -1}, nil, 0, 3, 3},
		{"negative buckets", MapRequest{From: -1, To: -1, Buckets: -1}, ErrInvalidRange, 0, 0, 0},
		{"too many buckets", MapRequest{From: -1, To: -1, Buckets: MaxBuckets + 1}, ErrInvalidRange, 0, 0, 0},
		{"from after to", MapRequest{From: 2, To: 1, Buckets: 1}, ErrInvalidRange, 0, 0, 0},
		{"from past the high watermark", MapRequest{From: 10, To: -1, Buckets: 5}, nil, 10, 10, 0},
		{"range past the high watermark", MapRequest{From: 10, To: 20, Buckets: 5}, nil, 10, 10, 0},
		{"empty range", MapRequest{From: 1, To: 1, Buckets: 5}, nil, 1, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := f.ins.MapPartition(testCtx(t), f.topic, 0, tt.req)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("got %v, want %v", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if m.From != tt.from || m.To != tt.to || len(m.Buckets) != tt.wantBuckets || m.Buckets == nil {
				t.Errorf("got [%d, %d) with %d buckets, want [%d, %d) with %d", m.From, m.To, len(m.Buckets), tt.from, tt.to, tt.wantBuckets)
			}
		})
	}
	if _, err := f.ins.MapPartition(testCtx(t), "no-such-topic", 0, MapRequest{From: -1, To: -1}); !problem.Is(err, "error.unknownTopic") {
		t.Errorf("unknown topic: got %v", err)
	}
	if _, err := f.ins.MapPartition(testCtx(t), f.topic, 7, MapRequest{From: -1, To: -1}); !problem.Is(err, "error.unknownPartition") {
		t.Errorf("unknown partition: got %v", err)
	}
}

// TestMapCompactedBatches maps a compacted topic whose batches lost some
// of their records (NumRecords below their offset span): the holes are
// gaps, as ReadLog says.
func TestMapCompactedBatches(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "kfake", map[string]string{"cleanup.policy": "compact"})
	p := f.producer("", kgo.ProducerLinger(20*time.Millisecond))
	recs := []*kgo.Record{}
	for i := range 30 {
		recs = append(recs, &kgo.Record{Key: []byte{byte('a' + i%4)}, Value: fmt.Appendf(nil, "v%d", i)})
	}
	if err := p.ProduceSync(testCtx(t), recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	f.send(p, "tail")
	f.fake.Compact()
	ptrs := f.settle(-1)
	entries := f.walk(0, ptrs.HighWatermark, MaxLimit)
	m, err := f.ins.MapPartition(testCtx(t), f.topic, 0, MapRequest{From: 0, To: -1, Buckets: 6})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := m.Buckets, bucketsOf(m, entries); !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	if total := m.Total(); total.Gaps == 0 || total.GapsCompacted != total.Gaps {
		t.Errorf("compaction left no gap, or gaps of another reason: %+v", total)
	}
}
